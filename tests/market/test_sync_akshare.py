"""The AKShare source against recorded (hand-made) DataFrames: the same runner, incremental and
idempotent as with Tushare, the contract's units, and clear errors. No test reaches the network."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

import pandas as pd
import pytest

from backend.domain.market.importers.loading import row_counts
from backend.domain.market.store import MarketStore
from backend.domain.market.sync.akshare import AKSHARE_VERSION, AkshareSource, akshare_call, ts_code
from backend.domain.market.sync.errors import SyncFailed
from backend.domain.market.sync.runner import SyncReport, run_sync
from tests.market.akshare_support import RecordedAkshare
from tests.market.sync_support import fence_network

TODAY = date(2025, 12, 3)
SINCE = date(2025, 12, 1)
EXPECTED_ROWS = {
    "stock_basic": 5,
    "trade_cal": 62,
    "daily": 12,
    "daily_basic": 12,
    "income": 4,
    "fina_indicator": 4,
    "index_basic": 0,
    "index_weight": 6,
    "dataset_info": 1,
}


@pytest.fixture(autouse=True)
def _no_network() -> Iterator[None]:
    with fence_network() as attempts:
        yield
    assert not attempts, f"an AKShare sync test opened a socket outside loopback: {attempts}"


def _sync(store: MarketStore, recorded: RecordedAkshare, **options: Any) -> SyncReport:
    return run_sync(store, AkshareSource(recorded), today=TODAY, **options)


def _table(store: MarketStore, sql: str) -> list[tuple[Any, ...]]:
    return store.internal_query(sql.replace("{db}", store.database)).rows


def _functions(recorded: RecordedAkshare) -> list[str]:
    return [function for function, _ in recorded.calls]


def test_a_run_then_a_rerun_leave_identical_rows(empty_store: MarketStore) -> None:
    first = _sync(empty_store, RecordedAkshare(), since=SINCE)
    assert first.row_counts == EXPECTED_ROWS
    assert first.rows_added == sum(EXPECTED_ROWS.values()) - 1  # dataset_info is not a synced table
    everything = {
        table: _table(empty_store, f"SELECT * FROM {{db}}.{table} ORDER BY ALL")
        for table in EXPECTED_ROWS
        if table != "dataset_info"
    }
    again = RecordedAkshare()
    second = _sync(empty_store, again, since=SINCE)  # --since re-fetches everything: delete-insert
    assert second.row_counts == first.row_counts == row_counts(empty_store)
    assert second.rows_written == first.rows_written and second.rows_added == 0
    for table, rows in everything.items():
        assert _table(empty_store, f"SELECT * FROM {{db}}.{table} ORDER BY ALL") == rows, table
    # Per stock: one bar and one valuation history for the window, fetched once for both tables.
    calls = _functions(again)
    assert calls.count("stock_zh_a_hist") == 5 and calls.count("stock_value_em") == 5
    assert calls.count("tool_trade_date_hist_sina") == 1 and calls.count("stock_yjbb_em") == 1
    # ChiNext's weights are not published by CSI: no call, no rows.
    assert {args["symbol"] for f, args in again.calls if f == "index_stock_cons_weight_csindex"} == {
        "000016",
        "000300",
    }


def test_a_rerun_without_since_fetches_only_what_is_missing(empty_store: MarketStore) -> None:
    _sync(empty_store, RecordedAkshare(), since=SINCE)
    recorded = RecordedAkshare()
    report = _sync(empty_store, recorded)
    assert report.row_counts == EXPECTED_ROWS and report.rows_added == 0
    calls = set(_functions(recorded))
    # No trade date is missing: no per-stock history call; the latest report period is asked again.
    assert "stock_zh_a_hist" not in calls and "stock_value_em" not in calls
    assert {"stock_lrb_em", "stock_yjbb_em"} <= calls
    # The weights snapshot (2025-12-02) is older than the window (from 2025-12-03): nothing written.
    assert report.tables["index_weight"].rows == 0


def test_values_are_in_the_contract_units(empty_store: MarketStore) -> None:
    _sync(empty_store, RecordedAkshare(), since=SINCE)
    bar = (
        "SELECT close, pre_close, pct_chg, vol, amount FROM {db}.daily "
        "WHERE ts_code = '600519.SH' AND trade_date = '2025-12-02'"
    )
    assert _table(empty_store, bar) == [(1436.5, 1455.8, -1.33, 41876.0, 6012345.0)]  # amount: thousand CNY
    valuation = (
        "SELECT turnover_rate, pe, pe_ttm, ps, total_share, total_mv FROM {db}.daily_basic "
        "WHERE ts_code = '600519.SH' AND trade_date = '2025-12-02'"
    )
    [(turnover, pe, pe_ttm, ps, total_share, total_mv)] = _table(empty_store, valuation)
    assert (turnover, pe, pe_ttm, ps) == (0.33, 21.8, 20.3, None)
    assert total_share == pytest.approx(125619.78)  # 10k shares
    assert total_mv == pytest.approx(1436.5 * 125619.78)  # 10k CNY
    income = (
        "SELECT ann_date, total_revenue, revenue, n_income_attr_p, basic_eps FROM {db}.income "
        "WHERE ts_code = '300750.SZ'"
    )
    assert _table(empty_store, income) == [(date(2025, 10, 21), 283072e6, 283072e6, 49034e6, 11.02)]
    indicator = (
        "SELECT roe, roa, grossprofit_margin, or_yoy FROM {db}.fina_indicator WHERE ts_code = '000001.SZ'"
    )
    assert _table(empty_store, indicator) == [(7.97, None, None, -9.78)]  # NaN in the frame is NULL
    stocks = "SELECT ts_code, cnspell, market, exchange, list_date FROM {db}.stock_basic ORDER BY ts_code"
    assert _table(empty_store, stocks) == [
        ("000001.SZ", "payh", "主板", "SZSE", date(1991, 4, 3)),
        ("300750.SZ", "ndsd", "创业板", "SZSE", date(2018, 6, 11)),
        ("430047.BJ", "nsld", "北交所", "BSE", date(2020, 7, 27)),
        ("600519.SH", "gzmt", "主板", "SSE", date(2001, 8, 27)),
        ("688981.SH", "zxgj", "科创板", "SSE", date(2020, 7, 16)),
    ]
    calendar = (
        "SELECT cal_date, is_open, pretrade_date FROM {db}.trade_cal "
        "WHERE exchange = 'SZSE' AND cal_date IN ('2025-12-01', '2025-12-06') ORDER BY 1"
    )
    assert _table(empty_store, calendar) == [
        (date(2025, 12, 1), 1, date(2025, 11, 28)),
        (date(2025, 12, 6), 0, date(2025, 12, 5)),
    ]
    weights = (
        "SELECT index_code, con_code, trade_date, weight FROM {db}.index_weight "
        "WHERE index_code = '000016.SH' ORDER BY con_code"
    )
    assert _table(empty_store, weights) == [
        ("000016.SH", "600519.SH", date(2025, 12, 2), 13.214),
        ("000016.SH", "688981.SH", date(2025, 12, 2), 2.905),
    ]
    [(dataset, synthetic, licence)] = _table(
        empty_store, "SELECT dataset, synthetic, licence FROM {db}.dataset_info"
    )
    assert (dataset, synthetic) == ("ashare_akshare", 0) and "AKShare" in licence


def test_a_loss_is_a_null_pe_and_codes_get_their_exchange() -> None:
    loss = pd.DataFrame(
        [[date(2025, 12, 1), 5.0, -1.2, 5e9, 4e9, 1e9, 8e8, -12.5, -30.1, 0.9, None, None, 2.0]],
        columns=[
            "数据日期",
            "当日收盘价",
            "当日涨跌幅",
            "总市值",
            "流通市值",
            "总股本",
            "流通股本",
            "PE(TTM)",
            "PE(静)",
            "市净率",
            "PEG值",
            "市现率",
            "市销率",
        ],
    )
    bar = pd.DataFrame(
        [[date(2025, 12, 1), "600000", 5.1, 5.0, 5.2, 4.9, 1000.0, 5e5, 6.0, -1.96, -0.1, 1.5]],
        columns=[
            "日期",
            "股票代码",
            "开盘",
            "收盘",
            "最高",
            "最低",
            "成交量",
            "成交额",
            "振幅",
            "涨跌幅",
            "涨跌额",
            "换手率",
        ],
    )
    stocks = pd.DataFrame(
        [["600000", "浦发银行", "2000-01-01"]], columns=["证券代码", "证券简称", "上市日期"]
    )

    def call(function: str, arguments: Mapping[str, str]) -> pd.DataFrame:
        if function == "stock_info_sh_name_code" and arguments["symbol"] == "主板A股":
            return stocks
        return {"stock_zh_a_hist": bar, "stock_value_em": loss}.get(function, pd.DataFrame())

    source = AkshareSource(call)
    source.prepare("daily_basic", [date(2025, 12, 1)])
    [row] = source.daily_basic(date(2025, 12, 1))
    assert (row["pe"], row["pe_ttm"], row["turnover_rate"], row["total_mv"]) == (None, None, 1.5, 5e5)
    assert [
        ts_code(code) for code in ("600000", "688001", "000002", "300001", "430047", "920118", "830799")
    ] == [
        "600000.SH",
        "688001.SH",
        "000002.SZ",
        "300001.SZ",
        "430047.BJ",
        "920118.BJ",
        "830799.BJ",
    ]
    with pytest.raises(SyncFailed, match="not an A-share code"):
        ts_code("1A0001")


def test_an_unpublished_period_is_empty_and_a_failing_call_is_named(empty_store: MarketStore) -> None:
    def not_yet(function: str, arguments: Mapping[str, str]) -> pd.DataFrame:
        raise TypeError("'NoneType' object is not subscriptable")  # what the report functions do

    assert AkshareSource(not_yet).income(date(2025, 12, 31)) == []

    def refused(function: str, arguments: Mapping[str, str]) -> pd.DataFrame:
        raise ConnectionError("Remote end closed connection without response")

    with pytest.raises(SyncFailed, match=r"AKShare tool_trade_date_hist_sina\(\) failed: ConnectionError"):
        run_sync(empty_store, AkshareSource(refused), tables=["trade_cal"], today=TODAY)
    with pytest.raises(SyncFailed, match="AKShare stock_info_sh_name_code"):
        AkshareSource(not_yet).stock_basic()  # outside the report functions a TypeError is a failure


def test_without_the_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "akshare", None)  # import akshare raises ImportError
    with pytest.raises(SyncFailed, match=r"install akshare to use this source \(pip install akshare=="):
        akshare_call()


def test_every_recorded_call_fits_the_installed_package(empty_store: MarketStore) -> None:
    """With akshare installed (requirements.txt pins it), each call the sync makes binds to the real
    function's signature: the recorded frames stand for calls the package can actually take."""
    import inspect

    package = pytest.importorskip("akshare")
    assert package.__version__ == AKSHARE_VERSION
    recorded = RecordedAkshare()
    _sync(empty_store, recorded, since=SINCE)
    for function, arguments in recorded.calls:
        inspect.signature(getattr(package, function)).bind(**arguments)
