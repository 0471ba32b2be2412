import { useTranslation } from "react-i18next";

import { ErrorNotice } from "@/components/error-notice";
import type { DatasetInfo, MarketSync, TableStats } from "@/features/market/api/get-market-stats";
import { useMarketStats } from "@/features/market/hooks/use-market-stats";

const integer = new Intl.NumberFormat("en-US");

function TablesTable({ tables }: { tables: TableStats[] }) {
  const { t } = useTranslation();
  return (
    <table className="data-table" aria-label={t("market.title")}>
      <thead>
        <tr>
          <th>{t("market.table")}</th>
          <th className="num">{t("market.rows")}</th>
          <th className="num">{t("market.stocks")}</th>
          <th>{t("market.dateColumn")}</th>
          <th>{t("market.from")}</th>
          <th>{t("market.to")}</th>
        </tr>
      </thead>
      <tbody>
        {tables.map((table) => (
          <tr key={table.table} className={table.rows === 0 ? "empty-row" : undefined}>
            <td className="mono">{table.table}</td>
            <td className="num">{integer.format(table.rows)}</td>
            <td className="num">{table.stocks === null ? "—" : integer.format(table.stocks)}</td>
            <td className="mono">{table.date_column ?? "—"}</td>
            <td className="mono">{table.min_date ?? "—"}</td>
            <td className="mono">{table.max_date ?? "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DatasetsTable({ datasets }: { datasets: DatasetInfo[] }) {
  const { t } = useTranslation();
  return (
    <table className="data-table" aria-label={t("market.datasets")}>
      <thead>
        <tr>
          <th>{t("market.dataset")}</th>
          <th>{t("market.kind")}</th>
          <th>{t("market.description")}</th>
          <th>{t("market.licence")}</th>
          <th>{t("market.loadedAt")}</th>
        </tr>
      </thead>
      <tbody>
        {datasets.map((dataset) => (
          <tr key={dataset.dataset}>
            <td className="mono">{dataset.dataset}</td>
            <td>
              <span className={dataset.synthetic ? "badge badge-warn" : "badge badge-ok"}>
                {dataset.synthetic ? t("market.kindSynthetic") : t("market.kindReal")}
              </span>
            </td>
            <td className="wrap">{dataset.description}</td>
            <td className="wrap">{dataset.licence}</td>
            <td className="mono">{dataset.loaded_at}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LastSyncTable({ sync }: { sync: MarketSync }) {
  const { t } = useTranslation();
  return (
    <table className="data-table" aria-label={t("market.lastSync")}>
      <thead>
        <tr>
          <th>{t("market.syncSource")}</th>
          <th>{t("market.syncFinished")}</th>
          <th>{t("market.syncOutcome")}</th>
          <th className="num">{t("market.rowsAdded")}</th>
          <th className="num">{t("market.rowsWritten")}</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <td className="mono">{sync.source_name}</td>
          <td className="mono">{sync.finished_at}</td>
          <td className="wrap">
            <span className={sync.succeeded ? "badge badge-ok" : "badge badge-warn"}>
              {sync.succeeded ? t("market.syncOk") : t("market.syncFailed")}
            </span>{" "}
            {sync.error}
          </td>
          <td className="num">{integer.format(sync.rows_added)}</td>
          <td className="num">{integer.format(sync.rows_written)}</td>
        </tr>
      </tbody>
    </table>
  );
}

export function MarketStatus() {
  const { t } = useTranslation();
  const { data, error, isPending } = useMarketStats();
  if (isPending) return <p className="muted">{t("common.loading")}</p>;
  if (error) return <ErrorNotice error={error} />;
  const loaded = data.tables.some((table) => table.rows > 0);
  return (
    <section className="panel" aria-labelledby="market-title">
      <h2 id="market-title">
        {t("market.title")} <span className="mono muted">{data.database}</span>
      </h2>
      {!loaded && <div className="notice notice-warn">{t("market.empty")}</div>}
      <TablesTable tables={data.tables} />
      {data.datasets.length > 0 && (
        <>
          <h3>{t("market.datasets")}</h3>
          <DatasetsTable datasets={data.datasets} />
        </>
      )}
      {data.last_sync && (
        <>
          <h3>{t("market.lastSync")}</h3>
          <LastSyncTable sync={data.last_sync} />
        </>
      )}
    </section>
  );
}
