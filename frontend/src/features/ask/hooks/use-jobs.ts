import { useMutation, useQuery } from "@tanstack/react-query";

import { askJob, getJob, getJobResult, getSemanticModel, saveScreen } from "@/features/ask/api/jobs";

export function useAskJob() {
  return useMutation({ mutationFn: askJob });
}

export function useJob(jobId: number | null) {
  return useQuery({ queryKey: ["jobs", jobId], queryFn: () => getJob(jobId ?? 0), enabled: jobId !== null });
}

/** The result once the job is done (its rows never change afterwards). */
export function useJobResult(jobId: number | null, done: boolean) {
  return useQuery({
    queryKey: ["jobs", jobId, "result"],
    queryFn: () => getJobResult(jobId ?? 0),
    enabled: jobId !== null && done,
    staleTime: Infinity,
  });
}

export function useSemanticModel() {
  return useQuery({ queryKey: ["semantic"], queryFn: getSemanticModel, staleTime: Infinity });
}

export function useSaveScreen() {
  return useMutation({ mutationFn: saveScreen });
}
