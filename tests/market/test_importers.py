"""Tushare-layout imports: accepted files land in the store; refused files change nothing."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from backend.domain.market.errors import ImportRejected
from backend.domain.market.importers.tushare import import_tushare_file
from backend.domain.market.schema import TABLES
from backend.domain.market.store import MarketStore

TODAY = date(2026, 11, 30)
DAILY_HEADER = [
    "ts_code",
    "trade_date",
    "open",
    "high",
    "low",
    "close",
    "pre_close",
    "change",
    "pct_chg",
    "vol",
    "amount",
]
DAILY_LINES = (
    "600519.SH,20250905,1480.0,1495.5,1470.1,1490.0,1478.0,12.0,0.8119,30512.5,4530201.2",
    "600519.SH,20250908,1491.0,1500.0,1485.0,1499.9,1490.0,9.9,0.6644,28001.0,4183022.0",
    "000001.SZ,20250908,12.01,12.20,11.95,12.10,12.00,0.10,0.8333,1023456,1238381.76",
)
DAILY_ROWS = [line.split(",") for line in DAILY_LINES]


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def fingerprint(store: MarketStore) -> dict[str, tuple[int, int]]:
    """Row count and an order-independent checksum of every row of every table."""
    result = {}
    for table in TABLES:
        columns = ", ".join(f"`{c}`" for c in table.column_names)
        count, checksum = store.internal_query(
            f"SELECT count(), coalesce(sum(cityHash64({columns})), 0) FROM {store.database}.{table.name}"
        ).rows[0]
        result[table.name] = (int(count), int(checksum))
    return result


def test_csv_with_tushare_dates_is_imported(empty_store: MarketStore, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "daily.csv", [*DAILY_HEADER, "adj_factor"], [[*r, "1.0"] for r in DAILY_ROWS])
    summary = import_tushare_file(empty_store, "daily", path, today=TODAY)
    assert summary.rows == 3 and summary.ignored_columns == ["adj_factor"]
    rows = empty_store.internal_query(
        f"SELECT ts_code, trade_date, close, vol FROM {empty_store.database}.daily"
        " ORDER BY trade_date, ts_code"
    ).rows
    assert rows[0] == ("600519.SH", date(2025, 9, 5), 1490.0, 30512.5)
    assert rows[-1] == ("600519.SH", date(2025, 9, 8), 1499.9, 28001.0)


def test_parquet_with_typed_columns_is_imported(empty_store: MarketStore, tmp_path: Path) -> None:
    table = pa.table(
        {
            "ts_code": ["600519.SH", "000001.SZ"],
            "symbol": ["600519", "000001"],
            "name": ["贵州茅台", "平安银行"],
            "area": ["贵州", "深圳"],
            "industry": ["白酒", "银行"],
            "market": ["主板", "主板"],
            "exchange": ["SSE", "SZSE"],
            "list_status": ["L", "L"],
            "list_date": pa.array([date(2001, 8, 27), date(1991, 4, 3)], pa.date32()),
        }
    )
    path = tmp_path / "stock_basic.parquet"
    pq.write_table(table, path)
    summary = import_tushare_file(empty_store, "stock_basic", path, today=TODAY)
    assert summary.rows == 2
    rows = empty_store.internal_query(
        f"SELECT ts_code, cnspell, list_date, delist_date FROM {empty_store.database}.stock_basic"
        " ORDER BY ts_code"
    ).rows
    assert rows == [
        ("000001.SZ", "payh", date(1991, 4, 3), None),
        ("600519.SH", "gzmt", date(2001, 8, 27), None),
    ]


def _daily_with(tmp_path: Path, header: list[str], rows: list[list[str]]) -> Path:
    return write_csv(tmp_path / "bad.csv", header, rows)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing_column", "required columns missing: amount"),
        ("wrong_type", "column close: expected numbers, found 'n/a'"),
        ("empty_required", "column open: 1 empty values in a required column"),
        ("duplicate_key", "1 duplicate keys (ts_code, trade_date)"),
        ("date_too_old", "column trade_date: dates outside 1990-01-01"),
        ("date_in_future", "column trade_date: dates outside"),
        ("not_a_date", "column trade_date: expected dates as YYYYMMDD"),
        ("impossible_date", "column trade_date: invalid calendar date"),
    ],
)
def test_bad_file_is_refused_and_store_unchanged(
    empty_store: MarketStore, tmp_path: Path, case: str, expected: str
) -> None:
    import_tushare_file(
        empty_store, "daily", write_csv(tmp_path / "good.csv", DAILY_HEADER, DAILY_ROWS[:1]), today=TODAY
    )
    before = fingerprint(empty_store)
    header, rows = list(DAILY_HEADER), [list(r) for r in DAILY_ROWS[1:]]
    if case == "missing_column":
        header, rows = header[:-1], [r[:-1] for r in rows]
    elif case == "wrong_type":
        rows[1][5] = "n/a"
    elif case == "empty_required":
        rows[0][2] = ""
    elif case == "duplicate_key":
        rows.append(list(rows[0]))
    elif case == "date_too_old":
        rows[0][1] = "19891231"
    elif case == "date_in_future":
        rows[0][1] = "20990101"
    elif case == "not_a_date":
        rows[0][1] = "Sept 8"
    elif case == "impossible_date":
        rows[0][1] = "20250231"
    with pytest.raises(ImportRejected) as refused:
        import_tushare_file(empty_store, "daily", _daily_with(tmp_path, header, rows), today=TODAY)
    assert expected in str(refused.value)
    assert fingerprint(empty_store) == before


def test_rows_already_in_the_store_are_refused(empty_store: MarketStore, tmp_path: Path) -> None:
    first = write_csv(tmp_path / "first.csv", DAILY_HEADER, DAILY_ROWS[:2])
    import_tushare_file(empty_store, "daily", first, today=TODAY)
    before = fingerprint(empty_store)
    overlapping = write_csv(tmp_path / "second.csv", DAILY_HEADER, DAILY_ROWS[1:])
    with pytest.raises(ImportRejected, match=r"1 rows are already in the store .*600519\.SH"):
        import_tushare_file(empty_store, "daily", overlapping, today=TODAY)
    assert fingerprint(empty_store) == before
    assert before["daily"][0] == 2


def test_unknown_table_missing_file_and_wrong_format_are_refused(
    empty_store: MarketStore, tmp_path: Path
) -> None:
    good = write_csv(tmp_path / "daily.csv", DAILY_HEADER, DAILY_ROWS)
    with pytest.raises(ImportRejected, match="unknown table 'prices'"):
        import_tushare_file(empty_store, "prices", good, today=TODAY)
    with pytest.raises(ImportRejected, match="no such file"):
        import_tushare_file(empty_store, "daily", tmp_path / "absent.csv", today=TODAY)
    text = tmp_path / "daily.txt"
    text.write_text("x", encoding="utf-8")
    with pytest.raises(ImportRejected, match="unsupported file type"):
        import_tushare_file(empty_store, "daily", text, today=TODAY)
    assert fingerprint(empty_store)["daily"] == (0, 0)
