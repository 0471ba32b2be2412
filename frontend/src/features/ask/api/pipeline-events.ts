// The pipeline's events as the job stream sends them (backend/domain/pipeline/trace.py). The OpenAPI
// schema types a trace as a list of free JSON objects, so the event vocabulary is spelled out here;
// `type` tells them apart and an unknown type is kept (shown by its name) rather than dropped.

export type StepName = "probe" | "generate" | "execute" | "checklist" | "reverse_checks" | "correct" | "paradigm";

interface Numbered {
  seq: number;
  at_ms: number;
}

export interface RunStarted extends Numbered {
  type: "run_started";
  question: string;
  lang: string;
  engine: string;
  candidate_sql: string | null;
  max_rounds: number;
}

export interface StepStarted extends Numbered {
  type: "step_started";
  step: StepName;
  round: number;
}

export interface StepFinished extends Numbered {
  type: "step_finished";
  step: StepName;
  round: number;
  outcome: "ok" | "failed" | "skipped";
  ms: number;
  summary: string;
  sql: string | null;
}

export interface ProbeFinding extends Numbered {
  type: "probe_finding";
  probe_round: number;
  mention: string;
  kind: string;
  value: string;
  sql: string;
  ms: number;
}

export interface CheckVerdict extends Numbered {
  type: "check_verdict";
  round: number;
  check_id: string;
  stage: "checklist" | "reverse";
  kind: string;
  text: string;
  sql: string | null;
  criterion: string;
  verdict: "pass" | "fail" | "undecidable";
  attribution: string | null;
  reason: string;
  ms: number;
}

export interface CorrectionRound extends Numbered {
  type: "correction_round";
  round: number;
  guidance: string;
  failed_checks: string[];
  sql: string | null;
}

export interface ParadigmEvent extends Numbered {
  type: "paradigm";
  outcome: "hit" | "adapted" | "miss" | "learned";
  paradigm_id: string | null;
  distance: number | null;
  detail: string;
}

export interface RunFinished extends Numbered {
  type: "run_finished";
  status: string;
  round: number | null;
  warnings: string[];
  ms: number;
}

/** The job's own last event: the job ended (its result is stored). */
export interface JobFinished extends Numbered {
  type: "job_finished";
  job_status: "done" | "failed" | "cancelled";
  answer_status: string;
  error_code: string;
  message: string;
  row_count: number;
}

/** Any other event the server adds (the job's own `job_finished`, a future step): shown by name. */
export interface OtherEvent extends Numbered {
  type: string;
  [field: string]: unknown;
}

export type PipelineEvent =
  | RunStarted
  | StepStarted
  | StepFinished
  | ProbeFinding
  | CheckVerdict
  | CorrectionRound
  | ParadigmEvent
  | RunFinished
  | JobFinished;

export type StreamEvent = PipelineEvent | OtherEvent;

const KNOWN = new Set([
  "run_started",
  "step_started",
  "step_finished",
  "probe_finding",
  "check_verdict",
  "correction_round",
  "paradigm",
  "run_finished",
  "job_finished",
]);

export function isPipelineEvent(event: StreamEvent): event is PipelineEvent {
  return KNOWN.has(event.type);
}

/** Events in `seq` order, each once: a reconnect may deliver some again. */
export function mergeEvents(known: readonly StreamEvent[], incoming: readonly StreamEvent[]): StreamEvent[] {
  const bySeq = new Map<number, StreamEvent>();
  for (const event of [...known, ...incoming]) bySeq.set(event.seq, event);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
