"""A money figure asked in a scaled unit is shown in that unit; asked of a set of stocks, it is a total."""

from __future__ import annotations

import pytest

from backend.domain.pipeline.validate.answer_scale import answer_scale_check
from backend.domain.pipeline.validate.answer_total import answer_total_check
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql

TRILLION = (
    "What was the total market value of all STAR Market stocks on the latest trading day, in trillion yuan?"
)
YI = "今天各交易所的成交总额分别是多少亿元？"
BILLION_DAILY = "What was the whole market's average daily turnover in each month of 2025, in billion yuan?"
IN_BRACKETS = "总市值最大的10家银行，列出名称和总市值（亿元）。"
AFTER_UNIT = "各行业总市值合计，单位：亿元"
WRITTEN_IN_EN = "Show Kweichow Moutai's revenue for each annual report, in 亿 (100 million CNY)."
HUNDRED_MILLION = "Mean total market value of STAR Market shares on the last session, in 100 million yuan?"
QUARTER_ALONE = "宁德时代2024年第二季度单季营业收入有多少亿元"
QUARTER_ALONE_EN = "CATL's revenue in Q2 2024 alone, in hundreds of millions of yuan"
QUARTER_SQL = """
SELECT ((SELECT revenue FROM market.income WHERE ts_code = '300750.SZ' AND end_date = '2024-06-30')
      - (SELECT revenue FROM market.income WHERE ts_code = '300750.SZ' AND end_date = '2024-03-31'))
      / {scale} AS q2
"""


@pytest.mark.parametrize(
    ("question", "sql", "verdict"),
    [
        # total_mv is stored in 万元: trillions are 1e8 of them
        (TRILLION, "SELECT sum(total_mv) / 1e8 FROM market.daily_basic", "pass"),
        (TRILLION, "SELECT round(sum(b.total_mv) / 100000000, 2) AS t FROM market.daily_basic AS b", "pass"),
        (TRILLION, "SELECT sum(total_mv) / 1e12 FROM market.daily_basic", "fail"),  # taken as yuan
        (TRILLION, "SELECT sum(total_mv) / 1e4 FROM market.daily_basic", "fail"),  # 亿, not trillions
        # amount is stored in 千元: 亿 are 1e5 of them; through an alias of a subquery output
        (
            YI,
            "SELECT exchange, a / 1e5 FROM (SELECT exchange, sum(amount) AS a FROM market.daily GROUP BY 1)",
            "pass",
        ),
        (YI, "SELECT exchange, sum(amount) / 1e8 AS yi FROM market.daily GROUP BY exchange", "fail"),
        # an average written out keeps the unit
        (
            BILLION_DAILY,
            "SELECT m, sum(amount) / count(DISTINCT trade_date) / 1e6 FROM market.daily GROUP BY m",
            "pass",
        ),
        (
            BILLION_DAILY,
            "SELECT m, sum(amount) / count(DISTINCT trade_date) / 1e9 FROM market.daily GROUP BY m",
            "fail",
        ),
        # the stored unit shown as it is: the question asked another
        (YI, "SELECT exchange, sum(amount) FROM market.daily GROUP BY exchange", "undecidable"),
        # a factor that is no unit's (a five-day average written as / 5): not judged
        (YI, "SELECT exchange, sum(amount) / 5 / 1e6 FROM market.daily GROUP BY exchange", "undecidable"),
        # the unit named beside the figures: in brackets, after 单位, or written in Chinese in English
        (IN_BRACKETS, "SELECT name, round(total_mv / 1e4, 2) AS mv FROM market.daily_basic", "pass"),
        (IN_BRACKETS, "SELECT name, round(total_mv / 1e8, 2) AS mv FROM market.daily_basic", "fail"),
        (
            AFTER_UNIT,
            "SELECT industry, sum(total_mv) / 1e4 FROM market.daily_basic GROUP BY industry",
            "pass",
        ),
        (WRITTEN_IN_EN, "SELECT end_date, round(revenue / 1e8, 2) FROM market.income", "pass"),
        (WRITTEN_IN_EN, "SELECT end_date, round(revenue / 1e4, 2) FROM market.income", "fail"),
        # a count of the English scale word (100 million: 亿); total_mv in 万元 takes 1e4
        (HUNDRED_MILLION, "SELECT avg(total_mv) / 1e4 FROM market.daily_basic", "pass"),
        (HUNDRED_MILLION, "SELECT avg(total_mv) / 1e8 FROM market.daily_basic", "fail"),
        # a figure of one quarter alone, two periods' values subtracted in scalar subqueries (income in 元)
        (QUARTER_ALONE, QUARTER_SQL.format(scale="1e8"), "pass"),
        (QUARTER_ALONE, QUARTER_SQL.format(scale="1e4"), "fail"),
        (QUARTER_ALONE_EN, QUARTER_SQL.format(scale="1e8"), "pass"),
        (QUARTER_ALONE_EN, QUARTER_SQL.format(scale="1e12"), "fail"),
    ],
)
def test_scale_of_a_shown_amount(question: str, sql: str, verdict: str) -> None:
    check = answer_scale_check(question, parse_sql(sql), default_vocabulary(), "en")
    assert check is not None and check.verdict == verdict, check
    assert (check.attribution == "unit") == (verdict == "fail")


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        # no unit asked; a count is no amount; an amount not linear in one money column
        ("今天各交易所的成交总额", "SELECT exchange, sum(amount) / 1e8 FROM market.daily GROUP BY exchange"),
        ("有几千只股票？", "SELECT count() FROM market.stock_basic"),
        (YI, "SELECT exchange, sum(amount) / sum(vol) FROM market.daily GROUP BY exchange"),
    ],
)
def test_scale_not_judged(question: str, sql: str) -> None:
    assert answer_scale_check(question, parse_sql(sql), default_vocabulary(), "zh") is None


