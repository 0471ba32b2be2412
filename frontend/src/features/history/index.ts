export { HistoryPage } from "@/features/history/components/history-page";
