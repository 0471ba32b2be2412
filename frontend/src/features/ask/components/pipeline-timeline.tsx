import { useTranslation } from "react-i18next";

import {
  type CheckVerdict,
  type CorrectionRound,
  type JobFinished,
  isPipelineEvent,
  type ParadigmEvent,
  type ProbeFinding,
  type RunFinished,
  type RunStarted,
  type StepName,
  type StreamEvent,
} from "@/features/ask/api/pipeline-events";

export interface StepView {
  key: string;
  step: StepName;
  round: number;
  outcome: "running" | "ok" | "failed" | "skipped";
  ms: number | null;
  summary: string;
  findings: ProbeFinding[];
  checks: CheckVerdict[];
}

export type TimelineItem =
  | { kind: "started"; seq: number; event: RunStarted }
  | { kind: "step"; seq: number; view: StepView }
  | { kind: "correction"; seq: number; event: CorrectionRound }
  | { kind: "paradigm"; seq: number; event: ParadigmEvent }
  | { kind: "finished"; seq: number; event: RunFinished }
  | { kind: "job"; seq: number; event: JobFinished }
  | { kind: "round"; seq: number; round: number }
  | { kind: "other"; seq: number; type: string };

const STAGE_STEP: Record<CheckVerdict["stage"], StepName> = { checklist: "checklist", reverse: "reverse_checks" };

/** The events folded into what the timeline shows: one row per step (its findings and verdicts
 * inside), correction rounds, paradigm outcomes and the final status, in the order they happened. */
