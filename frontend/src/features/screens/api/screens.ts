import { apiClient, type Schemas } from "@/lib/api-client";

export type Screen = Schemas["Screen"];
export type Job = Schemas["Job"];
export type JobResult = Schemas["JobResult"];
export type SemanticModel = Schemas["SemanticModel"];

const RESULT_ROWS = 1000;

export function listScreens(search: string): Promise<Schemas["PaginatedScreenList"]> {
  const query = search ? `?search=${encodeURIComponent(search)}` : "";
  return apiClient.get<Schemas["PaginatedScreenList"]>(`/api/screens/${query}`);
}

export function deleteScreen(id: number): Promise<undefined> {
  return apiClient.delete(`/api/screens/${id}/`);
}

export function runScreen(id: number): Promise<Job> {
  return apiClient.post<Job>(`/api/screens/${id}/runs/`, {});
}

export function listRuns(id: number): Promise<Schemas["PaginatedJobList"]> {
  return apiClient.get<Schemas["PaginatedJobList"]>(`/api/screens/${id}/runs/`);
}

export function getJob(id: number): Promise<Job> {
  return apiClient.get<Job>(`/api/jobs/${id}/`);
}

export function getScreenResult(id: number): Promise<JobResult> {
  return apiClient.get<JobResult>(`/api/screens/${id}/result/?page_size=${RESULT_ROWS}`);
}

export const screenCsvUrl = (id: number) => `/api/screens/${id}/result/csv/`;

export function getSemanticModel(): Promise<SemanticModel> {
  return apiClient.get<SemanticModel>("/api/semantic/");
}
