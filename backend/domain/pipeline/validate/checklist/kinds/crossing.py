"""Crossings: 上穿/下穿/金叉/死叉, crossed above/below, golden/death cross → the relation on two bars.

A crossing is one line above the other on the last bar and not above it on the bar before: the SQL
compares two moving things (close and an average, two averages) at least twice — today's bar and the
previous one (close > ma AND prev_close <= prev_ma). One such comparison asks only where the lines
are today. Previous values read from arrays or a lag the tree does not relate are undecidable. When a
stock crosses its average (not 金叉, not volume), the price is the close: the high or the low compared
with the average is another event.
(突破/跌破 also say "is above/below now" and are not read as crossings.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, is_date_column, number_value

_CUE = re.compile(
    r"上穿|下穿|金叉|死叉|\b(?:crossed|crosses|crossing|cross)\s+(?:above|below|over|under)\b"
    r"|\b(?:golden|death)\s+cross\b",
    re.IGNORECASE,
)
_IDENTITY = {"ts_code", "con_code", "code", "symbol", "rn"}
_PREVIOUS_BY_ARRAY = ("array", "neighbor", "runningdifference")


def _moving(node: exp.Expr) -> bool:
    """A side that is no constant, no day and no stock identity."""
    columns = columns_of(node)
    return (
        number_value(node) is None
        and bool(columns)
        and not all(is_date_column(column) or column in _IDENTITY for column in columns)
    )


_BAR_PRICES = {"open", "high", "low", "close"}
_AVERAGES_CROSSING = re.compile(
    r"金叉|死叉|\b(?:golden|death)\s+cross\b|均量|成交量|\bvolume\b", re.IGNORECASE
)


def _bar_prices(node: exp.Expr) -> set[str]:
    """The bar prices a side reads, by column name or a derived one (prev_close, c_high)."""
    return {word for name in columns_of(node) for word in name.split("_") if word in _BAR_PRICES}


@dataclass(frozen=True)
class CrossingDetail:
    kind: ClassVar[Kind] = Kind.CROSSING
    price_crosses: bool = False  # the stock's price crosses an average: the close is the price

    def check(self, sql: Sql) -> Finding:
        relations = [
            node
            for node in sql.tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE)
            if _moving(node.this) and _moving(node.expression)
        ]
        prices = set().union(*(_bar_prices(n.this) | _bar_prices(n.expression) for n in relations))
        if self.price_crosses and prices and "close" not in prices:
            return failed(
                Attribution.ENTITY_MAPPING,
                f"the SQL crosses the average with {', '.join(sorted(prices))}; the price that crosses "
                "is the close",
            )
        if len(relations) >= 2:
            return passed("the SQL compares the two lines on two bars")
        if any(name.startswith(_PREVIOUS_BY_ARRAY) for name in sql.functions):
            return undecided("the previous bar may be read from an array")
        return failed(
            Attribution.CONDITION,
            "the SQL compares the lines on one bar only: where they are, not that they crossed",
        )


def extract(question: Question) -> list[Constraint]:
    match = _CUE.search(question.text)
    if match is None:
        return []
    span = question.span(match.start(), match.end())
    text = question.says(
        f"“{span.text}”：今天在上方/下方且前一交易日不在",
        f"“{span.text}”: on one side today, not on the bar before",
    )
    detail = CrossingDetail(price_crosses=_AVERAGES_CROSSING.search(question.text) is None)
    return [Constraint(span, text, question.lang, detail)]