export function buildTimeline(events: readonly StreamEvent[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  const steps = new Map<string, StepView>();
  let lastRound = -1;
  const openStep = (step: StepName, round: number, seq: number): StepView => {
    const key = `${step}:${round}`;
    let view = steps.get(key);
    if (!view) {
      view = { key, step, round, outcome: "running", ms: null, summary: "", findings: [], checks: [] };
      steps.set(key, view);
      if (round !== lastRound) items.push({ kind: "round", seq, round });
      lastRound = round;
      items.push({ kind: "step", seq, view });
    }
    return view;
  };
  let current: StepView | undefined;
  for (const event of events) {
    if (!isPipelineEvent(event)) {
      items.push({ kind: "other", seq: event.seq, type: event.type });
      continue;
    }
    switch (event.type) {
      case "run_started":
        items.push({ kind: "started", seq: event.seq, event });
        break;
      case "step_started":
        current = openStep(event.step, event.round, event.seq);
        break;
      case "step_finished": {
        const view = openStep(event.step, event.round, event.seq);
        view.outcome = event.outcome;
        view.ms = event.ms;
        view.summary = event.summary;
        break;
      }
      case "probe_finding":
        (current ?? openStep("probe", 0, event.seq)).findings.push(event);
        break;
      case "check_verdict":
        openStep(STAGE_STEP[event.stage], event.round, event.seq).checks.push(event);
        break;
      case "correction_round":
        items.push({ kind: "correction", seq: event.seq, event });
        break;
      case "paradigm":
        items.push({ kind: "paradigm", seq: event.seq, event });
        break;
      case "run_finished":
        items.push({ kind: "finished", seq: event.seq, event });
        break;
      case "job_finished":
        items.push({ kind: "job", seq: event.seq, event });
        break;
    }
  }
  return items;
}

const MARK: Record<StepView["outcome"] | CheckVerdict["verdict"], string> = {
  running: "…",
  ok: "✓",
  pass: "✓",
  failed: "✗",
  fail: "✗",
  skipped: "–",
  undecidable: "?",
};

function Check({ check }: { check: CheckVerdict }) {
  const { t } = useTranslation();
  return (
    <li className={`check check-${check.verdict}`} data-testid="timeline-check" data-verdict={check.verdict}>
      <span className="mark" aria-hidden>
        {MARK[check.verdict]}
      </span>
      <div className="check-body">
        <span className="check-text">{check.text}</span>{" "}
        <span className={`badge badge-${check.verdict === "pass" ? "ok" : check.verdict === "fail" ? "error" : "warn"}`}>
          {t(`timeline.verdict.${check.verdict}`)}
        </span>
        {check.attribution && (
          <span className="attribution" data-testid="timeline-attribution">
            {t("timeline.attribution")}: <strong>{t(`timeline.attributions.${check.attribution}`, { defaultValue: check.attribution })}</strong>
          </span>
        )}
        <div className="muted small">{check.reason}</div>
        {check.sql && (
          <details>
            <summary className="small">{t("timeline.reverseSql")}</summary>
            <pre className="sql-block small-sql">
              <code>{check.sql}</code>
            </pre>
          </details>
        )}
      </div>
    </li>
  );
}

function Step({ view }: { view: StepView }) {
  const { t } = useTranslation();
  return (
    <li className={`timeline-step step-${view.outcome}`} data-testid="timeline-step" data-step={view.step} data-outcome={view.outcome}>
      <div className="step-head">
        <span className="mark" aria-hidden>
          {MARK[view.outcome]}
        </span>
        <strong>{t(`timeline.steps.${view.step}`, { defaultValue: view.step })}</strong>
        {view.summary && <span className="muted small">{view.summary}</span>}
        {view.ms !== null && <span className="muted small mono">{view.ms.toFixed(0)} ms</span>}
      </div>
      {view.findings.length > 0 && (
        <ul className="findings small">
          {view.findings.map((finding) => (
            <li key={finding.seq}>
              <span className="mono">{finding.mention}</span> → {finding.value}
            </li>
          ))}
        </ul>
      )}
      {view.checks.length > 0 && (
        <ul className="checks">
          {view.checks.map((check) => (
            <Check key={check.seq} check={check} />
          ))}
        </ul>
      )}
    </li>
  );
}

function Item({ item }: { item: TimelineItem }) {
  const { t } = useTranslation();
  switch (item.kind) {
    case "started":
      return (
        <li className="timeline-note">
          {t("timeline.started", { engine: item.event.engine, rounds: item.event.max_rounds })}
        </li>
      );
    case "step":
      return <Step view={item.view} />;
    case "correction":
      return (
        <li className="timeline-correction" data-testid="timeline-correction">
          <strong>{t("timeline.correction", { round: item.event.round })}</strong>
          <pre className="guidance small">{item.event.guidance}</pre>
        </li>
      );
    case "paradigm":
      return (
        <li className="timeline-note" data-testid="timeline-paradigm">
          {t(`timeline.paradigm.${item.event.outcome}`, { id: item.event.paradigm_id ?? "", distance: item.event.distance ?? "" })}
          {item.event.query !== "question" && <span className="muted small"> · {item.event.query}</span>}
          {item.event.detail && <span className="muted small"> — {item.event.detail}</span>}
        </li>
      );
    case "finished":
      return (
        <li className="timeline-note" data-testid="timeline-finished">
          {t("timeline.finished", { status: t(`status.${item.event.status}`, { defaultValue: item.event.status }), ms: item.event.ms.toFixed(0) })}
        </li>
      );
    case "job":
      return item.event.job_status === "done" ? null : (
        <li className="timeline-note" data-testid="timeline-job">
          {t(`jobStatus.${item.event.job_status}`)} {item.event.message}
        </li>
      );
    case "round":
      return (
        <li className="timeline-round">
          {item.round === 0 ? t("timeline.firstCandidate") : t("timeline.round", { round: item.round })}
        </li>
      );
    case "other":
      return <li className="timeline-note muted small">{item.type}</li>;
  }
}

export function PipelineTimeline({ events, live }: { events: readonly StreamEvent[]; live: boolean }) {
  const { t } = useTranslation();
  const items = buildTimeline(events);
  return (
    <section className="timeline" aria-label={t("timeline.title")} aria-live="polite" aria-busy={live}>
      <h3>
        {t("timeline.title")} {live && <span className="live-dot">{t("timeline.live")}</span>}
      </h3>
      <ol className="timeline-list" data-testid="timeline">
        {items.map((item) => (
          <Item key={`${item.kind}-${item.seq}`} item={item} />
        ))}
      </ol>
    </section>
  );
}
