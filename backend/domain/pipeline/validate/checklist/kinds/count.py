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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, function_name, number_value

_CUE = re.compile(
    r"多少\s*(?:只|家|个|支|种)|几\s*(?:只|家|个|支)|数量|家数|个数|只数"
    r"|\bhow many\b(?!\s+shares)|\bnumber of\b(?!\s+shares)|\bcount of\b"
)


@dataclass(frozen=True)
class CountDetail:
    kind: ClassVar[Kind] = Kind.COUNT

    def check(self, sql: Sql) -> Finding:
        tree = sql.tree
        if not isinstance(tree, exp.Select):
            return undecided("the output of a combined query is not read")
        # What the answer shows: the outer projections, through the subqueries they come from.
        shown = [sql.resolve(projection, tree) for projection in tree.expressions]
        counting = {
            function_name(node)
            for projection in shown
            for node in projection.find_all(exp.Func)
            if function_name(node).startswith(("count", "uniq", "approxdistinct"))
        }
        if counting:
            return passed(f"the answer is counted ({', '.join(sorted(counting))})")
        if any(_sums_a_condition(projection) for projection in shown):
            return undecided("a sum over a condition (or of 1) may count the rows")
        if any(
            function_name(node) in {"length", "arraycount", "size"}
            for p in shown
            for node in p.find_all(exp.Func)
        ):
            return undecided("an array length may count the rows")
        return failed(
            Attribution.INTENT, "the question asks how many, the SQL returns rows without counting them"
        )


def _sums_a_condition(node: exp.Expr) -> bool:
    conditions = (exp.If, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
    return any(
        total.find(*conditions) or number_value(total.this) is not None for total in node.find_all(exp.Sum)
    )


def extract(question: Question) -> list[Constraint]:
    # One count constraint per question: every cue asks the same thing of the SQL.
    cue = next((match for match in _CUE.finditer(question.text) if not question.covered(match.start())), None)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(f"“{span.text}”：结果是计数", f"“{span.text}”: the answer is a count")
    return [Constraint(span, text, question.lang, CountDetail())]
