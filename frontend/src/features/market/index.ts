export { MarketStatus } from "@/features/market/components/market-status";
export { SyntheticBanner } from "@/features/market/components/synthetic-banner";
