import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import {
  deleteParadigm,
  editSql,
  getLibraryStats,
  getParadigm,
  listParadigms,
  type ParadigmDetail,
  pinParadigm,
} from "@/features/paradigms/api/paradigms";

export function useParadigms(search: string, page: number) {
  return useQuery({
    queryKey: ["paradigms", "list", search, page],
    queryFn: () => listParadigms(search, page),
    placeholderData: keepPreviousData,
  });
}

export function useParadigm(id: number | null) {
  return useQuery({ queryKey: ["paradigms", "detail", id], queryFn: () => getParadigm(id ?? 0), enabled: id !== null });
}

export function useLibraryStats() {
  return useQuery({ queryKey: ["paradigms", "stats"], queryFn: getLibraryStats });
}

function useChange<Args>(change: (args: Args) => Promise<ParadigmDetail | undefined>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["paradigms"] }),
  });
}

export const usePin = () => useChange(({ id, pinned }: { id: number; pinned: boolean }) => pinParadigm(id, pinned));
export const useEditSql = () => useChange(({ id, sql }: { id: number; sql: string }) => editSql(id, sql));
export const useDeleteParadigm = () => useChange((id: number) => deleteParadigm(id));
