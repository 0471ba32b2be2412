"""A share or a gain asked in percent (百分之多少, 占比是多少, in %, (%), what percentage of) is shown in
percentage points, like the stored pct_chg: 12.5 for 12.5%.

Judged on the outer SELECT's figures that are a ratio of two computed quantities (countIf(…) / count(),
a later close over an earlier one minus 1, avg of a condition) and read no column stored in percent
(sum(pct_chg) / count() is already in points): the constant factor on the ratio is 100 for percent; a
factor of 1 shows a fraction (0.125), which fails (`unit`) when no figure of the answer is in points.
No such ratio shown (the answer is a stored rate, or the ratio is written another way): not read.
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
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    close,
    first_argument,
    function_name,
    number_value,
    strip,
)

# Percent said outright: a share alone (占比是多少, what share) has been answered as a fraction too.
_CUE = re.compile(
    r"百分之多少|百分之几|百分比(?:是|为)?多少|[（(]\s*%\s*[)）]"
    r"|\b(?:what|which) (?:percentage|percent)\b|\bin (?:%|percent\b)|\bas a percent(?:age)?\b"
)
# Functions that keep the scale of their first argument.
_KEEPS_SCALE = {
    "round", "tofloat64", "tofloat32", "todecimal64", "ifnull", "coalesce", "any", "anylast",
    "avg", "median", "quantile", "min", "max", "argmax", "argmin",
}  # fmt: skip
_CONDITIONS = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ, exp.NEQ, exp.And, exp.Or, exp.Not)


def _factor(node: exp.Expr) -> float:
    """The constant a product multiplies by (100 * countIf(…) → 100); 1 with none."""
    node = strip(node)
    if isinstance(node, exp.Mul):
        left, right = number_value(node.this), number_value(node.expression)
        if left is not None:
            return left * _factor(node.expression)
        if right is not None:
            return right * _factor(node.this)
    return 1.0


def _ratio_scale(node: exp.Expr) -> float | None:
    """The constant factor on a ratio of two computed quantities in `node`; None when it is no such ratio."""
    node = strip(node)
    if isinstance(node, exp.Avg) and isinstance(strip(node.this), _CONDITIONS):
        return 1.0  # the share of rows meeting a condition
    if isinstance(node, exp.Func) and function_name(node) in _KEEPS_SCALE:
        first = first_argument(node)
        return None if first is None else _ratio_scale(first)
    if isinstance(node, exp.Add | exp.Sub):
        left, right = number_value(node.this), number_value(node.expression)
        if right is not None:
            return _ratio_scale(node.this)
        if left is not None:
            return _ratio_scale(node.expression)
        return None
    if isinstance(node, exp.Mul | exp.Div):
        left, right = number_value(node.this), number_value(node.expression)
        if right is not None and right != 0:
            inner = _ratio_scale(node.this)
            return None if inner is None else (inner * right if isinstance(node, exp.Mul) else inner / right)
        if left is not None and isinstance(node, exp.Mul):
            inner = _ratio_scale(node.expression)
            return None if inner is None else inner * left
        if isinstance(node, exp.Div) and left is None and right is None:
            return _factor(node.this) / _factor(node.expression)
    return None


def _values_read(node: exp.Expr) -> set[str]:
    """The columns a figure reads as values: not those only tested in a condition (countIf(roe > 10))."""
    tested = {
        id(column) for condition in node.find_all(*_CONDITIONS) for column in condition.find_all(exp.Column)
    }
    return {column.name.lower() for column in node.find_all(exp.Column) if id(column) not in tested}


@dataclass(frozen=True)
class PercentShownDetail:
    kind: ClassVar[Kind] = Kind.PERCENT_SHOWN
    stored_percent: frozenset[str]  # columns stored in percentage points: a ratio of them is no fraction

    def check(self, sql: Sql) -> Finding:
        tree = sql.tree
        if not isinstance(tree, exp.Select):
            return undecided("the figures of a combined query are not read")
        scales = []
        for projection in tree.expressions:
            figure = sql.resolve(projection.unalias(), tree)
            if _values_read(figure) & self.stored_percent:
                continue
            scale = _ratio_scale(figure)
            if scale is not None:
                scales.append(scale)
        if any(close(scale, 100) for scale in scales):
            return passed("a ratio is shown times 100, in percentage points")
        if any(close(scale, 1) for scale in scales):
            return failed(
                Attribution.UNIT,
                "the ratio is shown as a fraction (0.125 for 12.5%); percent asked: times 100",
            )
        return undecided("no ratio of computed quantities is shown, or its scale is not read")


def extract(question: Question) -> list[Constraint]:
    cue = question.first_cue(_CUE)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    stored = frozenset(
        column
        for metric in question.vocabulary.metrics.values()
        if metric.percent and not metric.derived
        for column in metric.columns
    )
    text = question.says(
        f"“{span.text}”：比例以百分数显示（乘以100）",
        f"“{span.text}”: the share shown in percent (times 100)",
    )
    return [Constraint(span, text, question.lang, PercentShownDetail(stored))]
