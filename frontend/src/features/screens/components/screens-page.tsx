import { useCallback, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";

import { DataTable } from "@/components/data-table";
import { ErrorNotice } from "@/components/error-notice";
import { ResultChart } from "@/components/result-chart";
import { StatusBadge, statusTone } from "@/components/status-badge";
import { type Screen, screenCsvUrl } from "@/features/screens/api/screens";
import {
  useDeleteScreen,
  useRun,
  useRunScreen,
  useScreenResult,
  useScreenRuns,
  useScreens,
  useSemanticModel,
} from "@/features/screens/hooks/use-screens";
import { unitForColumn } from "@/lib/units";

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 19) : "—");

function ScreenDetail({ screen }: { screen: Screen }) {
  const { t } = useTranslation();
  const [jobId, setJobId] = useState<number | null>(null);
  const start = useRunScreen();
  const run = useRun(jobId, screen.id);
  const runs = useScreenRuns(screen.id);
  const hasRun = (runs.data?.results ?? []).some((job) => job.status === "done");
  const result = useScreenResult(screen.id, hasRun);
  const model = useSemanticModel();
  const running = start.isPending || (run.data !== undefined && ["queued", "running"].includes(run.data.status));
  const unitOf = useCallback(
    (column: string) =>
      model.data ? unitForColumn(column, model.data.metrics) : undefined,
    [model.data],
  );
  const chartInput = useMemo(
    () =>
      result.data
        ? { columns: result.data.columns, columnTypes: result.data.column_types, rows: result.data.rows, sql: result.data.job.sql || null }
        : null,
    [result.data],
  );
  return (
    <div className="stack screen-detail" data-testid="screen-detail">
      <h3>{screen.name}</h3>
      <p>{screen.question}</p>
      <div className="row">
        <button
          type="button"
          className="primary"
          disabled={running}
          onClick={() => start.mutate(screen.id, { onSuccess: (job) => setJobId(job.id) })}
        >
          {running ? t("screens.running") : t("screens.run")}
        </button>
        {run.data && <StatusBadge status={run.data.answer_status || run.data.status} message={run.data.message} />}
      </div>
      {start.error && <ErrorNotice error={start.error} />}
      {result.data && chartInput && (
        <div className="stack">
          <p className="muted small" data-testid="screen-result-meta">
            {t("screens.latest", { id: result.data.job.id, at: when(result.data.job.finished_at) })}
          </p>
          <div className="stack">
            <DataTable
              label="screen-result"
              columns={result.data.columns}
              rows={result.data.rows}
              unitOf={unitOf}
              csvHref={screenCsvUrl(screen.id)}
            />
            <ResultChart result={chartInput} unitOf={unitOf} />
          </div>
        </div>
      )}
      <h3>{t("screens.history")}</h3>
      {runs.data && runs.data.results.length === 0 && <p className="muted">{t("screens.neverRun")}</p>}
      {runs.data && runs.data.results.length > 0 && (
        <table className="data-table" aria-label={t("screens.history")}>
          <thead>
            <tr>
              <th>#</th>
              <th>{t("history.when")}</th>
              <th>{t("history.status")}</th>
              <th className="num">{t("history.rows")}</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.results.map((job) => (
              <tr key={job.id}>
                <td className="mono">{job.id}</td>
                <td className="mono">{when(job.created_at)}</td>
                <td>
                  <span className={`badge badge-${statusTone(job.answer_status || job.status)}`}>{t(`status.${job.answer_status || job.status}`, { defaultValue: job.answer_status || job.status })}</span>
                </td>
                <td className="num">{job.row_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function ScreensPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const [selected, setSelected] = useState<number | null>(null);
  const screens = useScreens(search.trim());
  const remove = useDeleteScreen();
  const list = screens.data?.results ?? [];
  const current = list.find((screen) => screen.id === selected);
  return (
    <section className="panel" aria-labelledby="screens-title">
      <h2 id="screens-title">{t("screens.title")}</h2>
      <input
        type="search"
        aria-label={t("screens.search")}
        placeholder={t("screens.search")}
        value={search}
        onChange={(event) => setSearch(event.target.value)}
      />
      {screens.error && <ErrorNotice error={screens.error} />}
      {remove.error && <ErrorNotice error={remove.error} />}
      {screens.data && list.length === 0 && <p className="muted">{t("screens.empty")}</p>}
      {list.length > 0 && (
        <div className="table-wrap">
          <table className="data-table" aria-label={t("screens.title")}>
            <thead>
              <tr>
                <th>{t("screens.name")}</th>
                <th>{t("screens.question")}</th>
                <th>{t("screens.owner")}</th>
                <th>{t("screens.updated")}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((screen) => (
                <tr key={screen.id} className={screen.id === selected ? "selected" : undefined}>
                  <td>
                    <button type="button" className="link" onClick={() => setSelected(screen.id)}>
                      {screen.name}
                    </button>
                  </td>
                  <td className="wrap">{screen.question}</td>
                  <td>
                    {screen.owner} {screen.shared && <span className="badge badge-info">{t("screens.shared")}</span>}
                  </td>
                  <td className="mono">{when(screen.updated_at)}</td>
                  <td>
                    {screen.editable && (
                      <button
                        type="button"
                        onClick={() => {
                          if (window.confirm(t("screens.confirmDelete", { name: screen.name }))) remove.mutate(screen.id);
                        }}
                      >
                        {t("screens.delete")}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {current && <ScreenDetail key={current.id} screen={current} />}
    </section>
  );
}
