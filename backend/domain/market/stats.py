"""Per-table inventory of the market store: rows, date range of the table's date column, stocks."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from backend.domain.market.schema import TABLES, Table
from backend.domain.market.store import MarketStore

# The column that dates each table's rows, and the column that names a stock (where there is one).
DATE_COLUMN: dict[str, str] = {
    "stock_basic": "list_date",
    "trade_cal": "cal_date",
    "daily": "trade_date",
    "daily_basic": "trade_date",
    "income": "end_date",
    "fina_indicator": "end_date",
    "index_basic": "list_date",
    "index_weight": "trade_date",
}
STOCK_COLUMN: dict[str, str] = {
    "stock_basic": "ts_code",
    "daily": "ts_code",
    "daily_basic": "ts_code",
    "income": "ts_code",
    "fina_indicator": "ts_code",
    "index_weight": "con_code",
}


@dataclass(frozen=True)
class TableStats:
    table: str
    rows: int
    date_column: str | None
    min_date: date | None
    max_date: date | None
    stocks: int | None  # distinct stock codes, where the table has them

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["min_date"] = self.min_date.isoformat() if self.min_date else None
        data["max_date"] = self.max_date.isoformat() if self.max_date else None
        return data


def _table_stats(store: MarketStore, table: Table) -> TableStats:
    date_column = DATE_COLUMN.get(table.name)
    stock_column = STOCK_COLUMN.get(table.name)
    selects = ["count()"]
    selects += [f"min({date_column})", f"max({date_column})"] if date_column else ["NULL", "NULL"]
    selects.append(f"uniqExact({stock_column})" if stock_column else "NULL")
    result = store.internal_query(f"SELECT {', '.join(selects)} FROM {store.database}.{table.name}")
    rows, min_date, max_date, stocks = result.rows[0]
    empty = int(rows) == 0
    return TableStats(
        table=table.name,
        rows=int(rows),
        date_column=date_column,
        min_date=None if empty else min_date,
        max_date=None if empty else max_date,
        stocks=None if stocks is None else int(stocks),
    )


def collect_stats(store: MarketStore) -> list[TableStats]:
    """One entry per canonical table, in schema order; a missing table shows as 0 rows."""
    existing = set(store.table_names())
    return [
        _table_stats(store, table)
        if table.name in existing
        else TableStats(table.name, 0, DATE_COLUMN.get(table.name), None, None, None)
        for table in TABLES
    ]
