"""The bundled S&P 500 reference set (company list + valuation snapshot) as a second, real market."""

from __future__ import annotations

import csv
import math
from datetime import date, timedelta
from io import StringIO
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pytest
from django.core.management import CommandError, call_command

from backend.domain.market.errors import ImportRejected
from backend.domain.market.importers.sp500 import REFERENCE_DIR, SNAPSHOT_AS_OF, import_sp500, shared_series
from backend.domain.market.store import MarketStore
from tests.market.test_importers import fingerprint

DEFECTIVE_PRICES = (
    Path(__file__).parent / "fixtures" / "us_sp500_prices_excerpt" / "all_stocks_5yr_excerpt.csv"
)
COMPANIES = 503  # rows of constituents.csv
SNAPSHOT = 448  # companies of the list with a price and a market cap in constituents-financials.csv


def test_bundled_files_carry_their_notice() -> None:
    notice = (REFERENCE_DIR / "SOURCE.txt").read_text(encoding="utf-8")
    assert "ODC-PDDL-1.0" in notice and "Not included: daily prices" in notice
    assert {p.name for p in REFERENCE_DIR.iterdir()} == {
        "SOURCE.txt",
        "constituents.csv",
        "constituents-financials.csv",
        "datapackage_companies.json",
        "datapackage_financials.json",
    }


def test_default_import_is_companies_and_snapshot_without_prices(empty_store: MarketStore) -> None:
    summary = import_sp500(empty_store)
    assert (summary.companies, summary.snapshot_rows, summary.snapshot_skipped) == (
        COMPANIES,
        SNAPSHOT,
        COMPANIES - SNAPSHOT,
    )
    assert summary.prices is None and summary.snapshot_as_of == SNAPSHOT_AS_OF
    assert summary.rows == {"stock_basic": COMPANIES, "daily_basic": SNAPSHOT, "dataset_info": 1}
    db = empty_store.database
    for table in ("daily", "trade_cal", "income", "fina_indicator"):
        assert empty_store.internal_query(f"SELECT count() FROM {db}.{table}").rows == [(0,)]
    apple = empty_store.internal_query(
        f"SELECT name, market, exchange, industry, area, list_date FROM {db}.stock_basic"
        " WHERE ts_code = 'AAPL.US'"
    ).rows
    assert apple == [
        ("Apple Inc.", "US", "NASDAQ", "Information Technology", "California", date(1982, 11, 30))
    ]
    # Founding members joined the index in 1957, before ClickHouse's first Date: stored as 1970-01-01.
    assert empty_store.internal_query(
        f"SELECT exchange, list_date FROM {db}.stock_basic WHERE symbol = 'MMM'"
    ).rows == [("NYSE", date(1970, 1, 1))]
    row = empty_store.internal_query(
        "SELECT trade_date, close, pe, pe_ttm, pb, ps_ttm, dv_ratio, total_mv, circ_mv, total_share,"
        f" turnover_rate FROM {db}.daily_basic WHERE ts_code = 'AAPL.US'"
    ).rows[0]
    trade_date, close, pe, pe_ttm, pb, ps_ttm, dv_ratio, total_mv, circ_mv, total_share, turnover = row
    assert (trade_date, close, pe, pe_ttm) == (SNAPSHOT_AS_OF, 309.35, 35.4759, 35.4759)
    assert (pb, ps_ttm, dv_ratio) == (42.0312, 9.6711, 0.35)
    # Units of the contract: market values in 10k (USD here), shares in 10k.
    assert total_mv == circ_mv == pytest.approx(4_514_709_504_000 / 1e4)
    assert total_share == pytest.approx(4_514_709_504_000 / 309.35 / 1e4, abs=1e-3)
    assert math.isnan(turnover)
    # A negative book value (AbbVie) gives no P/B, nor does a missing one (Zoetis).
    assert empty_store.internal_query(
        f"SELECT ts_code, pb FROM {db}.daily_basic WHERE ts_code IN ('ABBV.US', 'ZTS.US') ORDER BY ts_code"
    ).rows == [("ABBV.US", None), ("ZTS.US", None)]
    synthetic, description, licence = empty_store.internal_query(
        f"SELECT synthetic, description, licence FROM {db}.dataset_info WHERE dataset = 'us_sp500'"
    ).rows[0]
    assert synthetic == 0 and "REAL" in description and "No daily prices" in description
    assert "ODC-PDDL-1.0" in licence


def test_snapshot_date_can_be_stated(empty_store: MarketStore) -> None:
    summary = import_sp500(empty_store, as_of=date(2026, 11, 2))
    days = empty_store.internal_query(
        f"SELECT DISTINCT trade_date FROM {empty_store.database}.daily_basic"
    ).rows
    assert days == [(date(2026, 11, 2),)] and summary.snapshot_as_of == date(2026, 11, 2)


