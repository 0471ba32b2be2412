export { ParadigmsPage } from "@/features/paradigms/components/paradigms-page";
