"""Two prices of one bar related by the question: 收于最高价 / closed at the high of the day → close = high;
收于最低价 / closed at the low → close = low.

The SQL must compare the close with that price (close = high, close >= high, high - close <= 0, …).
A condition that never brings the two together answers without it (the closed-at-the-high stocks
listed as every stock up more than 3%); the other price compared only with something else is
undecidable.
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
_COMPARISONS = (exp.EQ, exp.GTE, exp.LTE, exp.GT, exp.LT, exp.NEQ)


@dataclass(frozen=True)
class BarRelationDetail:
    kind: ClassVar[Kind] = Kind.BAR_RELATION
    other: str  # the price the close is at: high or low

    def check(self, sql: Sql) -> Finding:
        compared_elsewhere = False
        for node in sql.tree.find_all(*_COMPARISONS):
            left, right = columns_of(node.this), columns_of(node.expression)
            apart = ("close" in left and self.other in right) or ("close" in right and self.other in left)
            # high - close <= 0, close / high >= 1: both prices on one side, a constant on the other
            together = any(
                {"close", self.other} <= side and not other for side, other in ((left, right), (right, left))
            )
            if apart or together:
                return passed(f"the SQL compares close with {self.other}")
            compared_elsewhere = compared_elsewhere or self.other in left | right
        if compared_elsewhere:
            return undecided(f"{self.other} is compared, but not with close as the tree reads it")
        return failed(Attribution.CONDITION, f"no condition relates close to {self.other}")


def extract(question: Question) -> list[Constraint]:
    found: list[Constraint] = []
    for pattern, other in _CUES:
        match = pattern.search(question.text)
        if match is None:
            continue
        span = question.span(match.start(), match.end())
        text = question.says(f"“{span.text}”：close = {other}", f"“{span.text}”: close = {other}")
        found.append(Constraint(span, text, question.lang, BarRelationDetail(other)))
    return found
