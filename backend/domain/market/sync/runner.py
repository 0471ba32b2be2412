"""Run a sync: plan each table from what the store holds, fetch, check, then replace slice by slice.

Idempotent by delete-insert: every fetched slice (a trade date, a report period, a calendar range of
one exchange, a date range of one index, the whole stock list) is checked to lie inside its own
bounds, its previous rows are deleted and the new rows inserted (the canonical tables are plain
MergeTree, whose key is not enforced, so re-running without the delete would duplicate rows).
Slices run in date order: if one fails, later ones are not written and the next run plans from the
last slice that was. A source that returns nothing for a slice (a day not yet published) leaves the
stored rows alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.compute as pc

from backend.domain.market.errors import ImportRejected
from backend.domain.market.importers.loading import build_table, ensure_schema, insert_table, row_counts
from backend.domain.market.importers.tushare import check_duplicate_keys, conform
from backend.domain.market.schema import TABLES_BY_NAME, Table, local_database_name
from backend.domain.market.stats import DATE_COLUMN
from backend.domain.market.store import MarketStore
from backend.domain.market.sync import plan
from backend.domain.market.sync.errors import SyncFailed
from backend.domain.market.sync.plan import SYNC_TABLES
from backend.domain.market.sync.progress import Progress

Row = dict[str, Any]
MARKET_TIMEZONE = ZoneInfo("Asia/Shanghai")
EXCHANGES = ("SSE", "SZSE")
INDEXES = ("000016.SH", "000300.SH", "399006.SZ")  # SSE 50, CSI 300, ChiNext
_CODE = re.compile(r"^[0-9A-Z]{1,12}\.[A-Z]{2,4}$")
_REPORT_TABLES = {"income", "fina_indicator"}


class Source(Protocol):
    name: str
    dataset: str
    licence: str

    def stock_basic(self) -> list[Row]: ...
    def prepare(self, table: str, days: Sequence[date]) -> None:
        """The trade dates `daily`/`daily_basic` will be asked for next (a source fetching per stock
        fetches that window once; one fetching per date has nothing to do)."""
        ...

    def trade_cal(self, exchange: str, start: date, end: date) -> list[Row]: ...
    def daily(self, day: date) -> list[Row]: ...
    def daily_basic(self, day: date) -> list[Row]: ...
    def income(self, period: date) -> list[Row]: ...
    def fina_indicator(self, period: date) -> list[Row]: ...
    def index_weight(self, index_code: str, start: date, end: date) -> list[Row]: ...


@dataclass(frozen=True)
class Slice:
    """One unit of fetch-and-replace: `equal` columns take one value, `between` one inclusive range."""

    table: str
    label: str
    fetch: Callable[[], list[Row]]
    equal: tuple[tuple[str, str | date], ...] = ()
    between: tuple[str, date, date] | None = None

    def where(self) -> str:
        terms = [f"{column} = {_literal(value)}" for column, value in self.equal]
        if self.between is not None:
            column, low, high = self.between
            terms.append(f"{column} BETWEEN {_literal(low)} AND {_literal(high)}")
        return " AND ".join(terms) or "1"

    def outside(self, rows: pa.Table) -> int:
        """Rows the slice's delete would not cover (a source answering beyond what was asked)."""
        inside = pa.array([True] * rows.num_rows)
        for column, value in self.equal:
            inside = pc.and_(inside, pc.equal(rows.column(column), pa.scalar(value)))
        if self.between is not None:
            column, low, high = self.between
            values = rows.column(column)
            inside = pc.and_(inside, pc.and_(pc.greater_equal(values, low), pc.less_equal(values, high)))
        return rows.num_rows - int(pc.sum(pc.cast(inside, pa.int64())).as_py() or 0)


def _literal(value: str | date) -> str:
    if isinstance(value, date):
        return f"'{value.isoformat()}'"
    if value in EXCHANGES or _CODE.match(value):
        return f"'{value}'"
    raise SyncFailed(f"refusing to write {value!r} into a delete condition")


@dataclass
class TableSync:
    slices: int = 0
    rows: int = 0  # rows written
    dropped: int = 0  # rows without a value in a required column
    empty: list[str] = field(default_factory=list)  # slices the source returned nothing for


@dataclass(frozen=True)
class SyncReport:
    source: str
    tables: dict[str, TableSync]
    row_counts: dict[str, int]
    added: dict[str, int]  # rows in the store after the run minus before, per synced table

    @property
    def rows_written(self) -> int:
        return sum(synced.rows for synced in self.tables.values())

    @property
    def rows_added(self) -> int:
        return sum(self.added.values())


