import { useState } from "react";
import { useTranslation } from "react-i18next";

import { EChart } from "@/components/echart";
import { ErrorNotice } from "@/components/error-notice";
import { SqlBlock } from "@/components/sql-block";
import { type LibraryStats, PAGE_SIZE, type ParadigmDetail } from "@/features/paradigms/api/paradigms";
import { QstTree } from "@/features/paradigms/components/qst-tree";
import {
  useDeleteParadigm,
  useEditSql,
  useLibraryStats,
  useParadigm,
  useParadigms,
  usePin,
} from "@/features/paradigms/hooks/use-paradigms";

const percent = (value: number | null) => (value === null ? "—" : `${(value * 100).toFixed(1)}%`);

function Stats({ stats }: { stats: LibraryStats }) {
  const { t } = useTranslation();
  const figures: [string, string | number][] = [
    [t("paradigms.size"), `${stats.size} / ${stats.capacity}`],
    [t("paradigms.pinnedCount"), stats.pinned],
    ["τ", stats.tau],
    [t("paradigms.hits"), stats.hits],
    [t("paradigms.misses"), stats.misses],
    [t("paradigms.hitRate"), percent(stats.hit_rate)],
    [t("paradigms.insertions"), stats.insertions],
    [t("paradigms.evictions"), stats.evictions],
  ];
  const option = {
    tooltip: { trigger: "axis" },
    legend: { top: 0 },
    grid: { left: 48, right: 48, top: 32, bottom: 32, containLabel: true },
    xAxis: { type: "category", data: stats.history.map((day) => day.day) },
    yAxis: [
      { type: "value", name: t("paradigms.questions"), minInterval: 1 },
      { type: "value", name: t("paradigms.hitRate"), min: 0, max: 100, axisLabel: { formatter: "{value}%" } },
    ],
    series: [
      { name: t("paradigms.hits"), type: "bar", stack: "asked", data: stats.history.map((day) => day.hits) },
      { name: t("paradigms.misses"), type: "bar", stack: "asked", data: stats.history.map((day) => day.misses) },
      {
        name: t("paradigms.hitRate"),
        type: "line",
        yAxisIndex: 1,
        data: stats.history.map((day) => (day.hit_rate === null ? null : Number((day.hit_rate * 100).toFixed(1)))),
      },
    ],
  };
  return (
    <div className="stack" data-testid="paradigm-stats">
      <dl className="figures">
        {figures.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {stats.history.length > 0 && (
        <figure className="chart" data-testid="hit-rate-chart">
          <figcaption className="small">{t("paradigms.hitRateChart")}</figcaption>
          <EChart option={option} height={240} />
        </figure>
      )}
    </div>
  );
}

function SqlEditor({ paradigm }: { paradigm: ParadigmDetail }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<string | null>(null);
  const edit = useEditSql();
  if (draft === null) {
    return (
      <div className="stack">
        <SqlBlock sql={paradigm.sql_template} label="paradigm-sql" copyable />
        <div className="row">
          <button type="button" onClick={() => setDraft(paradigm.sql_template)}>
            {t("paradigms.edit")}
          </button>
          {edit.isSuccess && <span className="muted small">{t("paradigms.saved")}</span>}
        </div>
      </div>
    );
  }
  return (
    <form
      className="stack"
      onSubmit={(event) => {
        event.preventDefault();
        edit.mutate({ id: paradigm.id, sql: draft }, { onSuccess: () => setDraft(null) });
      }}
    >
      <textarea
        className="sql-input"
        aria-label={t("paradigms.template")}
        rows={12}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
      />
      <p className="muted small">{t("paradigms.editHelp")}</p>
      <div className="row">
        <button type="submit" className="primary" disabled={edit.isPending || !draft.trim()}>
          {edit.isPending ? t("paradigms.checking") : t("paradigms.save")}
        </button>
        <button type="button" onClick={() => setDraft(null)}>
          {t("paradigms.cancel")}
        </button>
      </div>
      {edit.error && <ErrorNotice error={edit.error} />}
    </form>
  );
}

function Detail({ id, onDeleted }: { id: number; onDeleted: () => void }) {
  const { t } = useTranslation();
  const paradigm = useParadigm(id);
  const pin = usePin();
  const remove = useDeleteParadigm();
  if (paradigm.error) return <ErrorNotice error={paradigm.error} />;
  if (!paradigm.data) return <p className="muted">{t("common.loading")}</p>;
  const data = paradigm.data;
  return (
    <div className="stack paradigm-detail" data-testid="paradigm-detail">
      <h3>
        #{data.id} {data.question}
      </h3>
      <div className="row small">
        <span className="badge badge-info">{t(`paradigms.origins.${data.origin}`)}</span>
        <span className="badge">{t(`paradigms.validation.${data.validation_status}`)}</span>
        {data.pinned && <span className="badge badge-ok">{t("paradigms.pinned")}</span>}
        <span className="muted">{t("paradigms.usage", { hits: data.hits, uses: data.uses_30d, last: data.last_used ?? "—" })}</span>
      </div>
      <div className="row">
        <button
          type="button"
          className="primary"
          disabled={pin.isPending}
          onClick={() => pin.mutate({ id: data.id, pinned: !data.pinned })}
        >
          {data.pinned ? t("paradigms.unpin") : t("paradigms.pin")}
        </button>
        <button
          type="button"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(t("paradigms.confirmDelete", { id: data.id }))) remove.mutate(data.id, { onSuccess: onDeleted });
          }}
        >
          {t("paradigms.delete")}
        </button>
      </div>
      {pin.error && <ErrorNotice error={pin.error} />}
      {remove.error && <ErrorNotice error={remove.error} />}
      <div className="paradigm-grid">
        <div>
          <h3>{t("paradigms.qst")}</h3>
          <QstTree outline={data.qst_tree} label={t("paradigms.qst")} />
        </div>
        <div>
          <h3>{t("paradigms.template")}</h3>
          <SqlEditor key={data.sql_template} paradigm={data} />
        </div>
      </div>
    </div>
  );
}

