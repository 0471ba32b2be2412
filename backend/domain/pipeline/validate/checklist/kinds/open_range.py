"""Open-ended time ranges: 2020年以来 / since 2020 / or later → a lower bound; 之前 / before → an upper bound.

The bound is read off comparisons of a date column (or toYear of one) with a day or year near the
named one. "Since" is also met by the last day before the range (max(trade_date) … < '2025-01-01',
argMaxIf(close, trade_date, trade_date < '2025-01-01'): the base of a gain since a date). A condition
of any other conditional aggregate (countIf, sumIf) picks rows for that figure only, not for the
answer. A range closed at the end of the named year, or an equality, answers one year only; a bound
on the other side answers the opposite question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.dates import DateMention, find_dates
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Outcome,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Comparison,
    Sql,
    columns_of,
    function_name,
    is_date_column,
)


class Way(StrEnum):
    SINCE = "since"
    BEFORE = "before"


# 及/或 joins the named period to the range (2020年及以后, 2019年或之前): it is in the range.
_SINCE_AFTER = re.compile(
    r"\s*(?:及|或|或者|和)?\s*(以来|以后|之后|起|开始|至今|or later|and later|onwards?|or after|and after)"
)
_SINCE_BEFORE = re.compile(
    r"(since|after|starting(?: in| from)?|beginning(?: in)?|later than)\s+"
    r"(?:in\s+|the\s+(?:(?:start|beginning)\s+of\s+)?)?$"
)
_BEFORE_AFTER = re.compile(
    r"\s*(?:及|或|或者|和)?\s*(之前|以前|前(?![一二两三四五六七八九十\d])|or earlier|and earlier)"
)
_BEFORE_BEFORE = re.compile(r"(before|prior to|earlier than)\s+(?:in\s+|the\s+)?$")


@dataclass(frozen=True)
class Kept:
    """The days one comparison of a date column keeps: [low, high], either end open."""

    low: date | None
    high: date | None
    base: bool  # inside max(…)/argMax(…): finds the last day before a range, does not filter rows
    point: bool  # one day picked (trade_date = '2024-12-31'): the ends of a gain, not a range


@dataclass(frozen=True)
class OpenRangeDetail:
    kind: ClassVar[Kind] = Kind.OPEN_RANGE
    way: Way
    start: date  # the first day of the range asked (since), or the first day it leaves out (before)

    def check(self, sql: Sql) -> Finding:
        kept = [days for c in sql.comparisons if (days := self._kept(c)) is not None]
        if not kept:
            return undecided(f"no comparison of a date column near {self.start.isoformat()} was found")
        if self.way is Way.SINCE:
            finding = self._since(kept)
            later = self._closed_later(sql)
            if finding.outcome is Outcome.PASS and later is not None:
                return undecided(
                    f"the SQL also stops at {later.isoformat()}; whether data goes on after it is not read"
                )
            return finding
        return self._before(kept)

    def _closed_later(self, sql: Sql) -> date | None:
        """An end put on the range after the named year (< '2023-01-01' for since 2020): the range
        asked runs to the latest data, which the tree does not know."""
        year_end = date(self.start.year, 12, 31)
        ends = [
            days.high
            for c in sql.comparisons
            if (days := self._kept(c, near=False)) is not None
            and not days.base
            and not days.point
            and days.high is not None
            and days.high > year_end
        ]
        return min(ends) if ends else None

    def _since(self, kept: list[Kept]) -> Finding:
        start, year_end = self.start, date(self.start.year, 12, 31)
        ranges = [k for k in kept if not k.base and not k.point]
        closing = [k for k in ranges if k.high is not None and start <= k.high <= year_end]
        lower = [k for k in ranges if k.low is not None and start - _SLACK <= k.low <= start]
        # The close a gain since the date starts from: max(…) before it, or that day written out.
        base = [
            k for k in kept if k.base or (k.point and k.low is not None and start - _BASE <= k.low < start)
        ]
        wrong_side = [k for k in ranges if k.high is not None and k.high < start]
        if closing:
            return failed(
                Attribution.TIME_SCOPE, f"the SQL keeps {start.year} only, not {start.year} and later"
            )
        if lower or base:
            return passed(f"the SQL keeps days from {start.isoformat()} on")
        if wrong_side:
            return failed(Attribution.TIME_SCOPE, f"the SQL keeps days before {start.isoformat()}, not after")
        # > '2020-12-31' for 2020年及以后 / 2020 or later: the named year itself left out
        next_year = year_end + timedelta(days=1)
        if start == date(start.year, 1, 1) and any(k.low == next_year and k.high is None for k in ranges):
            return failed(
                Attribution.TIME_SCOPE,
                f"the SQL keeps days from {next_year.isoformat()} on: {start.year} itself is left out",
            )
        return undecided("the SQL bounds the dates in ways that do not read as one range")

    def _before(self, kept: list[Kept]) -> Finding:
        start = self.start
        plain = [k for k in kept if not k.base and not k.point]
        upper = [k for k in plain if k.low is None and k.high is not None and start - _YEAR <= k.high < start]
        from_start = [k for k in plain if k.low is not None and k.low >= start - _SLACK]
        if upper and not from_start:
            return passed(f"the SQL keeps days before {start.isoformat()}")
        if from_start and not upper:
            closed = any(k.high is not None for k in from_start)
            what = f"{start.year} only" if closed else f"days from {start.isoformat()} on"
            return failed(Attribution.TIME_SCOPE, f"the SQL keeps {what}, not the days before")
        return undecided("the SQL bounds the dates in ways that do not read as one range")

    def _kept(self, comparison: Comparison, near: bool = True) -> Kept | None:
        columns = columns_of(comparison.subject)
        if (
            comparison.negated
            or comparison.op == "!="
            or not columns
            or not all(map(is_date_column, columns))
        ):
            return None
        point = comparison.op == "=" and comparison.day is not None
        if comparison.day is not None:
            low, high = _interval(comparison.op, comparison.day, comparison.day)
        elif comparison.number is not None and comparison.number == int(comparison.number):
            year = int(comparison.number)  # toYear(d) OP year
            if not 1900 < year < 2100:
                return None
            low, high = _interval(comparison.op, date(year, 1, 1), date(year, 12, 31))
        else:
            return None
        around = date(self.start.year - 1, 1, 1), date(self.start.year + 1, 12, 31)
        if near and not any(end is not None and around[0] <= end <= around[1] for end in (low, high)):
            return None
        conditional = _conditional_aggregate(comparison.node)
        if conditional is not None and conditional not in _LAST_BEFORE:
            return None
        select = comparison.select
        base = conditional is not None or (
            select is not None and any(p.find(exp.Max, exp.ArgMax) for p in select.expressions)
        )
        return Kept(low, high, base, point)


# Conditional aggregates whose condition finds the last value before a day (a gain's base close).
_LAST_BEFORE = {"argmaxif", "maxif", "anylastif"}


def _conditional_aggregate(node: exp.Expr) -> str | None:
    """The name of the -If aggregate (argMaxIf, countIf, …) that holds the comparison, if any."""
    ancestor = node.parent
    while ancestor is not None and not isinstance(ancestor, exp.Select):
        if isinstance(ancestor, (exp.CombinedAggFunc, exp.CountIf)) and function_name(ancestor).endswith(
            "if"
        ):
            return function_name(ancestor)
        ancestor = ancestor.parent
    return None


_SLACK = timedelta(days=7)  # ">= 2019-12-31" still starts the range at 2020
_YEAR = timedelta(days=366)
_BASE = timedelta(days=14)  # the last trading day before a date lies within two weeks of it


def _interval(op: str, first: date, last: date) -> tuple[date | None, date | None]:
    """The days `column OP value` keeps, for a value covering [first, last] (a day, or a year)."""
    one = timedelta(days=1)
    return {
        ">": (last + one, None),
        ">=": (first, None),
        "<": (None, first - one),
        "<=": (None, last),
        "=": (first, last),
    }[op]


def cue(question: Question, mention: DateMention) -> tuple[Way, int, int] | None:
    """The open range a named day or year starts or ends (2020年以来, before 2000), with its span."""
    cues = ((Way.SINCE, _SINCE_AFTER, _SINCE_BEFORE), (Way.BEFORE, _BEFORE_AFTER, _BEFORE_BEFORE))
    after, before = question.text[mention.end :], question.text[: mention.start]
    found: list[tuple[Way, int, int]] = []
    for way, trailing, leading in cues:
        if (match := trailing.match(after)) is not None:
            found.append((way, mention.start, mention.end + match.end()))
        elif (match := leading.search(before)) is not None:
            found.append((way, match.start(), mention.end))
    return found[0] if len(found) == 1 else None  # cues both ways: not an open range we can read


def extract(question: Question) -> list[Constraint]:
    constraints = []
    for mention in find_dates(question):
        cued = cue(question, mention)
        if cued is None or mention.yearless:
            continue  # no cue, or a day without its year (12月9日以来): the data's year is not known here
        way, start, end = cued
        first = mention.day or date(mention.year, 1, 1)
        span = question.span(start, end)
        text = question.says(
            f"{span.text}：{'不早于' if way is Way.SINCE else '早于'} {first.isoformat()}",
            f"{span.text}: {'from' if way is Way.SINCE else 'before'} {first.isoformat()}",
        )
        constraints.append(Constraint(span, text, question.lang, OpenRangeDetail(way, first)))
    return constraints
