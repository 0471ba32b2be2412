"""Distinct values: 不同的 / 不重复 / 去重 / 多少种 / distinct / unique → DISTINCT, uniq…,
count(DISTINCT …) or GROUP BY."""

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
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql

_CUE = re.compile(r"不同的?|不重复|去重|多少种|\b(?:distinct|unique|how many different)\b")
_DEDUPLICATING = ("uniq", "countdistinct", "groupuniqarray", "arraydistinct", "approxdistinct")


@dataclass(frozen=True)
class DistinctDetail:
    kind: ClassVar[Kind] = Kind.DISTINCT

    def check(self, sql: Sql) -> Finding:
        if any(select.args.get("distinct") or select.args.get("group") for select in sql.selects):
            return passed("the SQL removes duplicates (DISTINCT or GROUP BY)")
        if any(name.startswith(_DEDUPLICATING) for name in sql.functions) or sql.tree.find(exp.Distinct):
            return passed("the SQL counts or collects distinct values")
        return failed(
            Attribution.AGGREGATION, "the question asks for distinct values, the SQL keeps duplicates"
        )


def extract(question: Question) -> list[Constraint]:
    cue = next((match for match in _CUE.finditer(question.text) if not question.covered(match.start())), None)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(f"“{span.text}”：去重", f"“{span.text}”: without duplicates")
    return [Constraint(span, text, question.lang, DistinctDetail())]