export function ParadigmsPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(0);
  const [selected, setSelected] = useState<number | null>(null);
  const paradigms = useParadigms(search.trim(), page);
  const stats = useLibraryStats();
  const list = paradigms.data?.results ?? [];
  const pages = Math.max(1, Math.ceil((paradigms.data?.count ?? 0) / PAGE_SIZE));
  return (
    <section className="panel" aria-labelledby="paradigms-title">
      <h2 id="paradigms-title">{t("paradigms.title")}</h2>
      {stats.error && <ErrorNotice error={stats.error} />}
      {stats.data && <Stats stats={stats.data} />}
      <input
        type="search"
        aria-label={t("paradigms.search")}
        placeholder={t("paradigms.search")}
        value={search}
        onChange={(event) => {
          setSearch(event.target.value);
          setPage(0);
        }}
      />
      {paradigms.error && <ErrorNotice error={paradigms.error} />}
      {paradigms.data && list.length === 0 && <p className="muted">{t("paradigms.empty")}</p>}
      {list.length > 0 && (
        <div className="table-wrap">
          <table className="data-table" aria-label={t("paradigms.title")}>
            <thead>
              <tr>
                <th>#</th>
                <th>{t("paradigms.question")}</th>
                <th>{t("paradigms.origin")}</th>
                <th>{t("paradigms.status")}</th>
                <th className="num">{t("paradigms.hits")}</th>
                <th className="num">{t("paradigms.uses30d")}</th>
                <th>{t("paradigms.pinned")}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((paradigm) => (
                <tr key={paradigm.id} className={paradigm.id === selected ? "selected" : undefined}>
                  <td className="mono">{paradigm.id}</td>
                  <td className="wrap">
                    <button type="button" className="link" onClick={() => setSelected(paradigm.id)}>
                      {paradigm.question}
                    </button>
                  </td>
                  <td>{t(`paradigms.origins.${paradigm.origin}`)}</td>
                  <td>{t(`paradigms.validation.${paradigm.validation_status}`)}</td>
                  <td className="num">{paradigm.hits}</td>
                  <td className="num">{paradigm.uses_30d}</td>
                  <td>{paradigm.pinned ? "📌" : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="row pager">
        <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
          {t("table.previous")}
        </button>
        <span className="small">{t("table.page", { page: page + 1, pages })}</span>
        <button type="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
          {t("table.next")}
        </button>
      </div>
      {selected !== null && <Detail key={selected} id={selected} onDeleted={() => setSelected(null)} />}
    </section>
  );
}
