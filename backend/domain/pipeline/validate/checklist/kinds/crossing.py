"""Crossings: 上穿/下穿/金叉/死叉, crossed above/below, golden/death cross → the relation on two bars.

A crossing is one line above the other on the last bar and not above it on the bar before: the SQL
compares two moving things (close and an average, two averages) at least twice — today's bar and the
previous one (close > ma AND prev_close <= prev_ma). When a stock crosses its average (not 金叉, not
volume), the price is the close: the high or the low compared with the average is another event.
One such comparison asks only where the lines are today. On the last bar (rn = 1, else the one strict
relation beside non-strict ones) the faster line (the price, the shorter average) must end on the
side asked. Previous values read from arrays or a lag the tree does not relate are undecidable.
(突破/跌破 also say "is above/below now" and are not read as crossings.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    is_date_column,
    latest_aliases,
    number_value,
)

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
    upward: bool | None = None  # crossing above (金叉, golden), below (死叉, death), or not said

    def _wrong_way(self, sql: Sql, relations: Sequence[exp.Binary]) -> Finding | None:
        """A failure when the last bar's relation puts the faster line on the side not asked. The last
        bar is the alias picked with rn = 1, else the one strict relation beside non-strict ones
        (close > ma today, close <= ma the bar before); None when that cannot be told."""
        if self.upward is None:
            return None
        read: list[tuple[exp.Binary, bool]] = [
            (node, above) for node in relations if (above := _fast_above(node)) is not None
        ]
        latest = latest_aliases(sql)
        today = [above for n, above in read if {c.table for c in n.find_all(exp.Column)} & latest]
        if not today:
            strict = [above for n, above in read if isinstance(n, exp.GT | exp.LT)]
            if 0 < len(strict) < len(read):
                today = strict
        if today and all(above != self.upward for above in today):
            asked, found = ("above", "below") if self.upward else ("below", "above")
            return failed(
                Attribution.CONDITION,
                f"on the last bar the faster line ends {found} the other; the question asks a cross {asked}",
            )
        return None

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
            wrong_way = self._wrong_way(sql, relations)
            if wrong_way is not None:
                return wrong_way
            return passed("the SQL compares the two lines on two bars")
        if any(name.startswith(_PREVIOUS_BY_ARRAY) for name in sql.functions):
            return undecided("the previous bar may be read from an array")
        return failed(
            Attribution.CONDITION,
            "the SQL compares the lines on one bar only: where they are, not that they crossed",
        )


_UP = re.compile(r"上穿|金叉|\b(?:above|over|golden)\b", re.IGNORECASE)
_WINDOW_NUMBER = re.compile(r"\d+")


def _speed(side: exp.Expr) -> float | None:
    """How fast a line moves: the price itself fastest, an average by its window (ma5 before ma20)."""
    names = columns_of(side)
    if _bar_prices(side) and not any(_WINDOW_NUMBER.search(name) for name in names):
        return 0
    windows = [float(found) for name in names for found in _WINDOW_NUMBER.findall(name)]
    return min(windows) if len(windows) == 1 else None


def _fast_above(node: exp.Expr) -> bool | None:
    """Whether the comparison keeps the faster line above the slower one; None when not told."""
    left, right = _speed(node.this), _speed(node.expression)
    # the price against a line that is no price (close vs ma): the line is the slower one
    if left == 0 and right is None and not _bar_prices(node.expression):
        right = float("inf")
    if right == 0 and left is None and not _bar_prices(node.this):
        left = float("inf")
    if left is None or right is None or left == right:
        return None
    greater_left = isinstance(node, exp.GT | exp.GTE)
    return greater_left == (left < right)


def extract(question: Question) -> list[Constraint]:
    match = _CUE.search(question.text)
    if match is None:
        return []
    span = question.span(match.start(), match.end())
    text = question.says(
        f"“{span.text}”：今天在上方/下方且前一交易日不在",
        f"“{span.text}”: on one side today, not on the bar before",
    )
    upward = _UP.search(match.group()) is not None
    detail = CrossingDetail(_AVERAGES_CROSSING.search(question.text) is None, upward)
    return [Constraint(span, text, question.lang, detail)]