@pytest.mark.parametrize(
    ("question", "sql", "verdict"),
    [
        (TRILLION, "SELECT sum(total_mv) / 1e8 FROM market.daily_basic", "pass"),
        (TRILLION, "SELECT avg(total_mv) / 1e8 FROM market.daily_basic", "fail"),
        (YI, "SELECT exchange, avg(amount) / 1e5 FROM market.daily GROUP BY exchange", "fail"),
        (
            YI,
            "SELECT exchange, s / 1e5 FROM (SELECT exchange, sum(amount) AS s FROM market.daily GROUP BY 1)",
            "pass",
        ),
    ],
)
def test_amount_of_a_set_is_a_total(question: str, sql: str, verdict: str) -> None:
    check = answer_total_check(question, parse_sql(sql), default_vocabulary(), "en")
    assert check is not None and check.verdict == verdict, check
    assert (check.attribution == "aggregation") == (verdict == "fail")


PER_STOCK = "SELECT ts_code, total_mv / 1e8 AS tn FROM market.daily_basic WHERE trade_date = '2025-12-31'"


@pytest.mark.parametrize(
    ("question", "sql", "verdict"),
    [
        # a total said of a named set: each stock's amount listed is no answer; the sum is
        ("total market cap of the SSE 50 in trillion yuan", PER_STOCK, "fail"),
        ("银行业的总市值合计多少万亿元", PER_STOCK, "fail"),
        (
            "total market cap of the SSE 50 in trillion yuan",
            "SELECT sum(total_mv) / 1e8 FROM market.daily_basic",
            "pass",
        ),
    ],
)
def test_total_of_a_named_set_is_one_figure(question: str, sql: str, verdict: str) -> None:
    check = answer_total_check(question, parse_sql(sql), default_vocabulary(), "en")
    assert check is not None and check.verdict == verdict, check
    assert (check.attribution == "aggregation") == (verdict == "fail")


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        # an average asked: not this check's; a maximum is not judged
        ("科创板股票今日平均总市值是多少亿元", "SELECT avg(total_mv) / 1e4 FROM market.daily_basic"),
        (BILLION_DAILY, "SELECT m, avg(amount) / 1e6 FROM market.daily GROUP BY m"),
        (YI, "SELECT exchange, max(amount) / 1e5 FROM market.daily GROUP BY exchange"),
    ],
)
def test_total_not_judged(question: str, sql: str) -> None:
    assert answer_total_check(question, parse_sql(sql), default_vocabulary(), "zh") is None


@pytest.mark.parametrize(
    "question",
    [
        # a list asked, a threshold on each stock's amount, one stock named
        "SSE 50 members' total market cap in billion yuan",
        "which SSE 50 stocks have a total market cap above 1 trillion yuan, in billion yuan",
        "贵州茅台的总市值合计多少亿元",
        "银行股的总市值各是多少亿元",
    ],
)
def test_per_stock_amounts_not_judged(question: str) -> None:
    assert answer_total_check(question, parse_sql(PER_STOCK), default_vocabulary(), "en") is None
