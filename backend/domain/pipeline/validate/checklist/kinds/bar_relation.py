"""Two prices of bars related by the question: 收于最高价 / closed at the high of the day → close = high;
收于最低价 / closed at the low → close = low; 向上跳空 / gapped up → the low above the previous bar's
high; 向下跳空 / gapped down → the high below the previous low; a gap the question defines by the open
(gapped up, opening above the previous day's high) → the open against the previous high. A gap given
a size (gapped up more than 5%, 跳空高开超过3%) is the open's change over the previous close, a
number the `number` kind reads: no relation of bars.

The SQL must compare the two prices (close = high, close >= high, high - close <= 0, …).
A condition that never brings them together answers without it (the closed-at-the-high stocks
listed as every stock up more than 3%); the other price compared only with something else is
undecidable — a gap read from the open (open > previous high) is another, looser gap.
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of
from backend.domain.pipeline.validate.checklist.vocabulary import Category

_CUES = (
    (
        re.compile(
            r"(?:收于|收在|收盘于|以)(?:当日|当天|全天)?最高价?(?:收盘)?|收盘价(?:等于|=)最高价"
            r"|\bclos(?:ed|es|ing)\s+at\s+(?:the|its)\s+(?:day'?s\s+|daily\s+|intraday\s+)?high\b",
            re.IGNORECASE,
        ),
        "high",
    ),
    (
        re.compile(
            r"(?:收于|收在|收盘于|以)(?:当日|当天|全天)?最低价?(?:收盘)?|收盘价(?:等于|=)最低价"
            r"|\bclos(?:ed|es|ing)\s+at\s+(?:the|its)\s+(?:day'?s\s+|daily\s+|intraday\s+)?low\b",
            re.IGNORECASE,
        ),
        "low",
    ),
)
_GAPS = (
    (re.compile(r"向上跳空|\bgap(?:ped|s)?[ -]up\b"), "low", "high"),
    (re.compile(r"向下跳空|\bgap(?:ped|s)?[ -]down\b"), "high", "low"),
)
# "… more than 5%" / "超过3%" right after the gap cue: a gap measured against the previous close.
_SIZED = re.compile(r"^[^,，。;；]{0,16}?\d+(?:\.\d+)?\s*(?:%|％|percent)", re.IGNORECASE)
_PRICE_WORDS = {"open", "high", "low", "close"}
_COMPARISONS = (exp.EQ, exp.GTE, exp.LTE, exp.GT, exp.LT, exp.NEQ)


@dataclass(frozen=True)
class BarRelationDetail:
    kind: ClassVar[Kind] = Kind.BAR_RELATION
    other: str  # the price `price` is related to: high or low
    price: str = "close"

    def check(self, sql: Sql) -> Finding:
        compared_elsewhere = False
        for node in sql.tree.find_all(*_COMPARISONS):
            left, right = _prices(node.this), _prices(node.expression)
            apart = (self.price in left and self.other in right) or (
                self.price in right and self.other in left
            )
            # high - close <= 0, close / high >= 1: both prices on one side, a constant on the other
            together = any(
                {self.price, self.other} <= side and not other
                for side, other in ((left, right), (right, left))
            )
            if apart or together:
                return passed(f"the SQL compares {self.price} with {self.other}")
            compared_elsewhere = compared_elsewhere or self.other in left | right
        if compared_elsewhere:
            return undecided(f"{self.other} is compared, but not with {self.price} as the tree reads it")
        return failed(Attribution.CONDITION, f"no condition relates {self.price} to {self.other}")


def _prices(node: exp.Expr) -> set[str]:
    """The columns a side reads, with the price words of derived names (prev_high → high); the stored
    pre_close is a price of its own."""
    names = columns_of(node)
    derived = {word for name in names - {"pre_close"} for word in name.split("_") if word in _PRICE_WORDS}
    return names | derived


def extract(question: Question) -> list[Constraint]:
    found: list[Constraint] = []
    for pattern, other in _CUES:
        match = pattern.search(question.text)
        if match is None:
            continue
        span = question.span(match.start(), match.end())
        text = question.says(f"“{span.text}”：close = {other}", f"“{span.text}”: close = {other}")
        found.append(Constraint(span, text, question.lang, BarRelationDetail(other)))
    # a gap the question defines by the open ("opening above the previous day's high") is the open's
    opens = any(
        question.vocabulary.metrics[hit.key].columns == {"open"} for hit in question.hits_of(Category.METRIC)
    )
    for pattern, gap_price, previous in _GAPS:
        match = pattern.search(question.text)
        if match is None or _SIZED.match(question.text[match.end() :]):
            continue
        price = "open" if opens else gap_price
        span = question.span(match.start(), match.end())
        sign = ">" if price == "low" else "<"
        text = question.says(
            f"“{span.text}”：{price} {sign} 前一根K线的 {previous}",
            f"“{span.text}”: {price} {sign} the previous bar's {previous}",
        )
        found.append(Constraint(span, text, question.lang, BarRelationDetail(previous, price)))
    return found
