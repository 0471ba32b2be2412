"""A single quarter's figure (单季 / 单季度 / the fourth quarter alone / a single quarter): report
figures are cumulative from January, so a quarter other than the first is its period minus the
period before (Q3 alone = Jan–Sep − Jan–Jun).

A SQL that names one report period only, other than a March 31 one, and reads no neighbouring row
(lagInFrame, neighbor, arrays, a self-join on another period) ranks or filters the cumulative figure.
A SQL that names no period day at all is undecidable here (the date kind judges the period).
A SQL that names exactly two periods of one year, the later not a March 31 one, subtracts the earlier:
unless it is the quarter end right before (Q3 − H1), the difference spans several quarters (Q3 − Q1 is
Q2 + Q3) — undecidable when a neighbouring row or a range of days may read the period between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, date_value, function_name

_CUE = re.compile(
    r"单季度?|单一季度|\b(?:quarter|q[1-4])(?: of (?:fy\s?)?\d{4})? alone\b"
    r"|\b(?:single|standalone|stand-alone|discrete) quarter\b"
)
# Functions that read a neighbouring row or a series: the previous period may be read through them.
_NEIGHBOURS = {
    "laginframe", "leadinframe", "lag", "lead", "neighbor", "grouparray", "arraydifference",
    "arrayelement", "argmin", "argmax", "anylast", "any",
}  # fmt: skip
_QUARTER_ENDS = {(3, 31), (6, 30), (9, 30), (12, 31)}


@dataclass(frozen=True)
class SingleQuarterDetail:
    kind: ClassVar[Kind] = Kind.SINGLE_QUARTER

    def check(self, sql: Sql) -> Finding:
        periods = sorted({day for day in sql.dates if (day.month, day.day) in _QUARTER_ENDS})
        if len(periods) == 2 and (wrong := _skipped_quarter(periods[0], periods[1])):
            if _reads_between(sql):
                return undecided("the period between may be read by a neighbouring row or a range of days")
            earlier, later = (day.isoformat() for day in periods)
            return failed(
                Attribution.TIME_SCOPE,
                f"the SQL subtracts the period ending {earlier} from {later}: that leaves more than one "
                f"quarter (the quarter alone needs {wrong.isoformat()})",
            )
        if len(periods) >= 2:
            return passed(f"the SQL reads {len(periods)} report periods: a quarter can be taken out")
        if not periods:
            return undecided("the SQL names no report period day")
        if (periods[0].month, periods[0].day) == (3, 31):
            return passed("the first quarter's cumulative figure is the quarter itself")
        if _reads_neighbours(sql):
            return undecided("the previous period may be read through a neighbouring row")
        return failed(
            Attribution.TIME_SCOPE,
            f"the SQL reads only the period ending {periods[0].isoformat()}: the cumulative figure "
            "from January, not the quarter alone",
        )


def _skipped_quarter(earlier: date, later: date) -> date | None:
    """The period right before a later one of the same year, when the earlier one is not it."""
    if earlier.year != later.year or later.month == 3:
        return None
    before = date(later.year, later.month - 3, 30 if later.month - 3 in (6, 9) else 31)
    return before if earlier != before else None


def _reads_neighbours(sql: Sql) -> bool:
    return any(function_name(node) in _NEIGHBOURS for node in sql.nodes() if isinstance(node, exp.Func))


def _reads_between(sql: Sql) -> bool:
    """A neighbouring row, or a day compared as a bound (end_date >= '2025-03-31'): more periods read."""
    bounds = (exp.Between, exp.GT, exp.GTE, exp.LT, exp.LTE)
    return _reads_neighbours(sql) or any(
        isinstance(node.parent, bounds) and date_value(node) is not None
        for node in sql.nodes()
        if isinstance(node, exp.Literal) and node.is_string
    )


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：单季数字 = 本期累计 − 上期累计", f"“{span.text}”: the period minus the one before"
    )
    return [Constraint(span, text, question.lang, SingleQuarterDetail())]
