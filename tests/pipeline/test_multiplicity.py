"""Counted or listed rows that repeat, decided on the candidate's own rows in the demo store."""

from __future__ import annotations

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.multiplicity import multiplicity_checks

LATEST = "(SELECT max(trade_date) FROM market.daily)"
LAST_5 = "(SELECT DISTINCT trade_date FROM market.daily ORDER BY trade_date DESC LIMIT 5)"
RISERS_5 = "How many different stocks gained more than 3% on at least one of the last 5 trading days?"


def _verdicts(store: MarketStore, question: str, sql: str) -> list[str]:
    return [check.verdict for check in multiplicity_checks(question, parse_sql(sql), store, "en")]


@pytest.mark.parametrize(
    ("question", "sql", "verdicts"),
    [
        # stock-days counted for stocks; the same count of different stocks; one day has no repeats
        (
            RISERS_5,
            f"SELECT count() FROM market.daily WHERE trade_date IN {LAST_5} AND pct_chg > 3",
            ["fail"],
        ),
        (
            RISERS_5,
            f"SELECT count(ts_code) FROM market.daily WHERE trade_date IN {LAST_5} AND pct_chg > 3",
            ["fail"],
        ),
        (
            RISERS_5,
            f"SELECT count(DISTINCT ts_code) FROM market.daily WHERE trade_date IN {LAST_5} AND pct_chg > 3",
            [],
        ),
        (
            "今天有多少只股票上涨？",
            f"SELECT count() FROM market.daily WHERE trade_date = {LATEST} AND pct_chg > 0",
            ["pass"],
        ),
        # a join to every report period repeats each stock in its group's count
        (
            "各行业今天市盈率低于20的股票有多少只？",
            "SELECT s.industry, count() FROM market.daily_basic AS b "
            "INNER JOIN market.stock_basic AS s ON s.ts_code = b.ts_code "
            "INNER JOIN market.fina_indicator AS f ON f.ts_code = b.ts_code "
            f"WHERE b.trade_date = {LATEST} AND b.pe_ttm > 0 AND b.pe_ttm < 20 GROUP BY s.industry",
            ["fail"],
        ),
        # the calendar holds one row per exchange and day: a day counted once per exchange
        (
            "2024年有多少个交易日？",
            "SELECT count() FROM market.trade_cal WHERE is_open = 1 "
            "AND cal_date BETWEEN '2024-01-01' AND '2024-12-31'",
            ["fail"],
        ),
        (
            "2024年有多少个交易日？",
            "SELECT count() FROM market.trade_cal WHERE exchange = 'SSE' AND is_open = 1 "
            "AND cal_date BETWEEN '2024-01-01' AND '2024-12-31'",
            ["pass"],
        ),
        # industries counted once per stock
        (
            "今天有多少个行业出现了上涨的股票？",
            "SELECT count(s.industry) FROM market.daily AS d INNER JOIN market.stock_basic AS s "
            f"ON s.ts_code = d.ts_code WHERE d.trade_date = {LATEST} AND d.pct_chg > 0",
            ["fail"],
        ),
        # the count asked after the thing counted (行业有几个), and stocks counted among today's
        (
            "最新交易日有股票上涨的行业有几个？",
            "SELECT count(s.industry) FROM market.daily AS d INNER JOIN market.stock_basic AS s "
            f"ON s.ts_code = d.ts_code WHERE d.trade_date = {LATEST} AND d.pct_chg > 0",
            ["fail"],
        ),
        (
            "How many of today's stocks were listed in 2021?",
            "SELECT count(DISTINCT list_date) FROM market.stock_basic WHERE toYear(list_date) = 2021",
            ["fail"],
        ),
        (
            "How many of today's stocks were listed in 2021?",
            "SELECT count() FROM market.stock_basic WHERE toYear(list_date) = 2021",
            ["pass"],
        ),
        # several counts asked side by side: a count of different regions is another thing asked
        (
            "科创板有多少家公司，分布在多少个不同的地区？",
            "SELECT count(), count(DISTINCT area) FROM market.stock_basic WHERE market = '科创板'",
            ["pass"],
        ),
        (
            "How many industries and how many regions do ChiNext stocks come from?",
            "SELECT count(DISTINCT industry), count(DISTINCT area) FROM market.stock_basic "
            "WHERE market = '创业板'",
            [],
        ),
        # occurrences are counted with their repeats
        (
            "近5个交易日涨幅超过3%的次数",
            f"SELECT count() FROM market.daily WHERE trade_date IN {LAST_5} AND pct_chg > 3",
            [],
        ),
        # a list of names: an industry per falling stock, or each industry once
        (
            "今天有股票跌幅超过3%的行业有哪些？",
            "SELECT s.industry FROM market.daily AS d INNER JOIN market.stock_basic AS s "
            f"ON s.ts_code = d.ts_code WHERE d.trade_date = {LATEST} AND d.pct_chg < -3",
            ["fail"],
        ),
        (
            "今天有股票跌幅超过3%的行业有哪些？",
            "SELECT DISTINCT s.industry FROM market.daily AS d INNER JOIN market.stock_basic AS s "
            f"ON s.ts_code = d.ts_code WHERE d.trade_date = {LATEST} AND d.pct_chg < -3",
            [],
        ),
        (
            "今天涨幅超过3%的股票",
            f"SELECT ts_code FROM market.daily WHERE trade_date = {LATEST} AND pct_chg > 3",
            ["pass"],
        ),
        # a list with a value per row is not a list of names
        (
            "近5个交易日涨幅超过3%的股票",
            f"SELECT ts_code, pct_chg FROM market.daily WHERE trade_date IN {LAST_5} AND pct_chg > 3",
            [],
        ),
    ],
)
def test_repeated_rows_counted_or_listed(
    demo_store: MarketStore, question: str, sql: str, verdicts: list[str]
) -> None:
    assert _verdicts(demo_store, question, sql) == verdicts


@pytest.mark.parametrize(
    ("join", "verdicts"),
    [
        # every index snapshot of a member: each report counted once per snapshot
        ("INNER JOIN market.index_weight AS w ON w.con_code = f.ts_code", ["fail"]),
        # one row per stock: nothing repeats
        ("INNER JOIN market.stock_basic AS s ON s.ts_code = f.ts_code", ["pass"]),
    ],
)
def test_an_average_over_a_join_that_repeats_rows(
    demo_store: MarketStore, join: str, verdicts: list[str]
) -> None:
    sql = f"SELECT avg(f.roe) FROM market.fina_indicator AS f {join} WHERE f.end_date = '2024-12-31'"
    assert _verdicts(demo_store, "2024年年报的平均ROE", sql) == verdicts
