import { apiClient, type Schemas } from "@/lib/api-client";

export type ParadigmSummary = Schemas["ParadigmSummary"];
export type ParadigmDetail = Schemas["ParadigmDetail"];
export type LibraryStats = Schemas["LibraryStats"];

export const PAGE_SIZE = 20;

export function listParadigms(search: string, page: number): Promise<Schemas["ParadigmPage"]> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(page * PAGE_SIZE) });
  if (search) query.set("search", search);
  return apiClient.get<Schemas["ParadigmPage"]>(`/api/paradigms/?${query}`);
}

export function getParadigm(id: number): Promise<ParadigmDetail> {
  return apiClient.get<ParadigmDetail>(`/api/paradigms/${id}/`);
}

export function editSql(id: number, sql: string): Promise<ParadigmDetail> {
  return apiClient.patch<ParadigmDetail>(`/api/paradigms/${id}/`, { sql } satisfies Schemas["PatchedSqlEdit"]);
}

export function pinParadigm(id: number, pinned: boolean): Promise<ParadigmDetail> {
  return apiClient.post<ParadigmDetail>(`/api/paradigms/${id}/pin/`, { pinned } satisfies Schemas["Pin"]);
}

export function deleteParadigm(id: number): Promise<undefined> {
  return apiClient.delete(`/api/paradigms/${id}/`);
}

export function getLibraryStats(): Promise<LibraryStats> {
  return apiClient.get<LibraryStats>("/api/paradigms/stats/");
}
