"""A single quarter's figure (单季 / 单季度 / the fourth quarter alone / a single quarter): report
figures are cumulative from January, so a quarter other than the first is its period minus the
period before (Q3 alone = Jan–Sep − Jan–Jun).

A SQL that names one report period only, other than a March 31 one, and reads no neighbouring row
(lagInFrame, neighbor, arrays, a self-join on another period) ranks or filters the cumulative figure.
A SQL that names no period day at all is undecidable here (the date kind judges the period).
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, function_name

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
        if len(periods) >= 2:
            return passed(f"the SQL reads {len(periods)} report periods: a quarter can be taken out")
        if not periods:
            return undecided("the SQL names no report period day")
        if (periods[0].month, periods[0].day) == (3, 31):
            return passed("the first quarter's cumulative figure is the quarter itself")
        if any(function_name(node) in _NEIGHBOURS for node in sql.nodes() if isinstance(node, exp.Func)):
            return undecided("the previous period may be read through a neighbouring row")
        return failed(
            Attribution.TIME_SCOPE,
            f"the SQL reads only the period ending {periods[0].isoformat()}: the cumulative figure "
            "from January, not the quarter alone",
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
