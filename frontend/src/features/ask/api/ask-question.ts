import type { Row } from "@/components/data-table";
import { apiClient } from "@/lib/api-client";

export type AskStatus =
  | "ok"
  | "not_understood"
  | "error"
  | "query_rejected"
  | "query_failed"
  | "query_timeout"
  | "result_too_large"
  | "memory_limit_exceeded"
  | "store_unavailable";

export interface LlmCall {
  role: string;
  model: string;
  latency_ms: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  attempt: number;
  error: string | null;
}

export interface AskAnswer {
  question: string;
  status: AskStatus;
  message: string;
  sql: string | null;
  qst: unknown;
  columns: string[];
  column_types: string[];
  rows: Row[];
  row_count: number;
  warnings: string[];
  timings_ms: Record<string, number>;
  llm_calls: LlmCall[];
  engine: string;
}

/** Translating, checking and running a question can take a while with an LLM engine. */
const ASK_TIMEOUT_MS = 180_000;

export function askQuestion(question: string): Promise<AskAnswer> {
  return apiClient.post<AskAnswer>("/api/ask/", { question }, { timeoutMs: ASK_TIMEOUT_MS });
}
