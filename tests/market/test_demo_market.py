"""Realism invariants of the synthetic demo market (the ~300-stock demo of the shared fixture)."""

from __future__ import annotations

from datetime import date

import pytest

from backend.domain.market.demo.universe import FAMOUS_CODES, board_of, clean_name, cnspell
from backend.domain.market.stats import collect_stats
from backend.domain.market.store import MarketStore
from backend.domain.market.taxonomy import BOARDS, INDUSTRIES

LIMIT = "multiIf(b.market = '主板', 0.10, b.market = '北交所', 0.30, 0.20)"


def scalar(store: MarketStore, sql: str) -> object:
    return store.internal_query(sql).rows[0][0]


def test_every_table_is_filled(demo_store: MarketStore) -> None:
    stats = {s.table: s for s in collect_stats(demo_store)}
    assert {name: s.rows for name, s in stats.items() if s.rows == 0} == {}
    assert stats["daily"].min_date == date(2022, 9, 1)
    assert stats["daily"].max_date == date(2025, 12, 31)
    assert stats["daily"].stocks == stats["stock_basic"].rows == 300


def test_small_demo_keeps_famous_names_boards_and_industries(demo_store: MarketStore) -> None:
    rows = demo_store.internal_query("SELECT symbol, name, industry, market FROM market.stock_basic").rows
    by_code = {symbol: (name, industry) for symbol, name, industry, _ in rows}
    assert set(FAMOUS_CODES) <= set(by_code)
    assert by_code["600519"] == ("贵州茅台", "白酒")
    assert by_code["000858"] == ("五粮液", "白酒")
    assert by_code["300750"] == ("宁德时代", "电池")
    assert by_code["688981"] == ("中芯国际", "半导体")
    assert by_code["000001"] == ("平安银行", "银行")
    assert by_code["601318"] == ("中国平安", "保险")
    assert by_code["300059"] == ("东方财富", "证券")
    assert {market for *_, market in rows} == set(BOARDS)
    industries = {industry for _, _, industry, _ in rows}
    assert len(industries) >= 20 and industries <= set(INDUSTRIES)


def test_codes_map_to_board_exchange_and_suffix(demo_store: MarketStore) -> None:
    rows = demo_store.internal_query("SELECT ts_code, symbol, market, exchange FROM market.stock_basic").rows
    for ts_code, symbol, market, exchange in rows:
        board, expected_exchange, suffix = board_of(symbol) or ("?", "?", "?")
        assert (market, exchange, ts_code) == (board, expected_exchange, f"{symbol}.{suffix}")


def test_names_are_cleaned_and_spelled() -> None:
    assert clean_name("万  科Ａ") == "万科A"
    assert clean_name("五 粮 液") == "五粮液"
    assert cnspell("万科A") == "wka"
    assert cnspell("贵州茅台") == "gzmt"
    assert cnspell("TCL科技") == "tclkj"
    assert cnspell("*ST正邦") == "stzb"
    assert board_of("200002") is None and board_of("900901") is None  # B shares are not in the demo
    assert board_of("920001") == ("北交所", "BSE", "BJ")


def test_stored_names_have_no_padding(demo_store: MarketStore) -> None:
    assert scalar(demo_store, "SELECT countIf(match(name, '\\\\s|[Ａ-Ｚ]')) FROM market.stock_basic") == 0
    assert scalar(demo_store, "SELECT cnspell FROM market.stock_basic WHERE symbol = '000002'") == "wka"


def test_closes_respect_the_board_limits_and_limit_days_exist(demo_store: MarketStore) -> None:
    counts = demo_store.internal_query(
        f"SELECT countIf(d.close > d.pre_close * (1 + {LIMIT}) + 0.0051),"
        f" countIf(d.close < d.pre_close * (1 - {LIMIT}) - 0.0051),"
        f" countIf(d.close >= round(d.pre_close * (1 + {LIMIT}), 2) - 1e-9),"
        f" countIf(d.close <= round(d.pre_close * (1 - {LIMIT}), 2) + 1e-9),"
        f" countIf(b.market != '主板' AND abs(d.pct_chg) > 10.5)"
        " FROM market.daily AS d INNER JOIN market.stock_basic AS b ON d.ts_code = b.ts_code"
    ).rows[0]
    above, below, limit_up, limit_down, wide_moves = counts
    assert (above, below) == (0, 0)
    assert limit_up > 0 and limit_down > 0
    assert wide_moves > 0  # 创业板/科创板/北交所 use their wider limits


