import { apiClient, type Schemas } from "@/lib/api-client";

export type MarketStats = Schemas["MarketStats"];
export type TableStats = Schemas["TableStats"];
export type DatasetInfo = Schemas["DatasetInfo"];
export type MarketSync = Schemas["MarketSync"];

export const marketStatsKey = ["market", "stats"] as const;

export function getMarketStats(): Promise<MarketStats> {
  return apiClient.get<MarketStats>("/api/market/stats/");
}
