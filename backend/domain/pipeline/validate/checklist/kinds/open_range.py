"""Open-ended time ranges: 2020年以来 / since 2020 / or later → a lower bound; 之前 / before → an upper bound.

The bound is read off comparisons of a date column (or toYear of one) with a day or year near the
named one. "Since" is also met by the last day before the range (max(trade_date) … < '2025-01-01',
the base of a gain since a date). A range closed at the end of the named year, or an equality,
answers one year only; a bound on the other side answers the opposite question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.dates import find_dates
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
from backend.domain.pipeline.validate.checklist.sqltree import Comparison, Sql, columns_of, is_date_column


class Way(StrEnum):
    SINCE = "since"
    BEFORE = "before"


_SINCE_AFTER = re.compile(r"\s*(以来|以后|之后|起|开始|至今|or later|and later|onwards?|or after|and after)")
_SINCE_BEFORE = re.compile(
    r"(since|after|starting(?: in| from)?|beginning(?: in)?|later than)\s+(?:in\s+|the\s+)?$"
)
_BEFORE_AFTER = re.compile(r"\s*(之前|以前|前(?![一二两三四五六七八九十\d])|or earlier|and earlier)")
_BEFORE_BEFORE = re.compile(r"(before|prior to|earlier than)\s+(?:in\s+|the\s+)?$")


@dataclass(frozen=True)
class Bound:
    op: str  # on the date column: > >= < <= =
    day: date
    base: bool  # an upper bound inside max(…): the last day before a range


@dataclass(frozen=True)
class OpenRangeDetail:
    kind: ClassVar[Kind] = Kind.OPEN_RANGE
    way: Way
    start: date  # the first day the question's range is about (since) or the first day it excludes (before)

    def check(self, sql: Sql) -> Finding:
        bounds = [bound for c in sql.comparisons if (bound := self._bound(c)) is not None]
        if not bounds:
            return undecided(f"no comparison of a date column near {self.start.isoformat()} was found")
        return self._since(bounds) if self.way is Way.SINCE else self._before(bounds)

    def _since(self, bounds: list[Bound]) -> Finding:
        year_end = date(self.start.year, 12, 31)
        lower = [b for b in bounds if b.op in {">", ">="} or b.base]
        wrong_side = [b for b in bounds if not b.base and _excludes_from(b, self.start)]
        closing = [
            b for b in bounds if not b.base and b.op in {"<", "<="} and not _excludes_from(b, self.start)
        ]
        closing = [
            b
            for b in closing
            if b.day <= year_end or (b.op == "<" and b.day == date(self.start.year + 1, 1, 1))
        ]
        equal = [b for b in bounds if b.op == "="]
        if lower and not closing and not wrong_side:
            return passed(f"the SQL keeps days from {self.start.isoformat()} on")
        if (equal or closing) and not wrong_side:
            return failed(
                Attribution.TIME_SCOPE,
                f"the SQL keeps {self.start.year} only, not {self.start.year} and later",
            )
        if wrong_side and not lower:
            return failed(
                Attribution.TIME_SCOPE, f"the SQL keeps days before {self.start.isoformat()}, not after"
            )
        return undecided("the SQL bounds the dates in ways that do not read as one range")

    def _before(self, bounds: list[Bound]) -> Finding:
        plain = [b for b in bounds if not b.base]
        upper = [b for b in plain if _excludes_from(b, self.start)]
        lower = [b for b in plain if b.op in {">", ">="} and b.day >= self.start]
        equal = [b for b in plain if b.op == "="]
        if upper and not lower:
            return passed(f"the SQL keeps days before {self.start.isoformat()}")
        if lower and not upper:
            return failed(
                Attribution.TIME_SCOPE, f"the SQL keeps days from {self.start.isoformat()} on, not before"
            )
        if equal and not upper:
            return failed(
                Attribution.TIME_SCOPE, f"the SQL keeps {self.start.year} only, not the years before"
            )
        return undecided("the SQL bounds the dates in ways that do not read as one range")

    def _bound(self, comparison: Comparison) -> Bound | None:
        columns = columns_of(comparison.subject)
        if (
            comparison.negated
            or comparison.op == "!="
            or not columns
            or not all(map(is_date_column, columns))
        ):
            return None
        year = self.start.year
        if comparison.day is not None:
            op, day = comparison.op, comparison.day
        elif comparison.number is not None and comparison.number == int(comparison.number):
            op, day = _year_as_day(comparison.op, int(comparison.number))
        else:
            return None
        if not date(year - 1, 1, 1) <= day <= date(year + 1, 12, 31):
            return None
        select = comparison.select
        base = op in {"<", "<="} and select is not None and any(p.find(exp.Max) for p in select.expressions)
        return Bound(op, day, base)


def _year_as_day(op: str, year: int) -> tuple[str, date]:
    """toYear(d) OP year as a bound on d itself."""
    if op in {">", ">="}:
        return ">=", date(year + 1 if op == ">" else year, 1, 1)
    if op == "<":
        return "<", date(year, 1, 1)
    if op == "<=":
        return "<=", date(year, 12, 31)
    return "=", date(year, 1, 1)


def _excludes_from(bound: Bound, start: date) -> bool:
    """An upper bound that leaves out `start` and every day after it."""
    return (bound.op == "<" and bound.day <= start) or (bound.op == "<=" and bound.day < start)


def extract(question: Question) -> list[Constraint]:
    constraints = []
    cues = ((Way.SINCE, _SINCE_AFTER, _SINCE_BEFORE), (Way.BEFORE, _BEFORE_AFTER, _BEFORE_BEFORE))
    for mention in find_dates(question):
        after, before = question.text[mention.end :], question.text[: mention.start]
        found: list[tuple[Way, int, int]] = []
        for way, trailing, leading in cues:
            if (match := trailing.match(after)) is not None:
                found.append((way, mention.start, mention.end + match.end()))
            elif (match := leading.search(before)) is not None:
                found.append((way, match.start(), mention.end))
        if len(found) != 1:  # no cue, or cues both ways: not an open range we can read
            continue
        way, start, end = found[0]
        first = mention.day or date(mention.year, 1, 1)
        span = question.span(start, end)
        text = question.says(
            f"{span.text}：{'不早于' if way is Way.SINCE else '早于'} {first.isoformat()}",
            f"{span.text}: {'from' if way is Way.SINCE else 'before'} {first.isoformat()}",
        )
        constraints.append(Constraint(span, text, question.lang, OpenRangeDetail(way, first)))
    return constraints