def test_bars_are_consistent(demo_store: MarketStore) -> None:
    bad = demo_store.internal_query(
        "SELECT countIf(low > least(open, close) OR high < greatest(open, close) OR low <= 0),"
        " countIf(abs(change - (close - pre_close)) > 0.0051),"
        " countIf(abs(pct_chg - change / pre_close * 100) > 1e-3),"
        " countIf(amount * 10 / vol < low - 0.01 OR amount * 10 / vol > high + 0.01)"
        " FROM market.daily"
    ).rows[0]
    assert bad == (0, 0, 0, 0)
    # pre_close is the previous bar's close (suspended days in between keep the price).
    mismatched = scalar(
        demo_store,
        "SELECT countIf(prev != 0 AND abs(pre_close - prev) > 1e-9) FROM ("
        " SELECT pre_close, lagInFrame(close) OVER (PARTITION BY ts_code ORDER BY trade_date"
        " ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS prev FROM market.daily)",
    )
    assert mismatched == 0


def test_no_bar_before_listing_and_only_on_open_days(demo_store: MarketStore) -> None:
    assert (
        scalar(
            demo_store,
            "SELECT count() FROM market.daily AS d INNER JOIN market.stock_basic AS b"
            " ON d.ts_code = b.ts_code WHERE d.trade_date < b.list_date",
        )
        == 0
    )
    closed_days = scalar(
        demo_store,
        "SELECT count() FROM market.daily WHERE trade_date NOT IN"
        " (SELECT cal_date FROM market.trade_cal WHERE exchange = 'SSE' AND is_open = 1)",
    )
    assert closed_days == 0
    listed_during = scalar(
        demo_store, "SELECT count() FROM market.stock_basic WHERE list_date > toDate('2022-09-01')"
    )
    assert listed_during > 0  # IPOs inside the window start trading late


def test_suspensions_exist(demo_store: MarketStore) -> None:
    suspended = scalar(
        demo_store,
        "SELECT count() FROM (SELECT ts_code, count() AS bars,"
        " min(trade_date) AS first, max(trade_date) AS last"
        " FROM market.daily GROUP BY ts_code) AS s WHERE bars < (SELECT count() FROM market.trade_cal"
        " WHERE exchange = 'SSE' AND is_open = 1 AND cal_date BETWEEN s.first AND s.last)",
    )
    assert suspended > 0


def test_valuations_match_prices_shares_and_volume(demo_store: MarketStore) -> None:
    bad = demo_store.internal_query(
        "SELECT countIf(abs(db.total_mv - db.close * db.total_share) > 0.01 + 1e-9 * db.total_mv),"
        " countIf(abs(db.circ_mv - db.close * db.float_share) > 0.01 + 1e-9 * db.circ_mv),"
        " countIf(abs(db.turnover_rate - d.vol / db.float_share) > 1e-4),"
        " countIf(db.close != d.close), countIf(db.float_share > db.total_share)"
        " FROM market.daily_basic AS db INNER JOIN market.daily AS d"
        " ON d.ts_code = db.ts_code AND d.trade_date = db.trade_date"
    ).rows[0]
    assert bad == (0, 0, 0, 0, 0)
    assert scalar(demo_store, "SELECT count() FROM market.daily_basic") == scalar(
        demo_store, "SELECT count() FROM market.daily"
    )


def test_pe_follows_market_value_and_last_annual_profit(demo_store: MarketStore) -> None:
    """pe = total market value / net profit of the last annual report announced by that day.

    Reports disclosed together in a prospectus share one ann_date: the latest period counts."""
    rows = demo_store.internal_query(
        "SELECT db.ts_code, db.trade_date, db.pe, db.total_mv, i.n_income_attr_p"
        " FROM market.daily_basic AS db ASOF LEFT JOIN ("
        "  SELECT ts_code, ann_date, argMax(n_income_attr_p, end_date) AS n_income_attr_p"
        "  FROM market.income WHERE toMonth(end_date) = 12 GROUP BY ts_code, ann_date"
        " ) AS i ON db.ts_code = i.ts_code AND db.trade_date >= i.ann_date"
        " WHERE db.trade_date IN ('2023-06-30', '2024-05-06', '2025-12-31')"
    ).rows
    checked = losses = 0
    for ts_code, day, pe, total_mv, profit in rows:
        if profit > 0:
            assert pe == pytest.approx(total_mv * 1e4 / profit, rel=1e-3), (ts_code, day)
            checked += 1
        else:
            assert pe is None, (ts_code, day, profit)
            losses += 1
    assert checked > 500 and losses > 0


