import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { ErrorNotice } from "@/components/error-notice";
import { statusTone } from "@/components/status-badge";
import { useHistory } from "@/features/history/hooks/use-history";

export function HistoryPage() {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const history = useHistory(page);
  const jobs = history.data?.results ?? [];
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">{t("history.title")}</h2>
      {history.error && <ErrorNotice error={history.error} />}
      {history.data && jobs.length === 0 && <p className="muted">{t("history.empty")}</p>}
      {jobs.length > 0 && (
        <div className="table-wrap">
          <table className="data-table" aria-label={t("history.title")}>
            <thead>
              <tr>
                <th>{t("history.when")}</th>
                <th>{t("history.question")}</th>
                <th>{t("history.status")}</th>
                <th className="num">{t("history.rows")}</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => {
                const status = job.answer_status || job.status;
                return (
                  <tr key={job.id}>
                    <td className="mono">{job.created_at.replace("T", " ").slice(0, 19)}</td>
                    <td className="wrap">
                      <Link to={`/?job=${job.id}`}>{job.question}</Link>
                    </td>
                    <td>
                      <span className={`badge badge-${statusTone(status)}`}>{t(`status.${status}`, { defaultValue: status })}</span>
                    </td>
                    <td className="num">{job.row_count}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="row pager">
        <button type="button" disabled={!history.data?.previous} onClick={() => setPage(page - 1)}>
          {t("table.previous")}
        </button>
        <span className="small">{t("history.page", { page, count: history.data?.count ?? 0 })}</span>
        <button type="button" disabled={!history.data?.next} onClick={() => setPage(page + 1)}>
          {t("table.next")}
        </button>
      </div>
    </section>
  );
}
