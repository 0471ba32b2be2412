import { useQuery } from "@tanstack/react-query";

import { getMarketStats, marketStatsKey } from "@/features/market/api/get-market-stats";

export function useMarketStats() {
  return useQuery({ queryKey: marketStatsKey, queryFn: getMarketStats, staleTime: 60_000 });
}
