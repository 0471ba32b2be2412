"""Canonical market schema (DESIGN.md §3): Tushare's table and column names, units in comments.

The same definitions produce single-node DDL (embedded chdb, one server) and, for a cluster,
`ON CLUSTER` DDL with Replicated local tables and Distributed tables over them (deploy/clickhouse).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    comment: str


@dataclass(frozen=True)
class Table:
    name: str
    comment: str
    columns: tuple[Column, ...]
    order_by: str
    partition_by: str = ""
    key: tuple[str, ...] = ()  # logical primary key: importers refuse duplicates on it

    @property
    def column_names(self) -> list[str]:
        return [column.name for column in self.columns]

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.name} has no column {name}")


def _c(name: str, type_: str, comment: str) -> Column:
    return Column(name, type_, comment)


TABLES: tuple[Table, ...] = (
    Table(
        "stock_basic",
        "Listed stocks: codes, names, industry, board and exchange",
        (
            _c("ts_code", "String", "Tushare code, e.g. 600519.SH / AAPL.US"),
            _c("symbol", "String", "Exchange symbol, e.g. 600519"),
            _c("name", "String", "Short name, e.g. 贵州茅台"),
            _c("cnspell", "String", "Pinyin initials of the short name, e.g. gzmt"),
            _c("area", "LowCardinality(String)", "Region of registration"),
            _c("industry", "LowCardinality(String)", "Industry"),
            _c("market", "LowCardinality(String)", "Board: 主板/创业板/科创板/北交所 (or US)"),
            _c("exchange", "LowCardinality(String)", "Exchange: SSE, SZSE, BSE, NYSE, NASDAQ"),
            _c("list_status", "LowCardinality(String)", "L listed, D delisted, P suspended listing"),
            _c("list_date", "Date", "Listing date"),
            _c("delist_date", "Nullable(Date)", "Delisting date, NULL while listed"),
        ),
        order_by="ts_code",
        key=("ts_code",),
    ),
    Table(
        "trade_cal",
        "Trading calendar per exchange",
        (
            _c("exchange", "LowCardinality(String)", "Exchange"),
            _c("cal_date", "Date", "Calendar date"),
            _c("is_open", "UInt8", "1 if a trading day"),
            _c("pretrade_date", "Nullable(Date)", "Previous trading day"),
        ),
        order_by="(exchange, cal_date)",
        key=("exchange", "cal_date"),
    ),
    Table(
        "daily",
        "Daily bars (unadjusted)",
        (
            _c("ts_code", "String", "Stock code"),
            _c("trade_date", "Date", "Trading day"),
            _c("open", "Float64", "Open price, CNY (USD for US stocks)"),
            _c("high", "Float64", "High price"),
            _c("low", "Float64", "Low price"),
            _c("close", "Float64", "Close price"),
            _c("pre_close", "Float64", "Previous close"),
            _c("change", "Float64", "Close minus previous close"),
            _c("pct_chg", "Float64", "Change in percent of previous close (%)"),
            _c("vol", "Float64", "Volume in lots of 100 shares"),
            _c("amount", "Float64", "Turnover amount in thousand CNY"),
        ),
        order_by="(trade_date, ts_code)",
        partition_by="toYear(trade_date)",
        key=("ts_code", "trade_date"),
    ),
    Table(
        "daily_basic",
        "Daily valuation and trading indicators",
        (
            _c("ts_code", "String", "Stock code"),
            _c("trade_date", "Date", "Trading day"),
            _c("close", "Float64", "Close price"),
            _c("turnover_rate", "Float64", "Turnover rate (%)"),
            _c("volume_ratio", "Nullable(Float64)", "Volume ratio"),
            _c("pe", "Nullable(Float64)", "P/E (static, last annual); NULL when loss-making"),
            _c("pe_ttm", "Nullable(Float64)", "P/E TTM; NULL when loss-making"),
            _c("pb", "Nullable(Float64)", "P/B"),
            _c("ps", "Nullable(Float64)", "P/S (last annual)"),
            _c("ps_ttm", "Nullable(Float64)", "P/S TTM"),
            _c("dv_ratio", "Nullable(Float64)", "Dividend yield (%)"),
            _c("dv_ttm", "Nullable(Float64)", "Dividend yield TTM (%)"),
            _c("total_share", "Float64", "Total shares, 10k shares"),
            _c("float_share", "Float64", "Float shares, 10k shares"),
            _c("total_mv", "Float64", "Total market value, 10k CNY"),
            _c("circ_mv", "Float64", "Circulating market value, 10k CNY"),
        ),
        order_by="(trade_date, ts_code)",
        partition_by="toYear(trade_date)",
        key=("ts_code", "trade_date"),
    ),
    Table(
        "income",
        "Income statements; figures are cumulative year-to-date per report period, in CNY",
        (
            _c("ts_code", "String", "Stock code"),
            _c("ann_date", "Date", "Announcement date"),
            _c("end_date", "Date", "Report period end (03-31, 06-30, 09-30, 12-31)"),
            _c("report_type", "LowCardinality(String)", "1 = consolidated"),
            _c("total_revenue", "Float64", "Total operating revenue, CNY (YTD)"),
            _c("revenue", "Float64", "Operating revenue, CNY (YTD)"),
            _c("operate_profit", "Float64", "Operating profit, CNY (YTD)"),
            _c("total_profit", "Float64", "Total profit, CNY (YTD)"),
            _c("n_income", "Float64", "Net profit, CNY (YTD)"),
            _c("n_income_attr_p", "Float64", "Net profit attributable to parent shareholders, CNY (YTD)"),
            _c("basic_eps", "Float64", "Basic EPS, CNY per share (YTD)"),
        ),
        order_by="(ts_code, end_date)",
        key=("ts_code", "end_date"),
    ),
    Table(
        "fina_indicator",
        "Financial indicators per report period (ratios and growth rates in %)",
        (
            _c("ts_code", "String", "Stock code"),
            _c("ann_date", "Date", "Announcement date"),
            _c("end_date", "Date", "Report period end"),
            _c("eps", "Float64", "Basic EPS, CNY (YTD)"),
            _c("roe", "Nullable(Float64)", "Return on equity (%), YTD"),
            _c("roa", "Nullable(Float64)", "Return on assets (%), YTD"),
            _c("grossprofit_margin", "Nullable(Float64)", "Gross margin (%)"),
            _c("netprofit_margin", "Nullable(Float64)", "Net margin (%)"),
            _c("debt_to_assets", "Nullable(Float64)", "Debt to assets (%)"),
            _c("netprofit_yoy", "Nullable(Float64)", "Net profit attributable, YoY growth (%)"),
            _c("or_yoy", "Nullable(Float64)", "Operating revenue, YoY growth (%)"),
        ),
        order_by="(ts_code, end_date)",
        key=("ts_code", "end_date"),
    ),
    Table(
        "index_basic",
        "Indexes",
        (
            _c("ts_code", "String", "Index code, e.g. 000300.SH"),
            _c("name", "String", "Short name, e.g. 沪深300"),
            _c("fullname", "String", "Full name"),
            _c("market", "LowCardinality(String)", "Index family / market (CSI, SSE, SZSE)"),
            _c("publisher", "LowCardinality(String)", "Publisher"),
            _c("base_date", "Date", "Base date"),
            _c("base_point", "Float64", "Base point"),
            _c("list_date", "Date", "Publication date"),
        ),
        order_by="ts_code",
        key=("ts_code",),
    ),
    Table(
        "index_weight",
        "Index constituents and weights (monthly snapshots)",
        (
            _c("index_code", "String", "Index code"),
            _c("con_code", "String", "Constituent stock code"),
            _c("trade_date", "Date", "Snapshot date"),
            _c("weight", "Float64", "Weight (%)"),
        ),
        order_by="(index_code, trade_date, con_code)",
        key=("index_code", "con_code", "trade_date"),
    ),
    Table(
        "dataset_info",
        "Provenance of the loaded data: which market, real or synthetic, source and licence",
        (
            _c("dataset", "String", "Dataset name, e.g. ashare_demo, us_sp500"),
            _c("synthetic", "UInt8", "1 if generated rather than observed"),
            _c("description", "String", "What it is and where it comes from"),
            _c("licence", "String", "Licence notice of the source material"),
            _c("loaded_at", "DateTime('UTC')", "When it was loaded"),
        ),
        order_by="dataset",
        key=("dataset",),
    ),
)

TABLES_BY_NAME: dict[str, Table] = {table.name: table for table in TABLES}


def _engine(table: Table, database: str, cluster: str) -> str:
    if cluster:
        path = f"'/clickhouse/tables/{{shard}}/{database}/{table.name}'"
        return f"ReplicatedMergeTree({path}, '{{replica}}')"
    return "MergeTree"


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _columns_sql(table: Table) -> str:
    return ",\n".join(f"    `{c.name}` {c.type} COMMENT {_quoted(c.comment)}" for c in table.columns)


def create_table_sql(table: Table, database: str, cluster: str = "") -> str:
    on_cluster = f" ON CLUSTER {cluster}" if cluster else ""
    parts = [
        f"CREATE TABLE IF NOT EXISTS {database}.{table.name}{on_cluster}\n(\n{_columns_sql(table)}\n)",
        f"ENGINE = {_engine(table, database, cluster)}",
    ]
    if table.partition_by:
        parts.append(f"PARTITION BY {table.partition_by}")
    parts.append(f"ORDER BY {table.order_by}")
    parts.append(f"COMMENT {_quoted(table.comment)}")
    return "\n".join(parts)


def local_database_name(database: str) -> str:
    """On a cluster, the replicated shards of `<database>.<table>` live in `<database>_local`."""
    return f"{database}_local"


def sharding_key(table: Table) -> str:
    """Rows of one stock stay on one shard; tables without a stock code spread at random."""
    for column in ("ts_code", "con_code"):
        if column in table.column_names:
            return f"cityHash64({column})"
    return "rand()"


def distributed_table_sql(table: Table, database: str, cluster: str) -> str:
    """`<database>.<table>` over the local replicated tables of every shard, so SQL names stay the same."""
    engine = f"Distributed({cluster}, {local_database_name(database)}, {table.name}, {sharding_key(table)})"
    return "\n".join(
        [
            f"CREATE TABLE IF NOT EXISTS {database}.{table.name} ON CLUSTER {cluster}",
            f"(\n{_columns_sql(table)}\n)",
            f"ENGINE = {engine}",
            f"COMMENT {_quoted(table.comment)}",
        ]
    )


def create_database_sql(database: str, cluster: str = "") -> str:
    on_cluster = f" ON CLUSTER {cluster}" if cluster else ""
    return f"CREATE DATABASE IF NOT EXISTS {database}{on_cluster}"


def schema_statements(database: str = "market", cluster: str = "") -> list[str]:
    """Every statement needed to create the canonical schema, in order.

    Without a cluster: plain MergeTree tables in `database`. With one: ReplicatedMergeTree tables in
    `<database>_local` on every node, and Distributed tables in `database` over them.
    """
    if not cluster:
        return [create_database_sql(database)] + [create_table_sql(table, database) for table in TABLES]
    local = local_database_name(database)
    return (
        [create_database_sql(local, cluster), create_database_sql(database, cluster)]
        + [create_table_sql(table, local, cluster) for table in TABLES]
        + [distributed_table_sql(table, database, cluster) for table in TABLES]
    )
