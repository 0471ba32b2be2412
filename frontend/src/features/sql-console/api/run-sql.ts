import { apiClient, type Schemas } from "@/lib/api-client";

export type TableResult = Schemas["TableResult"];

export function runSql(sql: string): Promise<TableResult> {
  return apiClient.post<TableResult>("/api/sql/", { sql });
}
