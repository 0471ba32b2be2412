import { type FormEvent, useCallback, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";

import { DataTable } from "@/components/data-table";
import { ErrorNotice } from "@/components/error-notice";
import { ResultChart } from "@/components/result-chart";
import { SqlBlock } from "@/components/sql-block";
import { SqlDiff } from "@/components/sql-diff";
import { StatusBadge } from "@/components/status-badge";
import { jobCsvUrl, type JobResult, type SemanticModel } from "@/features/ask/api/jobs";
import { useSaveScreen } from "@/features/ask/hooks/use-jobs";
import { unitForColumn } from "@/lib/units";

function SaveScreen({ question }: { question: string }) {
  const { t } = useTranslation();
  const [name, setName] = useState("");
  const save = useSaveScreen();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) save.mutate({ name: name.trim(), question });
  };
  if (save.data) {
    return (
      <p className="muted small" data-testid="screen-saved">
        {t("ask.saved", { name: save.data.name })}
      </p>
    );
  }
  return (
    <form className="row" onSubmit={onSubmit}>
      <input
        aria-label={t("ask.screenName")}
        placeholder={t("ask.screenName")}
        value={name}
        maxLength={200}
        onChange={(event) => setName(event.target.value)}
      />
      <button type="submit" disabled={save.isPending || !name.trim()}>
        {t("ask.saveScreen")}
      </button>
      {save.error && <ErrorNotice error={save.error} />}
    </form>
  );
}

interface AnswerViewProps {
  result: JobResult;
  model: SemanticModel | undefined;
}

/** A finished job's answer: its verdict, the SQL (and how it was corrected), rows and a chart. */
export function AnswerView({ result, model }: AnswerViewProps) {
  const { t } = useTranslation();
  const { job } = result;
  const unitOf = useCallback(
    (column: string) =>
      model ? unitForColumn(column, model.metrics) : undefined,
    [model],
  );
  const chartInput = useMemo(
    () => ({ columns: result.columns, columnTypes: result.column_types, rows: result.rows, sql: job.sql || null }),
    [result, job.sql],
  );
  const corrected = Boolean(result.initial_sql && job.sql && result.initial_sql !== job.sql);
  const answered = ["verified", "corrected", "unverified"].includes(job.answer_status);
  return (
    <div className="stack answer" data-testid="answer" data-status={job.answer_status}>
      <StatusBadge
        status={job.answer_status || job.status}
        message={job.message}
        warnings={result.warnings}
        correctionRound={result.correction_round}
      />
      {answered && (
        <div className="stack">
          <div>
            <h3>{t("ask.result")}</h3>
            <DataTable
              label="answer-result"
              columns={result.columns}
              rows={result.rows}
              unitOf={unitOf}
              csvHref={jobCsvUrl(job.id)}
            />
            {result.row_count > result.rows.length && (
              <p className="muted small">{t("ask.firstRows", { shown: result.rows.length, total: result.row_count })}</p>
            )}
          </div>
          <ResultChart result={chartInput} unitOf={unitOf} />
        </div>
      )}
      {job.sql && (
        <div className="answer-sql">
          <h3>{t("ask.sql")}</h3>
          <SqlBlock sql={job.sql} label="answer-sql" copyable />
          {corrected && result.initial_sql && (
            <details className="diff" open>
              <summary>{t("ask.diff")}</summary>
              <SqlDiff before={result.initial_sql} after={job.sql} label="sql-diff" />
            </details>
          )}
        </div>
      )}
      {answered && <SaveScreen question={job.question} />}
    </div>
  );
}
