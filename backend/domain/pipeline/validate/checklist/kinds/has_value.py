"""Rows that have a figure (有市盈率的科创板公司, 有PE数据的, stocks with a P/E, companies that have a
P/B) are those whose stored column is not NULL: a loss maker has no P/E, and counted among the rows
it changes a share or a count.

The SQL must test that column on its rows: a null test (IS NOT NULL, isNotNull, count(pe)), or any
comparison of it in a WHERE, HAVING, QUALIFY or ON outside aggregates and conditional expressions
(pe > 0, pe > avg: NULL never passes one). Read only inside a CASE, an -If aggregate or an average
(the rows kept whole), the condition was left out (`condition`). Ranked by the column alone
(NULLs sort last) is undecidable. In English only the figure alone is read (with a P/E, …): a word
after it (with a P/E below 10, with revenue up 30%) makes a condition of another kind.
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name
from backend.domain.pipeline.validate.checklist.vocabulary import Category

# 有 right before the figure (not 没有 / 是否有), the figure then 的 / 数据的 / 值的: a modifier of rows.
_ZH_BEFORE = re.compile(r"(?<![没是否])有\s*$")
_ZH_AFTER = re.compile(r"\s*(?:数据|数值|值|记录)?的")
_EN_BEFORE = re.compile(
    r"\b(?:with|that have|which have|having|who have|that has|which has)\s+"
    r"(?:a |an |any |valid |reported )?$",
    re.IGNORECASE,
)
# Only the figure itself (with a P/E, what share …; with a P/E and …): a word after it (with a P/E below
# 10, with revenue up 30%, with volume rising) makes it a condition of the number or a move kind.
_EN_ENDS_AFTER = re.compile(r"\s*(?:$|[,.;?)]|(?:and|among|who|that|which)\b)", re.IGNORECASE)
_NULL_FUNCTIONS = {"isnotnull", "assumenotnull", "notempty"}
# Where a comparison of the column is only a value computed for the rows, not a test of them.
_VALUE_ONLY = (exp.AggFunc, exp.Case, exp.If, exp.Window)
_CLAUSES = (exp.Where, exp.Having, exp.Qualify, exp.Join)


def _filters_rows(column: exp.Column) -> bool:
    """The column sits in a condition of a clause that keeps rows, outside aggregates and cases."""
    node: exp.Expr | None = column.parent
    in_predicate = False
    while node is not None and not isinstance(node, exp.Select):
        if isinstance(node, _VALUE_ONLY) or (
            isinstance(node, exp.Func) and function_name(node).endswith("if")
        ):
            return False
        if isinstance(node, exp.Predicate):
            in_predicate = True
        if isinstance(node, _CLAUSES):
            return in_predicate
        node = node.parent
    return False


def _null_tested(node: exp.Expr, columns: frozenset[str]) -> bool:
    if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
        return isinstance(node.this.expression, exp.Null) and bool(columns_of(node.this.this) & columns)
    if isinstance(node, exp.Func) and function_name(node) in _NULL_FUNCTIONS | {"count"}:
        arguments = [arg for arg in node.iter_expressions()]
        return len(arguments) == 1 and isinstance(arguments[0], exp.Column) and arguments[0].name in columns
    return False


@dataclass(frozen=True)
class HasValueDetail:
    kind: ClassVar[Kind] = Kind.HAS_VALUE
    columns: frozenset[str]

    def check(self, sql: Sql) -> Finding:
        named = "/".join(sorted(self.columns))
        if any(_null_tested(node, self.columns) for node in sql.nodes()):
            return passed(f"{named} is tested for a value")
        read = [column for column in sql.tree.find_all(exp.Column) if column.name.lower() in self.columns]
        if any(_filters_rows(column) for column in read):
            return passed(f"{named} is compared in a condition on the rows (NULL never passes)")
        if any(isinstance(column.find_ancestor(exp.Order, exp.Select), exp.Order) for column in read):
            return undecided(f"the rows are ranked by {named}; NULLs sort last")
        return failed(
            Attribution.CONDITION,
            f"no condition keeps only rows with a {named}; the rows without one are counted too",
        )


def extract(question: Question) -> list[Constraint]:
    found = []
    for hit in question.hits_of(Category.METRIC):
        metric = question.vocabulary.metrics[hit.key]
        if metric.derived or len(metric.columns) != 1:
            continue
        before = question.text[max(0, hit.start - 20) : hit.start]
        zh = _ZH_BEFORE.search(before) and _ZH_AFTER.match(question.text, hit.end)
        en = _EN_BEFORE.search(before) and _EN_ENDS_AFTER.match(question.text, hit.end)
        if not (zh or en):
            continue
        span = question.span(hit.start, hit.end)
        text = question.says(
            f"“有{span.text}的”：{next(iter(metric.columns))} 不为空",
            f"“with a {span.text}”: {next(iter(metric.columns))} is not NULL",
        )
        found.append(Constraint(span, text, question.lang, HasValueDetail(metric.columns)))
    return found
