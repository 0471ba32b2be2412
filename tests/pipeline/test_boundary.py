"""Comparisons at the edge: a boundary kept the other way from the question, judged by rerunning the
candidate with the question's boundary on the demo store; a move compared the other way."""

from __future__ import annotations

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.validate.boundary import boundary_checks
from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql

LATEST = "(SELECT max(trade_date) FROM market.daily)"
BY_INDUSTRY = (
    "SELECT s.industry, count() AS n FROM market.daily AS d "
    "INNER JOIN market.stock_basic AS s ON s.ts_code = d.ts_code "
    f"WHERE d.trade_date = {LATEST} AND d.pct_chg > 0 GROUP BY s.industry HAVING count() {{op}} {{n}}"
)


def _verdicts(store: MarketStore, question: str, sql: str) -> list[tuple[str, str]]:
    constraints = extract_constraints(question, default_vocabulary())
    checks = boundary_checks(question, constraints, parse_sql(sql), store, "zh")
    return [(check.kind, check.verdict) for check in checks]


def _group_size(store: MarketStore) -> int:
    """A number of risers some industry has exactly today, so that >= and > differ."""
    rows = store.query(BY_INDUSTRY.format(op=">", n=0)).rows
    return int(rows[0][1])


def test_a_boundary_row_kept_the_other_way_fails(demo_store: MarketStore) -> None:
    n = _group_size(demo_store)
    question = f"今天上涨股票超过{n}只的行业"
    assert _verdicts(demo_store, question, BY_INDUSTRY.format(op=">=", n=n)) == [
        ("movement", "pass"),
        ("boundary", "fail"),
    ]
    # the question's boundary: no rerun; 至少 includes it
    assert _verdicts(demo_store, question, BY_INDUSTRY.format(op=">", n=n)) == [("movement", "pass")]
    assert _verdicts(demo_store, f"今天上涨股票至少{n}只的行业", BY_INDUSTRY.format(op=">", n=n)) == [
        ("movement", "pass"),
        ("boundary", "fail"),
    ]


def test_a_boundary_no_row_sits_on_passes(demo_store: MarketStore) -> None:
    sql = f"SELECT ts_code FROM market.daily_basic WHERE trade_date = {LATEST} AND pe_ttm >= 12.3456"
    assert _verdicts(demo_store, "市盈率超过12.3456的股票", sql) == [("boundary", "pass")]


@pytest.mark.parametrize(
    ("question", "op", "verdicts"),
    [
        ("今天上涨的股票", ">", [("movement", "pass")]),
        # unchanged stocks counted as risers: judged on the data
        ("今天上涨的股票", ">=", [("movement", "pass"), ("boundary", "fail")]),
        ("今天上涨的股票", "<", [("movement", "fail")]),
        ("Which stocks fell today?", "<", [("movement", "pass")]),
        # moves said without a verb: 涨的/跌的, up on a day, gainers
        ("创业板今天涨的和跌的分别有多少只", ">=", [("boundary", "fail")]),
        ("What share of the bank stocks were up today?", ">=", [("movement", "pass"), ("boundary", "fail")]),
        ("How many gainers did the market have today?", "<", [("movement", "fail")]),
        # a negated move, or both moves asked: not judged
        ("今天没有下跌的股票", ">=", []),
        ("今天上涨和下跌的股票", "<", []),
    ],
)
def test_a_move_compared_with_zero(
    demo_store: MarketStore, question: str, op: str, verdicts: list[tuple[str, str]]
) -> None:
    sql = f"SELECT ts_code FROM market.daily WHERE trade_date = {LATEST} AND pct_chg {op} 0"
    assert _verdicts(demo_store, question, sql) == verdicts


@pytest.mark.parametrize(
    "question",
    [
        "How many stocks traded on every one of the last 60 days without ever falling more than 5% in a day?",
        "近60个交易日从未跌幅超过5%的股票有多少只",
    ],
)
def test_a_negated_threshold_is_not_judged(demo_store: MarketStore, question: str) -> None:
    # the complement (min >= -5) and the negated condition (countIf(< -5) = 0) are both right
    for having in ("min(pct_chg) >= -5", "countIf(pct_chg < -5) = 0"):
        sql = f"SELECT count() FROM (SELECT ts_code FROM market.daily GROUP BY ts_code HAVING {having})"
        assert [kind for kind, _ in _verdicts(demo_store, question, sql)] == []


def test_a_threshold_not_negated_is_still_judged(demo_store: MarketStore) -> None:
    sql = "SELECT count() FROM (SELECT ts_code FROM market.daily GROUP BY ts_code HAVING min(pct_chg) >= -5)"
    assert [kind for kind, _ in _verdicts(demo_store, "近60个交易日每天跌幅都超过5%的股票有多少只", sql)] == [
        "boundary"
    ]


@pytest.mark.parametrize(
    ("bounds", "verdicts"),
    [
        # 2025-09-01 is a trading day: leaving it out changes the month's rows
        ("trade_date > '2025-09-01' AND trade_date <= '2025-09-30'", [("boundary", "fail")]),
        ("trade_date >= '2025-09-01' AND trade_date < '2025-09-30'", [("boundary", "fail")]),
        ("trade_date >= '2025-09-01' AND trade_date <= '2025-09-30'", []),
        ("trade_date > '2025-08-31' AND trade_date < '2025-10-01'", []),
    ],
)
def test_a_month_named_with_an_end_left_out(
    demo_store: MarketStore, bounds: str, verdicts: list[tuple[str, str]]
) -> None:
    sql = f"SELECT trade_date, vol FROM market.daily WHERE ts_code = '600519.SH' AND {bounds}"
    assert _verdicts(demo_store, "贵州茅台2025年9月每天的成交量", sql) == verdicts


def test_a_month_whose_first_day_has_no_bar_passes(demo_store: MarketStore) -> None:
    # 2025-11-01 is a Saturday: no row sits on the day left out
    sql = "SELECT trade_date, vol FROM market.daily WHERE ts_code = '600519.SH' AND trade_date > '2025-11-01'"
    question = "Kweichow Moutai's daily volume in November 2025"
    assert _verdicts(demo_store, question, sql) == [("boundary", "pass")]


def test_between_with_both_ends_kept(demo_store: MarketStore) -> None:
    """含 / inclusive after a range: strict bounds are rerun with the ends kept."""
    price = demo_store.query(
        f"SELECT close FROM market.daily WHERE trade_date = {LATEST} AND close = round(close, 0) LIMIT 1"
    ).rows[0][0]
    low, high = int(price), int(price) + 7
    sql = f"SELECT count() FROM market.daily WHERE trade_date = {LATEST} AND close > {low} AND close < {high}"
    question = f"今天收盘价在{low}到{high}元之间（含{low}和{high}）的股票有多少只"
    assert _verdicts(demo_store, question, sql) == [("boundary", "fail")]
    # not said: not judged
    assert _verdicts(demo_store, f"今天收盘价在{low}到{high}元之间的股票有多少只", sql) == []
