"""Counts: 多少只 / 几家 / 数量 / 家数 / how many / number of → count(), countIf, uniq…

Rows listed where a number was asked answer a different question. A sum over a condition
(sum(pct_chg > 0), sum(if(…, 1, 0))) may be a count written by hand: undecidable.
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
    r"多少\s*(?:只|家|个|支|种)|几\s*(?:只|家|个|支)|数量|家数|个数|只数"
    r"|\bhow many\b(?!\s+shares)|\bnumber of\b(?!\s+shares)|\bcount of\b"
)


@dataclass(frozen=True)
class CountDetail:
    kind: ClassVar[Kind] = Kind.COUNT

    def check(self, sql: Sql) -> Finding:
        counting = {name for name in sql.functions if name.startswith(("count", "uniq", "approxdistinct"))}
        if counting:
            return passed(f"the SQL counts ({', '.join(sorted(counting))})")
        for node in sql.nodes():
            if isinstance(node, exp.Sum) and node.find(
                exp.If, exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NEQ
            ):
                return undecided("a sum over a condition may count the rows")
        if "length" in sql.functions or "arraycount" in sql.functions:
            return undecided("an array length may count the rows")
        return failed(
            Attribution.INTENT, "the question asks how many, the SQL returns rows without counting them"
        )


def extract(question: Question) -> list[Constraint]:
    # One count constraint per question: every cue asks the same thing of the SQL.
    cue = next((match for match in _CUE.finditer(question.text) if not question.covered(match.start())), None)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(f"“{span.text}”：结果是计数", f"“{span.text}”: the answer is a count")
    return [Constraint(span, text, question.lang, CountDetail())]
