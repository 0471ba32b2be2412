import { apiClient } from "@/lib/api-client";

export interface TableStats {
  table: string;
  rows: number;
  date_column: string | null;
  min_date: string | null;
  max_date: string | null;
  stocks: number | null;
}

export interface DatasetInfo {
  dataset: string;
  synthetic: boolean;
  description: string;
  licence: string;
  loaded_at: string;
}

export interface MarketStats {
  database: string;
  synthetic: boolean;
  tables: TableStats[];
  datasets: DatasetInfo[];
}

export const marketStatsKey = ["market", "stats"] as const;

export function getMarketStats(): Promise<MarketStats> {
  return apiClient.get<MarketStats>("/api/market/stats/");
}