def test_import_twice_is_refused_without_changes(empty_store: MarketStore) -> None:
    import_sp500(empty_store)
    before = fingerprint(empty_store)
    with pytest.raises(ImportRejected, match="already in the store"):
        import_sp500(empty_store)
    assert fingerprint(empty_store) == before


def test_upstream_price_file_with_one_series_under_every_ticker_is_refused(empty_store: MarketStore) -> None:
    with pytest.raises(
        ImportRejected, match=r"4 of 4 tickers carry the same OHLCV series.*AAPL, MMM, MSFT, ZTS"
    ):
        import_sp500(empty_store, prices=DEFECTIVE_PRICES)
    assert all(rows == 0 for rows, _ in fingerprint(empty_store).values())


def _write_prices(path: Path, tickers: dict[str, float], days: int = 25) -> None:
    """A per-company price file: each ticker its own random-looking walk; one bar with a blank open."""
    sessions: list[date] = []
    day = date(2012, 8, 10)
    while len(sessions) < days:
        if day.weekday() < 5:
            sessions.append(day)
        day += timedelta(days=1)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Date", "Open", "High", "Low", "Close", "Volume", "Name"])
        for ticker, base in tickers.items():
            for index, day in enumerate(sessions):
                close = round(base * (1 + 0.01 * math.sin(index + base)), 2)
                blank = ticker == "MMM" and index == 5
                writer.writerow(
                    [
                        day,
                        "" if blank else close - 0.5,
                        close + 1,
                        close - 1,
                        close,
                        100_000 + index * 100,
                        ticker,
                    ]
                )


def test_supplied_prices_are_loaded_for_listed_companies(empty_store: MarketStore, tmp_path: Path) -> None:
    prices = tmp_path / "prices.csv"
    _write_prices(prices, {"AAPL": 150.0, "MMM": 120.0, "ZTS": 30.0, "GONE": 10.0})
    summary = import_sp500(empty_store, prices=prices)
    assert summary.prices is not None
    assert (summary.prices.tickers, summary.prices.skipped_tickers) == (3, 1)
    assert (summary.prices.dropped_incomplete, summary.prices.dropped_first_bars) == (1, 3)
    assert summary.rows["daily"] == 3 * 25 - 1 - 3
    db = empty_store.database
    consistent = empty_store.internal_query(
        "SELECT countIf(abs(change - (close - pre_close)) > 1e-3),"
        f" countIf(abs(amount - close * vol / 10) > 1), countIf(ts_code = 'GONE.US') FROM {db}.daily"
    ).rows[0]
    assert consistent == (0, 0, 0)
    # ZTS joined the index in 2013; its bars start in 2012, so it was listed by then.
    assert empty_store.internal_query(
        f"SELECT list_date FROM {db}.stock_basic WHERE symbol = 'ZTS'"
    ).rows == [(date(2012, 8, 10),)]
    calendar = empty_store.internal_query(
        f"SELECT exchange, countIf(is_open = 1) FROM {db}.trade_cal GROUP BY exchange ORDER BY exchange"
    ).rows
    assert calendar == [("NASDAQ", 25), ("NYSE", 25)]


def test_shared_series_ignores_short_and_distinct_series(tmp_path: Path) -> None:
    prices = tmp_path / "prices.csv"
    _write_prices(prices, {"AAPL": 150.0, "MMM": 120.0, "MSFT": 300.0}, days=25)
    table = pacsv.read_csv(prices)
    complete = table.filter(pc.is_valid(table.column("Open")))
    assert shared_series(complete) == []
    assert shared_series(complete.slice(0, 0)) == []
    short = tmp_path / "short.csv"
    _write_prices(short, {"AAPL": 150.0}, days=10)
    rows = short.read_text(encoding="utf-8").splitlines()
    short.write_text(
        "\n".join(rows + [line.replace("AAPL", "MSFT") for line in rows[1:]]) + "\n", encoding="utf-8"
    )
    assert shared_series(pacsv.read_csv(short)) == []  # 10 identical bars: too few to call it a copy
    assert shared_series(pacsv.read_csv(short), min_bars=5) == [["AAPL", "MSFT"]]


def test_command_refuses_the_defective_price_file_with_a_message(demo_store: MarketStore) -> None:
    before = fingerprint(demo_store)
    with pytest.raises(CommandError, match="same OHLCV series"):
        call_command("market", "import", "sp500", "--prices", str(DEFECTIVE_PRICES), stdout=StringIO())
    assert fingerprint(demo_store) == before
