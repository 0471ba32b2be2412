"""`market sync` against recorded Tushare replies: incremental, idempotent, refusing bad data.

No test here reaches the network: the HTTP call is injected (`RecordedTushare`), and every test runs
inside `fence_network`, which fails it if a socket is opened to an address outside loopback.
"""

from __future__ import annotations

import io
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from backend.domain.market.importers.loading import row_counts
from backend.domain.market.store import MarketStore
from backend.domain.market.sync import plan
from backend.domain.market.sync.errors import SyncFailed
from backend.domain.market.sync.progress import TextProgress
from backend.domain.market.sync.runner import SyncReport, delete_sql, run_sync
from backend.domain.market.sync.tushare import TushareClient, TushareSource
from tests.market.sync_support import TOKEN, RecordedTushare, fence_network

TODAY = date(2025, 12, 3)
SINCE = date(2025, 12, 1)
EXPECTED_ROWS = {
    "stock_basic": 4,
    "trade_cal": 62,
    "daily": 9,
    "daily_basic": 9,
    "income": 3,
    "fina_indicator": 3,
    "index_basic": 0,
    "index_weight": 5,
    "dataset_info": 1,
}


@pytest.fixture(autouse=True)
def _no_network() -> Iterator[None]:
    with fence_network() as attempts:
        yield
    assert not attempts, f"a sync test opened a socket outside loopback: {attempts}"


def _sync(store: MarketStore, recorded: RecordedTushare, **options: Any) -> SyncReport:
    source = TushareSource(TushareClient(TOKEN, post=recorded))
    return run_sync(store, source, today=TODAY, **options)


def _table(store: MarketStore, sql: str) -> list[tuple[Any, ...]]:
    return store.internal_query(sql.replace("{db}", store.database)).rows


def test_a_run_then_a_rerun_leave_identical_rows(empty_store: MarketStore) -> None:
    first = _sync(empty_store, RecordedTushare(), since=SINCE)
    assert first.row_counts == EXPECTED_ROWS
    bars = "SELECT ts_code, trade_date, close, vol FROM {db}.daily ORDER BY 1, 2"
    snapshot = _table(empty_store, bars)
    again = RecordedTushare()
    second = _sync(empty_store, again, since=SINCE)  # --since re-fetches everything: delete-insert
    assert second.row_counts == first.row_counts == row_counts(empty_store)
    assert _table(empty_store, bars) == snapshot
    assert len(again.requests) == 16  # 2 calendars, 3 stock lists, 3+3 days, 2 periods, 3 indexes


def test_a_rerun_without_since_fetches_only_what_is_missing(empty_store: MarketStore) -> None:
    _sync(empty_store, RecordedTushare(), since=SINCE)
    recorded = RecordedTushare()
    report = _sync(empty_store, recorded)
    assert report.row_counts == EXPECTED_ROWS
    asked = {(api, tuple(sorted(params.items()))) for api, params in recorded.requests}
    assert {api for api, _ in asked} == {"stock_basic", "income_vip", "fina_indicator_vip", "index_weight"}
    # No trade date or calendar day is asked again; the latest report period is (reports keep coming).
    assert ("income_vip", (("period", "20250930"), ("report_type", "1"))) in asked
    windows = {dict(params)["start_date"] for api, params in asked if api == "index_weight"}
    assert windows == {"20251202"}
    assert report.tables["index_weight"].empty == [
        "000016.SH 2025-12-02..2025-12-03",
        "000300.SH 2025-12-02..2025-12-03",
        "399006.SZ 2025-12-02..2025-12-03",
    ]


def test_values_types_and_the_latest_report_version(empty_store: MarketStore) -> None:
    _sync(empty_store, RecordedTushare(), since=SINCE)
    moutai = _table(
        empty_store,
        "SELECT close, pct_chg, amount FROM {db}.daily "
        "WHERE ts_code = '600519.SH' AND trade_date = '2025-12-02'",
    )
    assert moutai == [(1436.5, -1.3257, 6012345.0)]
    # Ping An Bank's report was listed twice (a correction): the later version is kept, once.
    assert _table(empty_store, "SELECT basic_eps FROM {db}.income WHERE ts_code = '000001.SZ'") == [(1.72,)]
    # Missing values stay NULL in Nullable columns; a required text value missing becomes ''.
    assert _table(
        empty_store,
        "SELECT volume_ratio FROM {db}.daily_basic WHERE ts_code = '300750.SZ' AND trade_date = '2025-12-01'",
    ) == [(None,)]
    assert _table(empty_store, "SELECT delist_date FROM {db}.stock_basic WHERE ts_code = '600087.SH'") == [
        (date(2014, 6, 5),)
    ]
    open_days = _table(
        empty_store, "SELECT count() FROM {db}.trade_cal WHERE exchange = 'SSE' AND is_open = 1"
    )
    assert open_days == [(23,)]


def test_the_data_status_row_says_real_source_and_when(empty_store: MarketStore) -> None:
    _sync(empty_store, RecordedTushare(), since=SINCE)
    _sync(empty_store, RecordedTushare(), since=SINCE)
    rows = _table(
        empty_store, "SELECT dataset, synthetic, description, licence, loaded_at FROM {db}.dataset_info"
    )
    assert len(rows) == 1
    dataset, synthetic, description, licence, loaded_at = rows[0]
    assert (dataset, synthetic) == ("ashare_tushare", 0)
    assert description.startswith("REAL A-share market data from tushare")
    assert "daily 2025-12-01..2025-12-03 (9 rows)" in description
    assert "Tushare" in licence
    assert abs(loaded_at - datetime.now(UTC)) < timedelta(minutes=5)


