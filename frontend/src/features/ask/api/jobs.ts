import { apiClient, type Schemas } from "@/lib/api-client";

export type Job = Schemas["Job"];
export type JobResult = Schemas["JobResult"];
export type SemanticModel = Schemas["SemanticModel"];

/** Rows fetched with a result: the table sorts and pages them in the browser; the CSV has them all. */
export const RESULT_ROWS = 1000;

export function askJob(question: string): Promise<Job> {
  return apiClient.post<Job>("/api/jobs/", { question });
}

export function getJob(id: number): Promise<Job> {
  return apiClient.get<Job>(`/api/jobs/${id}/`);
}

export function getJobResult(id: number): Promise<JobResult> {
  return apiClient.get<JobResult>(`/api/jobs/${id}/result/?page_size=${RESULT_ROWS}`);
}

export const jobCsvUrl = (id: number) => `/api/jobs/${id}/result/csv/`;

export function cancelJob(id: number): Promise<Job> {
  return apiClient.post<Job>(`/api/jobs/${id}/cancel/`, {});
}

export function getSemanticModel(): Promise<SemanticModel> {
  return apiClient.get<SemanticModel>("/api/semantic/");
}

export function saveScreen(screen: { name: string; question: string }): Promise<Schemas["Screen"]> {
  return apiClient.post<Schemas["Screen"]>("/api/screens/", screen);
}
