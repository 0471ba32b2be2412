"""Checks decided with data on points the checklist reads off the SQL tree: a stock named by name
(grounded by the probe), a window written as literal days, a window picked by a calendar subquery."""

from __future__ import annotations

from datetime import timedelta

import pytest

from backend.domain.language.translation import Evidence
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.grounded import grounded_checks
from backend.domain.pipeline.validate.outcome import CheckResult

WINDOW_QUESTION = "近20个交易日涨幅超过30%的股票"
CALENDAR = "(SELECT DISTINCT trade_date FROM market.daily ORDER BY trade_date {order} LIMIT {n})"
WINDOW_SQL = """
SELECT ts_code FROM market.daily
WHERE trade_date IN ((SELECT max(trade_date) FROM market.daily),
                     (SELECT min(trade_date) FROM {calendar}))
GROUP BY ts_code
HAVING count() = 2 AND argMax(close, trade_date) / argMin(close, trade_date) > 1.3
"""


def _checks(
    store: MarketStore, question: str, sql: str, evidence: tuple[Evidence, ...] = ()
) -> list[CheckResult]:
    constraints = extract_constraints(question, default_vocabulary())
    return grounded_checks(constraints, parse_sql(sql), evidence, store, "market", "zh")


@pytest.mark.parametrize(
    ("order", "n", "verdict"),
    [("DESC", 21, "pass"), ("DESC", 20, "pass"), ("ASC", 21, "fail"), ("DESC", 19, "fail")],
)
def test_a_calendar_subquery_must_pick_the_last_trading_days(
    demo_store: MarketStore, order: str, n: int, verdict: str
) -> None:
    sql = WINDOW_SQL.format(calendar=CALENDAR.format(order=order, n=n))
    [check] = [c for c in _checks(demo_store, WINDOW_QUESTION, sql) if c.check_id.endswith("-calendar")]
    assert (check.kind, check.verdict, check.point) == ("window", verdict, "checklist-2-window")
    assert check.sql and (check.attribution == "time_scope") == (verdict == "fail")


@pytest.mark.parametrize(("distinct", "verdict"), [("DISTINCT ", "pass"), ("", "fail")])
def test_a_day_list_from_the_daily_valuations_needs_distinct_days(
    demo_store: MarketStore, distinct: str, verdict: str
) -> None:
    # one row per stock and day: without DISTINCT the five rows are all of the latest day
    calendar = f"(SELECT {distinct}trade_date FROM market.daily_basic ORDER BY trade_date DESC LIMIT 21)"
    sql = WINDOW_SQL.format(calendar=calendar)
    [check] = [c for c in _checks(demo_store, WINDOW_QUESTION, sql) if c.check_id.endswith("-calendar")]
    assert check.verdict == verdict


def test_moving_average_windows_are_not_calendar_windows(demo_store: MarketStore) -> None:
    sql = WINDOW_SQL.format(calendar=CALENDAR.format(order="ASC", n=20))
    assert not [
        c for c in _checks(demo_store, "今日收盘价突破20日均线的股票", sql) if "calendar" in c.check_id
    ]


def test_a_window_written_as_days_is_counted_on_the_calendar(demo_store: MarketStore) -> None:
    days = [
        row[0]
        for row in demo_store.query(
            "SELECT DISTINCT trade_date FROM market.daily ORDER BY trade_date DESC LIMIT 8"
        ).rows
    ]
    question = "宁德时代最近5个交易日的收盘价"
    right = f"SELECT close FROM market.daily WHERE trade_date > '{days[5]}' AND ts_code = '300750.SZ'"
    wrong = f"SELECT close FROM market.daily WHERE trade_date > '{days[7]}' AND ts_code = '300750.SZ'"
    [passing] = [c for c in _checks(demo_store, question, right) if c.kind == "window"]
    [failing] = [c for c in _checks(demo_store, question, wrong) if c.kind == "window"]
    assert (passing.verdict, failing.verdict) == ("pass", "fail")


def test_a_probed_stock_name_is_checked_against_the_sql(demo_store: MarketStore) -> None:
    question = "贵州茅台2024年的营业收入"
    evidence = (Evidence("贵州茅台", "stock", "贵州茅台 600519.SH"),)
    right = "SELECT revenue FROM market.income WHERE ts_code = '600519.SH' AND end_date = '2024-12-31'"
    wrong = "SELECT revenue FROM market.income WHERE ts_code = '000858.SZ' AND end_date = '2024-12-31'"
    [passing] = [c for c in _checks(demo_store, question, right, evidence) if c.kind == "entity"]
    [failing] = [c for c in _checks(demo_store, question, wrong, evidence) if c.kind == "entity"]
    assert (passing.verdict, failing.verdict, failing.attribution) == ("pass", "fail", "entity_mapping")
    assert not [c for c in _checks(demo_store, question, right) if c.kind == "entity"]  # not probed