def market_today() -> date:
    return datetime.now(MARKET_TIMEZONE).date()


class _Store:
    """What planning reads from the store."""

    def __init__(self, store: MarketStore) -> None:
        self.store = store
        self.db = store.database

    def latest(self, table: str, column: str, where: str = "1") -> date | None:
        result = self.store.internal_query(
            f"SELECT count(), max({column}) FROM {self.db}.{table} WHERE {where}"
        )
        count, latest = result.rows[0]
        return latest if count else None

    def open_days(self, start: date, end: date) -> list[date]:
        result = self.store.internal_query(
            f"SELECT cal_date FROM {self.db}.trade_cal WHERE exchange = 'SSE' AND is_open = 1 "
            "AND cal_date BETWEEN {start:Date} AND {end:Date} ORDER BY cal_date",
            {"start": start, "end": end},
        )
        return [row[0] for row in result.rows]

    def synthetic_datasets(self) -> list[str]:
        result = self.store.internal_query(f"SELECT dataset FROM {self.db}.dataset_info WHERE synthetic = 1")
        return [row[0] for row in result.rows]


def _slices(table: str, source: Source, state: _Store, since: date | None, today: date) -> list[Slice]:
    if table == "stock_basic":
        return [Slice(table, "all listed, delisted and suspended stocks", source.stock_basic)]
    if table == "trade_cal":
        slices = []
        for exchange in EXCHANGES:
            span = plan.calendar_range(
                state.latest(table, "cal_date", f"exchange = '{exchange}'"), since, today
            )
            if span is not None:
                start, end = span
                fetch = _bind(source.trade_cal, exchange, start, end)
                label = f"{exchange} {start}..{end}"
                slices.append(Slice(table, label, fetch, (("exchange", exchange),), ("cal_date", start, end)))
        return slices
    if table in {"daily", "daily_basic"}:
        latest = state.latest(table, "trade_date")
        start = plan.window_start(latest, since, today)
        days = plan.trade_dates(state.open_days(start, today), latest, since, today)
        if not days and start <= today and not state.open_days(date(today.year, 1, 1), today):
            raise SyncFailed(f"{table}: the stored calendar has no open day this year; sync trade_cal first")
        source.prepare(table, days)
        fetch_day = source.daily if table == "daily" else source.daily_basic
        return [Slice(table, str(day), _bind(fetch_day, day), (("trade_date", day),)) for day in days]
    if table in _REPORT_TABLES:
        fetch_period = source.income if table == "income" else source.fina_indicator
        periods = plan.report_periods(state.latest(table, "end_date"), since, today)
        return [Slice(table, f"period {p}", _bind(fetch_period, p), (("end_date", p),)) for p in periods]
    if table == "index_weight":
        slices = []
        for code in INDEXES:
            start = plan.window_start(
                state.latest(table, "trade_date", f"index_code = '{code}'"), since, today
            )
            if start <= today:
                fetch = _bind(source.index_weight, code, start, today)
                label = f"{code} {start}..{today}"
                slices.append(
                    Slice(table, label, fetch, (("index_code", code),), ("trade_date", start, today))
                )
        return slices
    raise SyncFailed(f"{table} is not a table the sync fetches; choose from {', '.join(SYNC_TABLES)}")


def _bind(function: Callable[..., list[Row]], *args: Any) -> Callable[[], list[Row]]:
    return lambda: function(*args)


def _latest_report_per_key(table: Table, rows: list[Row]) -> list[Row]:
    """Tushare lists a period's report again when a company corrects it: keep the latest version."""
    ordered = sorted(
        rows, key=lambda row: (str(row.get("ann_date") or ""), str(row.get("update_flag") or ""))
    )
    latest = {tuple(row.get(column) for column in table.key): row for row in ordered}
    return list(latest.values())


def _rows_to_arrow(table: Table, rows: list[Row]) -> tuple[pa.Table, int]:
    """Source rows as text columns for `conform`; rows missing a required number or date are dropped."""
    required = [c for c in table.columns if not c.type.startswith("Nullable(")]
    kept, dropped = [], 0
    for row in rows:
        row = dict(row)
        for column in required:
            if row.get(column.name) is None and "String" in column.type:
                row[column.name] = ""  # e.g. a new listing without an industry yet
        if any(row.get(column.name) is None for column in required):
            dropped += 1
            continue
        kept.append(row)
    columns = {
        column: pa.array([None if row.get(column) is None else str(row[column]) for row in kept], pa.string())
        for column in table.column_names
    }
    return pa.table(columns), dropped


