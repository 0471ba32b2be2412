"""Units: numbers are compiled in the stored unit of their column (a unit slip is a silent error)."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext


def _comparison_value(sql: str, column: str) -> float:
    tree = sqlglot.parse_one(sql, read="clickhouse")
    for node in tree.find_all(exp.GT, exp.LT, exp.GTE, exp.LTE):
        if isinstance(node.this, exp.Column) and node.this.name == column:
            literal = node.expression
            return -float(literal.this.this) if isinstance(literal, exp.Neg) else float(literal.this)
    raise AssertionError(f"no comparison on {column} in {sql}")


@pytest.mark.parametrize(
    ("question", "column", "stored"),
    [
        ("市值大于100亿的股票", "total_mv", 1e6),  # 100 × 1e8 CNY in 10k CNY
        ("总市值超过一千亿的股票", "total_mv", 1e7),
        ("Stocks with a market cap above 50 billion yuan", "total_mv", 5e6),
        ("市值大于100的股票", "total_mv", 1e6),  # a bare number is read in 亿 (input unit)
        ("净利润超过10亿的股票", "n_income_attr_p", 1e9),  # income is stored in CNY
        ("revenue over 500 million yuan", "revenue", 5e8),
        ("成交额超过5000万的股票", "amount", 5e4),  # amount is stored in thousand CNY
        ("成交量大于100万手的股票", "vol", 1e6),  # volume is stored in lots of 100 shares
        ("成交量大于1亿股的股票", "vol", 1e6),
        ("换手率超过三成的股票", "turnover_rate", 30.0),  # 三成 = 30%
        ("流通市值低于10亿的北交所股票", "circ_mv", 1e5),
        ("跌幅超过5%的股票", "pct_chg", -5.0),  # a decline is a negative change
        ("每股收益超过2元的股票", "basic_eps", 2.0),
    ],
)
def test_stored_units(question: str, column: str, stored: float, language_context: LanguageContext) -> None:
    translation = translate_question(question, language_context)
    assert translation.status == "ok", translation.message
    assert translation.sql is not None
    assert _comparison_value(translation.sql, column) == pytest.approx(stored)