@pytest.mark.parametrize(
    "condition",
    ["ts_code <> '600519.SH'", "ts_code NOT IN ('600519.SH')", "NOT (ts_code = '600519.SH')"],
)
def test_a_probed_stock_the_sql_excludes_fails(demo_store: MarketStore, condition: str) -> None:
    evidence = (Evidence("贵州茅台", "stock", "贵州茅台 600519.SH"),)
    sql = f"SELECT revenue FROM market.income WHERE {condition} AND end_date = '2024-12-31'"
    [check] = [
        c for c in _checks(demo_store, "贵州茅台2024年的营业收入", sql, evidence) if c.kind == "entity"
    ]
    assert (check.verdict, check.attribution) == ("fail", "entity_mapping") and "excludes" in check.reason


def test_a_window_of_n_days_may_be_n_calendar_days(demo_store: MarketStore) -> None:
    latest = demo_store.query("SELECT max(trade_date) FROM market.daily").rows[0][0]
    start = latest - timedelta(days=30)
    sql = (
        "SELECT s.industry FROM market.daily AS d "
        "INNER JOIN market.stock_basic AS s ON s.ts_code = d.ts_code "
        f"WHERE d.trade_date > '{start.isoformat()}' AND d.trade_date <= '{latest.isoformat()}' "
        "GROUP BY s.industry ORDER BY sum(d.amount) / count(DISTINCT d.trade_date) DESC LIMIT 5"
    )
    [check] = [c for c in _checks(demo_store, "近30天日均成交额最大的5个行业", sql) if c.kind == "window"]
    assert check.verdict == "pass" and "calendar days" in check.reason


def test_an_n_day_high_written_as_days_needs_each_stock_to_have_those_bars(demo_store: MarketStore) -> None:
    days = [
        row[0]
        for row in demo_store.query(
            "SELECT DISTINCT trade_date FROM market.daily ORDER BY trade_date DESC LIMIT 6"
        ).rows
    ]
    sql = (
        f"SELECT ts_code FROM market.daily WHERE trade_date > '{days[5]}' GROUP BY ts_code "
        f"HAVING argMax(close, trade_date) >= max(close)"
    )
    short = demo_store.query(
        f"SELECT count() FROM (SELECT ts_code FROM market.daily WHERE trade_date > '{days[5]}' "
        f"GROUP BY ts_code HAVING max(trade_date) = '{days[0]}' AND count() < 5)"
    ).rows[0][0]
    [check] = [c for c in _checks(demo_store, "今天收盘创5日新高的股票", sql) if c.kind == "window"]
    # a stock that missed a day of the span has its last 5 bars further back than the SQL reads
    assert check.verdict == ("undecidable" if short else "pass"), check.reason
    [plain] = [c for c in _checks(demo_store, "近5个交易日涨幅超过30%的股票", sql) if c.kind == "window"]
    assert plain.verdict == "pass"


STREAK_SQL = """
SELECT ts_code FROM market.daily
WHERE trade_date IN (SELECT DISTINCT trade_date FROM market.daily ORDER BY trade_date DESC LIMIT {n})
  AND ts_code IN (SELECT ts_code FROM market.daily WHERE trade_date =
                  (SELECT trade_date FROM (SELECT DISTINCT trade_date FROM market.daily
                                           ORDER BY trade_date DESC LIMIT 1 OFFSET {offset})))
GROUP BY ts_code HAVING countIf(close < pre_close) = {n}
"""


@pytest.mark.parametrize(
    ("question", "offset", "verdict"),
    [
        ("连续3个交易日收跌的股票", 3, "pass"),  # the base day right before the streak: one of the N + 1
        ("Stocks that closed lower for 3 consecutive trading days", 3, "pass"),
        ("连续3个交易日收跌的股票", 5, "fail"),  # a day before the window's base: another span
        ("Stocks that closed lower for 3 consecutive trading days", 5, "fail"),
    ],
)
def test_a_single_day_picked_by_offset_must_lie_in_the_window(
    demo_store: MarketStore, question: str, offset: int, verdict: str
) -> None:
    sql = STREAK_SQL.format(n=3, offset=offset)
    checks = [c for c in _checks(demo_store, question, sql) if c.check_id.endswith("-calendar")]
    assert [c.verdict for c in checks] == [verdict]
