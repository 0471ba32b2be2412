import { useTranslation } from "react-i18next";

import { DataTable } from "@/components/data-table";
import { SqlBlock } from "@/components/sql-block";
import type { AskAnswer as Answer, AskStatus } from "@/features/ask/api/ask-question";

const TONE: Record<AskStatus, "ok" | "warn" | "error"> = {
  ok: "ok",
  not_understood: "warn",
  error: "error",
  query_rejected: "error",
  query_failed: "error",
  query_timeout: "error",
  result_too_large: "error",
  memory_limit_exceeded: "error",
  store_unavailable: "error",
};

export function statusTone(status: string): "ok" | "warn" | "error" {
  return TONE[status as AskStatus] ?? "error";
}

function Timings({ timings }: { timings: Record<string, number> }) {
  const entries = Object.entries(timings);
  if (entries.length === 0) return null;
  return (
    <span className="mono small" data-testid="ask-timings">
      {entries.map(([step, ms]) => `${step} ${ms.toFixed(1)} ms`).join(" · ")}
    </span>
  );
}

export function AskAnswer({ answer }: { answer: Answer }) {
  const { t } = useTranslation();
  const tone = statusTone(answer.status);
  const statusLabel = t(`ask.statuses.${answer.status}`, { defaultValue: answer.status });
  return (
    <div className="stack answer" data-testid="ask-answer" data-status={answer.status}>
      <div className="row meta">
        <span className={`badge badge-${tone}`} data-testid="ask-status">
          {statusLabel}
        </span>
        <span className="muted small">
          {t("ask.engine")}: <span className="mono">{answer.engine}</span> ·{" "}
          {t("ask.llmCalls", { count: answer.llm_calls.length })}
        </span>
        <Timings timings={answer.timings_ms} />
      </div>
      {answer.message && (
        <div className={`notice notice-${tone === "ok" ? "info" : tone}`} role={tone === "ok" ? undefined : "alert"}>
          {answer.status !== "ok" && <strong>{statusLabel}</strong>}
          <p data-testid="ask-message">{answer.message}</p>
        </div>
      )}
      {answer.warnings.length > 0 && (
        <div className="notice notice-warn">
          <strong>{t("ask.warnings")}</strong>
          <ul>
            {answer.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}
      {answer.qst != null && (
        <details className="qst">
          <summary>{t("ask.qst")}</summary>
          <pre className="sql-block" aria-label="ask-qst">
            <code>{JSON.stringify(answer.qst, null, 2)}</code>
          </pre>
        </details>
      )}
      <div className="answer-grid">
        {answer.sql && (
          <div>
            <h3>{t("ask.sql")}</h3>
            <SqlBlock sql={answer.sql} label="ask-sql" />
          </div>
        )}
        {answer.status === "ok" && (
          <div>
            <h3>
              {t("ask.result")} <span className="muted small">{t("common.rows", { count: answer.row_count })}</span>
            </h3>
            <DataTable label="ask-result" columns={answer.columns} rows={answer.rows} />
          </div>
        )}
      </div>
    </div>
  );
}
