"""An amount asked in yuan must come from a money column."""

from __future__ import annotations

import pytest

from backend.domain.pipeline.validate.answer_unit import money_unit_check
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql


@pytest.mark.parametrize(
    ("question", "sql", "verdict"),
    [
        (
            "Total market turnover in billion yuan for each of the last five trading days",
            "SELECT trade_date, sum(turnover_rate) FROM market.daily_basic GROUP BY trade_date",
            "fail",
        ),
        (
            "Total market turnover in billion yuan for each of the last five trading days",
            "SELECT trade_date, sum(amount) / 1e6 FROM market.daily GROUP BY trade_date",
            "pass",
        ),
        ("科创板股票今日平均总市值是多少亿元", "SELECT avg(total_mv) / 1e4 FROM market.daily_basic", "pass"),
        ("科创板股票今日平均总市值是多少亿元", "SELECT avg(close * vol) FROM market.daily", "undecidable"),
    ],
)
def test_money_asked(question: str, sql: str, verdict: str) -> None:
    check = money_unit_check(question, parse_sql(sql), "zh")
    assert check is not None and check.verdict == verdict
    assert (check.attribution == "unit") == (verdict == "fail")


def test_nothing_to_check_without_a_money_unit() -> None:
    assert money_unit_check("今日换手率超过10%的股票", parse_sql("SELECT 1"), "zh") is None
