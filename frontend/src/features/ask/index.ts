export { AskPanel } from "@/features/ask/components/ask-panel";
