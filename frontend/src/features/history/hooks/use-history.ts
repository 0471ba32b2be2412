import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { listJobs } from "@/features/history/api/jobs";

export function useHistory(page: number) {
  return useQuery({ queryKey: ["jobs", "list", page], queryFn: () => listJobs(page), placeholderData: keepPreviousData });
}
