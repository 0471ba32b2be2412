import { type FormEvent, type KeyboardEvent, useState } from "react";
import { useTranslation } from "react-i18next";

import { DataTable } from "@/components/data-table";
import { ErrorNotice } from "@/components/error-notice";
import { useRunSql } from "@/features/sql-console/hooks/use-run-sql";

export const DEFAULT_SQL = `SELECT d.ts_code, b.name, b.industry, d.close, d.pct_chg
FROM market.daily AS d
INNER JOIN market.stock_basic AS b ON b.ts_code = d.ts_code
WHERE d.trade_date = (SELECT max(trade_date) FROM market.daily)
ORDER BY d.pct_chg DESC
LIMIT 20`;

export function SqlConsole() {
  const { t } = useTranslation();
  const [sql, setSql] = useState(DEFAULT_SQL);
  const run = useRunSql();

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (sql.trim()) run.mutate(sql);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit();
  };

  return (
    <section className="panel" aria-labelledby="console-title">
      <h2 id="console-title">{t("console.title")}</h2>
      <p className="muted small">{t("console.help")}</p>
      <form onSubmit={submit} className="stack">
        <textarea
          className="sql-input"
          aria-label={t("console.title")}
          value={sql}
          spellCheck={false}
          rows={8}
          onChange={(event) => setSql(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="row">
          <button type="submit" className="primary" disabled={run.isPending || !sql.trim()}>
            {run.isPending ? t("console.running") : t("console.run")}
          </button>
          <span className="muted small">{t("console.hint")}</span>
          {run.data && (
            <span className="muted small" data-testid="console-summary">
              {t("common.rows", { count: run.data.row_count })} · {t("common.elapsedMs", { ms: run.data.elapsed_ms.toFixed(1) })}
            </span>
          )}
        </div>
      </form>
      {run.error && <ErrorNotice error={run.error} />}
      {run.data && !run.error && <DataTable label="sql-result" columns={run.data.columns} rows={run.data.rows} />}
    </section>
  );
}
