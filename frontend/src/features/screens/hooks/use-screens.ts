import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import {
  deleteScreen,
  getJob,
  getScreenResult,
  getSemanticModel,
  listRuns,
  listScreens,
  runScreen,
} from "@/features/screens/api/screens";

const ACTIVE = new Set(["queued", "running"]);

export function useScreens(search: string) {
  return useQuery({ queryKey: ["screens", search], queryFn: () => listScreens(search) });
}

export function useDeleteScreen() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteScreen,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["screens"] }),
  });
}

export function useRunScreen() {
  return useMutation({ mutationFn: runScreen });
}

/** A re-run's job, polled until it ends; then the screen's result and history are read again. */
export function useRun(jobId: number | null, screenId: number | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: ["jobs", jobId],
    queryFn: async () => {
      const job = await getJob(jobId ?? 0);
      if (!ACTIVE.has(job.status)) {
        await queryClient.invalidateQueries({ queryKey: ["screen", screenId] });
      }
      return job;
    },
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data && !ACTIVE.has(query.state.data.status) ? false : 500),
  });
}

/** The latest result, read once the screen has a finished run (before, the server answers 404). */
export function useScreenResult(screenId: number | null, hasRun: boolean) {
  return useQuery({
    queryKey: ["screen", screenId, "result"],
    queryFn: () => getScreenResult(screenId ?? 0),
    enabled: screenId !== null && hasRun,
  });
}

export function useScreenRuns(screenId: number | null) {
  return useQuery({ queryKey: ["screen", screenId, "runs"], queryFn: () => listRuns(screenId ?? 0), enabled: screenId !== null });
}

export function useSemanticModel() {
  return useQuery({ queryKey: ["semantic"], queryFn: getSemanticModel, staleTime: Infinity });
}
