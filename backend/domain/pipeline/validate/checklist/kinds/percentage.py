"""Shares and percentages: 占比 / 比例 / 百分比 / share of / percentage of → a ratio of counts or totals.

Passes when the SQL divides where one side is an aggregate (countIf(…) / count(), sum(x) / (SELECT
sum(x) …)) or averages a condition (avg(pct_chg > 0)); fails when it divides nothing.
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql

_CUE = re.compile(
    r"占比|比例|比重|百分比|百分之几"
    r"|\b(?:share of|percentage of|proportion of|proportion|what percent(?:age)?|fraction of)\b"
)
_CONDITIONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.If)


@dataclass(frozen=True)
class PercentageDetail:
    kind: ClassVar[Kind] = Kind.PERCENTAGE

    def check(self, sql: Sql) -> Finding:
        divisions = list(sql.tree.find_all(exp.Div))
        if any(
            side.find(exp.AggFunc, exp.Subquery) for div in divisions for side in (div.this, div.expression)
        ):
            return passed("the SQL divides an aggregate")
        if any(avg.find(*_CONDITIONS) for avg in sql.tree.find_all(exp.Avg)):
            return passed("the SQL averages a condition (a share of rows)")
        if not divisions:
            return failed(Attribution.INTENT, "the question asks for a share, the SQL computes no ratio")
        return undecided("the SQL divides, but not an aggregate: whether it is the share asked is not read")


def extract(question: Question) -> list[Constraint]:
    cue = next((match for match in _CUE.finditer(question.text) if not question.covered(match.start())), None)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(f"“{span.text}”：结果是占比", f"“{span.text}”: the answer is a share")
    return [Constraint(span, text, question.lang, PercentageDetail())]
