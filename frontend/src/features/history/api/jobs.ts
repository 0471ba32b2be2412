import { apiClient, type Schemas } from "@/lib/api-client";

export type JobPage = Schemas["PaginatedJobList"];

export function listJobs(page: number): Promise<JobPage> {
  return apiClient.get<JobPage>(`/api/jobs/?page=${page}`);
}
