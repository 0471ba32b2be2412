"""Conditions the question joins with 且 / 和 / and (no 或 / or / either anywhere) must all hold: a SQL
that puts two of them on different sides of an OR in its WHERE, HAVING or ON keeps the stocks that
meet either one.

The conditions are the thresholds the number kind reads on stored columns; an OR between conditions
on the same column (pe < 0 OR pe > 100) or inside a computed value (countIf(a OR b)) is not judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import number
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of

_ALTERNATIVES = re.compile(r"或|或者|要么|之一|\b(?:or|either|any of)\b")
_CONNECTIVES = (exp.And, exp.Or, exp.Paren)


@dataclass(frozen=True)
class ConjunctionDetail:
    kind: ClassVar[Kind] = Kind.CONJUNCTION
    columns: frozenset[str]  # the columns of the conditions that must all hold

    def check(self, sql: Sql) -> Finding:
        for node in sql.nodes():
            if not isinstance(node, exp.Or) or not decides_rows(node):
                continue
            sides = [columns_of(branch) & self.columns for branch in or_branches(node)]
            named = [side for side in sides if side]
            if len(named) >= 2 and len(set().union(*named)) >= 2:
                joined = " OR ".join(sorted("/".join(sorted(side)) for side in named))
                return failed(
                    Attribution.CONDITION,
                    f"the conditions on {joined} are alternatives; the question asks all",
                )
        return passed(f"no OR sets the conditions on {', '.join(sorted(self.columns))} apart")


def or_branches(node: exp.Expr) -> list[exp.Expr]:
    """The operands of a chain of ORs (a OR b OR c)."""
    node = node.this if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.Or):
        return [*or_branches(node.this), *or_branches(node.expression)]
    return [node]


def decides_rows(node: exp.Expr) -> bool:
    """Whether the OR decides which rows are kept: under AND/OR only, up to a WHERE, HAVING or ON."""
    parent = node.parent
    while isinstance(parent, _CONNECTIVES):
        parent = parent.parent
    return isinstance(parent, exp.Where | exp.Having | exp.Join)


def extract(question: Question) -> list[Constraint]:
    if _ALTERNATIVES.search(question.text):
        return []
    thresholds = [
        c for c in number.extract(question) if isinstance(c.detail, number.NumberDetail) and c.detail.column
    ]
    columns = frozenset(c.detail.column for c in thresholds if isinstance(c.detail, number.NumberDetail))
    if len(columns) < 2:
        return []
    first, last = min(c.span.start for c in thresholds), max(c.span.end for c in thresholds)
    span = question.span(first, last)
    shown = " / ".join(sorted(columns))
    text = question.says(f"{shown} 的条件须同时满足", f"the conditions on {shown} must all hold")
    return [Constraint(span, text, question.lang, ConjunctionDetail(columns))]
