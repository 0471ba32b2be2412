import type { Row } from "@/components/data-table";
import { apiClient } from "@/lib/api-client";

export interface TableResult {
  columns: string[];
  column_types: string[];
  rows: Row[];
  row_count: number;
  elapsed_ms: number;
}

export function runSql(sql: string): Promise<TableResult> {
  return apiClient.post<TableResult>("/api/sql/", { sql });
}