def _prepare(slice_: Slice, rows: list[Row], today: date) -> tuple[pa.Table, int]:
    table = TABLES_BY_NAME[slice_.table]
    if slice_.table in _REPORT_TABLES:
        rows = _latest_report_per_key(table, rows)
    raw, dropped = _rows_to_arrow(table, rows)
    if raw.num_rows == 0:
        return raw, dropped
    try:
        typed, _ = conform(table, raw, today=today)
        check_duplicate_keys(table, typed)
    except ImportRejected as error:
        raise SyncFailed(f"{slice_.table} {slice_.label}: {error}") from error
    outside = slice_.outside(typed)
    if outside:
        raise SyncFailed(
            f"{slice_.table} {slice_.label}: the source returned {outside} rows outside what was asked"
        )
    return typed, dropped


def _record_dataset(store: MarketStore, source: Source, tables: Sequence[str]) -> None:
    spans = []
    for table in tables:
        column = DATE_COLUMN[table]
        count, low, high = store.internal_query(
            f"SELECT count(), min({column}), max({column}) FROM {store.database}.{table}"
        ).rows[0]
        if count:
            spans.append(f"{table} {low}..{high} ({count:,} rows)")
    description = f"REAL A-share market data from {source.name} (manage.py market sync): " + "; ".join(
        spans or ["no rows"]
    )
    store.admin_command(
        delete_sql(
            store.database, store.config.cluster, "dataset_info", f"dataset = {_quoted(source.dataset)}"
        )
    )
    insert_table(
        store,
        "dataset_info",
        build_table(
            "dataset_info",
            {
                "dataset": [source.dataset],
                "synthetic": [0],
                "description": [description],
                "licence": [source.licence],
                "loaded_at": [datetime.now(UTC).replace(microsecond=0)],
            },
        ),
    )


def delete_sql(database: str, cluster: str, table: str, where: str) -> str:
    """A lightweight DELETE; on a cluster it goes to the replicated local tables of every shard (a
    Distributed table takes inserts but not deletes)."""
    if cluster:
        return f"DELETE FROM {local_database_name(database)}.{table} ON CLUSTER {cluster} WHERE {where}"
    return f"DELETE FROM {database}.{table} WHERE {where}"


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def run_sync(
    store: MarketStore,
    source: Source,
    *,
    tables: Sequence[str] = SYNC_TABLES,
    since: date | None = None,
    today: date | None = None,
    progress: Progress | None = None,
) -> SyncReport:
    """Fetch what the store is missing of `tables` from `source` and replace it slice by slice."""
    today = today or market_today()
    unknown = [table for table in tables if table not in SYNC_TABLES]
    if unknown:
        raise SyncFailed(f"unknown table(s) {', '.join(unknown)}; the sync fetches {', '.join(SYNC_TABLES)}")
    ensure_schema(store)
    state = _Store(store)
    synthetic = state.synthetic_datasets()
    if synthetic:
        raise SyncFailed(
            f"the store holds the SYNTHETIC demo ({', '.join(synthetic)}); real rows would mix with it. "
            "Sync into an empty store (another CLICKHOUSE_DATABASE or VERISCREEN_DATA_DIR)"
        )
    before = row_counts(store)
    report: dict[str, TableSync] = {}
    for table in [table for table in SYNC_TABLES if table in tables]:
        synced = report.setdefault(table, TableSync())
        slices = _slices(table, source, state, since, today)
        for done, slice_ in enumerate(slices, start=1):
            rows, dropped = _prepare(slice_, slice_.fetch(), today)
            synced.slices += 1
            synced.dropped += dropped
            if rows.num_rows == 0:
                synced.empty.append(slice_.label)
            else:
                store.admin_command(delete_sql(store.database, store.config.cluster, table, slice_.where()))
                synced.rows += insert_table(store, table, rows)
            if progress is not None:
                progress.step(done, len(slices), f"{table} {slice_.label}")
        if progress is not None:
            progress.finish()
    _record_dataset(store, source, list(report))
    after = row_counts(store)
    added = {table: after[table] - before[table] for table in report}
    return SyncReport(source=source.name, tables=report, row_counts=after, added=added)
