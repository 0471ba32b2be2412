import type { components } from "@/lib/api-types";

// The pipeline's events as the job stream sends them. Their types are generated from the OpenAPI
// schema, which derives them from the pipeline's own event classes: they cannot drift from the server.
// `type` tells them apart; an event of a type this client does not know yet is kept and shown by name.
type Schemas = components["schemas"];

export type StepName = Schemas["StepEnum"];
export type RunStarted = Schemas["RunStartedEvent"];
export type StepStarted = Schemas["StepStartedEvent"];
export type StepFinished = Schemas["StepFinishedEvent"];
export type ProbeFinding = Schemas["ProbeFindingEvent"];
export type CheckVerdict = Schemas["CheckVerdictEvent"];
export type CorrectionRound = Schemas["CorrectionRoundEvent"];
export type ParadigmEvent = Schemas["ParadigmEvent"];
export type RunFinished = Schemas["RunFinishedEvent"];
/** The job's own last event: the job ended (its result is stored). */
export type JobFinished = Schemas["JobFinishedEvent"];
export type PipelineEvent = Schemas["JobEvent"];

/** Any other event the server adds (a future step): shown by name. */
export interface OtherEvent {
  seq: number;
  at_ms: number;
  type: string;
  [field: string]: unknown;
}

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
