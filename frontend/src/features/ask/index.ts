export { AskPage } from "@/features/ask/components/ask-page";
