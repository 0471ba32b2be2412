export { ScreensPage } from "@/features/screens/components/screens-page";
