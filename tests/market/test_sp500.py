"""The real S&P 500 set from ../shared/data/market/us_sp500 imported as a second market."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from backend.domain.market.errors import ImportRejected
from backend.domain.market.importers.sp500 import import_sp500
from backend.domain.market.store import MarketStore
from tests.market.test_importers import fingerprint

SP500_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "market" / "us_sp500"
SOURCE_BARS = 635_290  # 505 tickers x 1,258 days, as SOURCE.txt says
TICKERS = 505

pytestmark = pytest.mark.skipif(not SP500_DIR.is_dir(), reason=f"{SP500_DIR} is not present")


def test_sp500_import_counts_and_conventions(empty_store: MarketStore) -> None:
    summary = import_sp500(empty_store, SP500_DIR)
    # Dropped: the 505 bars of 2017-07-31 (open and low are blank for every ticker) and each
    # ticker's first bar (2012-08-10), which has no previous close.
    assert (summary.source_bars, summary.tickers) == (SOURCE_BARS, TICKERS)
    assert (summary.dropped_incomplete, summary.dropped_first_bars) == (505, 505)
    assert summary.rows["daily"] == SOURCE_BARS - 505 - 505 == 634_280
    assert summary.rows["stock_basic"] == TICKERS
    db = empty_store.database
    counts = empty_store.internal_query(
        f"SELECT uniqExact(ts_code), min(trade_date), max(trade_date), countIf(NOT endsWith(ts_code, '.US'))"
        f" FROM {db}.daily"
    ).rows[0]
    assert counts == (TICKERS, date(2012, 8, 13), date(2017, 8, 10), 0)
    apple = empty_store.internal_query(
        f"SELECT name, market, exchange, industry FROM {db}.stock_basic WHERE ts_code = 'AAPL.US'"
    ).rows
    assert apple == [("Apple Inc.", "US", "NASDAQ", "Information Technology")]
    assert empty_store.internal_query(f"SELECT exchange FROM {db}.stock_basic WHERE symbol = 'MMM'").rows == [
        ("NYSE",)
    ]
    calendar = empty_store.internal_query(
        f"SELECT exchange, countIf(is_open = 1), min(cal_date), max(cal_date) FROM {db}.trade_cal"
        " GROUP BY exchange ORDER BY exchange"
    ).rows
    assert calendar == [
        ("NASDAQ", 1258, date(2012, 8, 10), date(2017, 8, 10)),
        ("NYSE", 1258, date(2012, 8, 10), date(2017, 8, 10)),
    ]
    consistent = empty_store.internal_query(
        "SELECT countIf(abs(change - (close - pre_close)) > 1e-3),"
        f" countIf(abs(amount - close * vol / 10) > 1) FROM {db}.daily"
    ).rows[0]
    assert consistent == (0, 0)
    synthetic, description = empty_store.internal_query(
        f"SELECT synthetic, description FROM {db}.dataset_info WHERE dataset = 'us_sp500'"
    ).rows[0]
    assert synthetic == 0 and "REAL" in description
    # The shipped price file repeats one series under every ticker; the import must say so.
    assert summary.warnings and "same OHLCV series" in summary.warnings[0]
    assert "WARNING" in description


def test_sp500_import_twice_is_refused_without_changes(empty_store: MarketStore) -> None:
    import_sp500(empty_store, SP500_DIR)
    before = fingerprint(empty_store)
    with pytest.raises(ImportRejected, match="already in the store"):
        import_sp500(empty_store, SP500_DIR)
    assert fingerprint(empty_store) == before


def test_sp500_folder_without_prices_is_refused(empty_store: MarketStore, tmp_path: Path) -> None:
    for name in ("constituents.csv", "constituents-financials.csv"):
        shutil.copy(SP500_DIR / name, tmp_path / name)
    with pytest.raises(ImportRejected, match=r"all_stocks_5yr\.csv\.gz: no such file"):
        import_sp500(empty_store, tmp_path)
    assert all(rows == 0 for rows, _ in fingerprint(empty_store).values())