def test_income_is_cumulative_and_announced_on_time(demo_store: MarketStore) -> None:
    decreasing = scalar(
        demo_store,
        "SELECT count() FROM (SELECT ts_code, toYear(end_date) AS y,"
        " arrayMap(x -> x.2, arraySort(groupArray((end_date, revenue)))) AS ytd FROM market.income"
        " GROUP BY ts_code, y) WHERE NOT arrayAll((a, b) -> a < b, arrayPopBack(ytd), arrayPopFront(ytd))",
    )
    assert decreasing == 0
    late = scalar(
        demo_store,
        "SELECT count() FROM market.income AS i INNER JOIN market.stock_basic AS b ON i.ts_code = b.ts_code"
        " WHERE i.ann_date >= b.list_date AND (i.ann_date <= i.end_date OR i.ann_date > multiIf("
        " toMonth(i.end_date) = 3, makeDate(toYear(i.end_date), 4, 30),"
        " toMonth(i.end_date) = 6, makeDate(toYear(i.end_date), 8, 31),"
        " toMonth(i.end_date) = 9, makeDate(toYear(i.end_date), 10, 31),"
        " makeDate(toYear(i.end_date) + 1, 4, 30)))",
    )
    assert late == 0
    first, last, latest_ann = demo_store.internal_query(
        "SELECT min(end_date), max(end_date), max(ann_date) FROM market.income"
    ).rows[0]
    assert first == date(2019, 12, 31) and last == date(2025, 9, 30) and latest_ann <= date(2025, 12, 31)
    losses = scalar(demo_store, "SELECT countIf(n_income_attr_p < 0) FROM market.income")
    assert losses > 0


def test_fina_indicator_growth_matches_income(demo_store: MarketStore) -> None:
    rows = demo_store.internal_query(
        "SELECT f.or_yoy, f.netprofit_yoy, cur.revenue, prev.revenue,"
        " cur.n_income_attr_p, prev.n_income_attr_p"
        " FROM market.fina_indicator AS f"
        " INNER JOIN market.income AS cur ON cur.ts_code = f.ts_code AND cur.end_date = f.end_date"
        " INNER JOIN market.income AS prev ON prev.ts_code = f.ts_code"
        " AND prev.end_date = addYears(f.end_date, -1)"
    ).rows
    assert len(rows) > 1000
    for or_yoy, np_yoy, revenue, prev_revenue, profit, prev_profit in rows:
        assert or_yoy == pytest.approx((revenue / prev_revenue - 1) * 100, abs=1e-3)
        assert np_yoy == pytest.approx((profit - prev_profit) / abs(prev_profit) * 100, rel=1e-6, abs=1e-3)


def test_index_weights(demo_store: MarketStore) -> None:
    sums = demo_store.internal_query(
        "SELECT index_code, trade_date, sum(weight), count() FROM market.index_weight"
        " GROUP BY index_code, trade_date"
    ).rows
    assert {code for code, *_ in sums} == {"000300.SH", "000016.SH", "000905.SH", "399006.SZ"}
    for _, _, total, _ in sums:
        assert total == pytest.approx(100.0, abs=0.01)
    over_cap = scalar(
        demo_store,
        "SELECT count() FROM market.index_weight WHERE weight > 10.0001 AND (index_code, trade_date) IN"
        " (SELECT index_code, trade_date FROM market.index_weight GROUP BY index_code, trade_date"
        " HAVING count() >= 10)",
    )
    assert over_cap == 0
    misplaced = scalar(
        demo_store,
        "SELECT count() FROM market.index_weight AS w"
        " INNER JOIN market.stock_basic AS b ON w.con_code = b.ts_code"
        " WHERE (w.index_code = '000016.SH' AND b.exchange != 'SSE')"
        " OR (w.index_code = '399006.SZ' AND b.market != '创业板')"
        " OR (w.index_code IN ('000300.SH', '000905.SH') AND b.exchange = 'BSE')",
    )
    assert misplaced == 0
    overlap = scalar(
        demo_store,
        "SELECT count() FROM market.index_weight AS a INNER JOIN market.index_weight AS b"
        " ON a.con_code = b.con_code AND a.trade_date = b.trade_date"
        " WHERE a.index_code = '000300.SH' AND b.index_code = '000905.SH'",
    )
    assert overlap == 0
    top = demo_store.internal_query(
        "SELECT con_code FROM market.index_weight WHERE index_code = '000300.SH'"
        " AND trade_date = '2025-12-31' ORDER BY weight DESC LIMIT 3"
    ).rows
    assert ("600519.SH",) in top


def test_trade_calendar_and_provenance(demo_store: MarketStore) -> None:
    exchanges = demo_store.internal_query(
        "SELECT exchange, countIf(is_open = 1) FROM market.trade_cal"
        " WHERE cal_date BETWEEN '2023-01-01' AND '2023-12-31' GROUP BY exchange ORDER BY exchange"
    ).rows
    assert exchanges == [("BSE", 242), ("SSE", 242), ("SZSE", 242)]
    pretrade = demo_store.internal_query(
        "SELECT pretrade_date FROM market.trade_cal WHERE exchange = 'SSE' AND cal_date = '2024-10-08'"
    ).rows
    assert pretrade == [(date(2024, 9, 30),)]  # the National Day holiday
    synthetic, description, licence = demo_store.internal_query(
        "SELECT synthetic, description, licence FROM market.dataset_info WHERE dataset = 'ashare_demo'"
    ).rows[0]
    assert synthetic == 1 and "SYNTHETIC" in description and "20250908" in description
    assert "Apache" in licence