def test_a_store_holding_the_synthetic_demo_is_refused(empty_store: MarketStore) -> None:
    empty_store.admin_command(
        f"INSERT INTO {empty_store.database}.dataset_info VALUES ('ashare_demo', 1, 'demo', '', now())"
    )
    with pytest.raises(SyncFailed, match="SYNTHETIC demo"):
        _sync(empty_store, RecordedTushare(), since=SINCE)
    assert row_counts(empty_store)["daily"] == 0


def test_a_tushare_refusal_is_a_readable_error(empty_store: MarketStore) -> None:
    def refusing(url: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        return {"code": 40203, "msg": "抱歉，您每分钟最多访问该接口200次", "data": None}

    with pytest.raises(SyncFailed, match="Tushare trade_cal refused the request: 抱歉"):
        run_sync(empty_store, TushareSource(TushareClient(TOKEN, post=refusing)), today=TODAY)
    with pytest.raises(SyncFailed, match="TUSHARE_TOKEN"):
        TushareClient("", post=refusing)


def test_rows_outside_the_slice_asked_for_are_refused_before_any_write(empty_store: MarketStore) -> None:
    recorded = RecordedTushare()
    _sync(empty_store, recorded, since=SINCE, tables=["trade_cal"])

    def shifted(url: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        reply = recorded(url, payload, timeout)
        for item in reply["data"]["items"]:
            item[1] = "20251128"  # a day other than the one asked for: its delete would not cover it
        return reply

    source = TushareSource(TushareClient(TOKEN, post=shifted))
    with pytest.raises(SyncFailed, match="daily 2025-12-01: the source returned 3 rows outside"):
        run_sync(empty_store, source, today=TODAY, since=SINCE, tables=["daily"])
    assert row_counts(empty_store)["daily"] == 0


def test_deletes_reach_every_shard_on_a_cluster() -> None:
    assert delete_sql("market", "", "daily", "trade_date = '2025-12-01'") == (
        "DELETE FROM market.daily WHERE trade_date = '2025-12-01'"
    )
    assert delete_sql("market", "veriscreen", "daily", "1") == (
        "DELETE FROM market_local.daily ON CLUSTER veriscreen WHERE 1"
    )


def test_daily_tables_need_a_calendar(empty_store: MarketStore) -> None:
    with pytest.raises(SyncFailed, match="sync trade_cal first"):
        _sync(empty_store, RecordedTushare(), since=SINCE, tables=["daily"])


def test_progress_is_a_bar_on_a_terminal_and_lines_elsewhere() -> None:
    piped = io.StringIO()
    progress = TextProgress(piped)
    progress.step(1, 3, "daily 2025-12-01")
    progress.finish()
    assert piped.getvalue() == "[1/3] daily 2025-12-01\n"
    terminal = io.StringIO()
    progress = TextProgress(terminal, tty=True)
    progress.step(1, 2, "daily 2025-12-01")
    progress.step(2, 2, "daily 2025-12-02")
    progress.finish()
    drawn = terminal.getvalue()
    assert drawn.count("\r") == 2 and drawn.endswith("\n") and drawn.count("\n") == 1
    assert "[" + "#" * 15 + "-" * 15 + "] 1/2" in drawn and "[" + "#" * 30 + "] 2/2" in drawn


def test_planning_rules() -> None:
    assert plan.window_start(None, None, TODAY) == TODAY - timedelta(days=plan.DEFAULT_LOOKBACK_DAYS)
    assert plan.window_start(date(2025, 11, 28), None, TODAY) == date(2025, 11, 29)
    assert plan.window_start(date(2025, 11, 28), SINCE, TODAY) == SINCE
    assert plan.calendar_range(date(2025, 12, 31), None, TODAY) is None
    days = [date(2025, 12, d) for d in (1, 2, 3, 4)]
    assert plan.trade_dates(days, date(2025, 12, 1), None, TODAY) == days[1:3]
    assert plan.report_periods(None, SINCE, TODAY) == [date(2025, 9, 30)]
    assert plan.report_periods(date(2024, 12, 31), None, date(2025, 7, 1)) == [
        date(2024, 12, 31),
        date(2025, 3, 31),
        date(2025, 6, 30),
    ]
    assert plan.quarter_end_on_or_before(date(2025, 3, 30)) == date(2024, 12, 31)


def test_the_fence_catches_the_real_http_client() -> None:
    """Proves the fence works: the real client aimed off-loopback is stopped before leaving."""
    with fence_network() as attempts, pytest.raises(SyncFailed, match="cannot be reached"):
        TushareClient(TOKEN, url="http://192.0.2.1/", timeout=1).query("daily", {}, ["ts_code"])
    assert attempts and attempts[0] == ("192.0.2.1", 80)
    with fence_network() as attempts, pytest.raises(urllib.error.URLError, match="outside loopback"):
        urllib.request.urlopen("http://192.0.2.1/", timeout=1)
    assert attempts == [("192.0.2.1", 80)]
