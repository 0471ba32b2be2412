"""Shares and percentages: 占比 / 比例 / 百分比 / share of / percentage of → a ratio of counts or totals.

Passes when the SQL divides where one side is an aggregate (countIf(…) / count(), sum(x) / (SELECT
sum(x) …)) or averages a condition (avg(pct_chg > 0)); fails when it divides nothing, or when the
denominator is a subquery over other rows than the numerator's — a condition of the outer WHERE left
out (the whole market for the members of an index), or one total for every group — unless the question
names the whole as the base (占全市场, of the whole market). A part counted on rows its whole never
holds (countIf(pct_chg > 0) / countIf(pct_chg < 0): advancers over decliners) is a ratio of two sets,
not a share — unless the question names the base as another set (上涨家数是下跌家数的百分之几,
advancers as a percentage of decliners, a ratio).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import inf
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name, number_value

_CUE = re.compile(
    r"占比|比例|比重|百分比|百分之几"
    r"|\b(?:share of|percentage of|proportion of|proportion|what percent(?:age)?|fraction of)\b"
)
# The base named as another set, or a ratio asked: a part outside its base is then what is asked.
_OTHER_BASE = re.compile(
    r"之比|比值|相对于|相当于|对比|是.{1,15}的(?:百分之几|百分比|几成|比例)|与.{1,15}的比例"
    r"|\b(?:as an? (?:percentage|share|proportion|fraction|multiple) of|ratio|relative to|versus|vs|"
    r"compared (?:with|to))\b",
    re.IGNORECASE,
)
_WEIGHT = "weight"  # index_weight.weight: a constituent's share of its index, in percent
_CONDITIONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.If)


# A base the question names as the whole (占全市场的比例, share of the whole market): a denominator wider
# than the numerator's rows is then what is asked.
_WHOLE_BASE = re.compile(
    r"全市场|全部|所有|整个|两市|全A"
    r"|\b(?:whole|entire|all stocks|all companies|the market'?s? total|of the market)\b",
    re.IGNORECASE,
)


def _conjuncts(select: exp.Select) -> set[str]:
    """The WHERE conditions of a SELECT, written without table qualifiers."""
    where = select.args.get("where")
    if not isinstance(where, exp.Where):
        return set()
    parts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]

    def unqualified(node: exp.Expr) -> exp.Expr:
        return exp.column(node.name) if isinstance(node, exp.Column) else node

    joins = [
        part
        for part in parts
        if isinstance(part, exp.EQ)
        and isinstance(part.this, exp.Column)
        and isinstance(part.expression, exp.Column)
    ]  # a join written in WHERE is no condition
    return {
        part.copy().transform(unqualified).sql(dialect="clickhouse") for part in parts if part not in joins
    }


def _conditional(numerator: exp.Expr) -> bool:
    """countIf(pct_chg > 0), sum(n < 0), avgIf(…): the numerator carries its own condition, so the
    outer WHERE and GROUP BY say which rows the share is of."""
    for node in numerator.find_all(exp.AggFunc, exp.Anonymous, exp.CombinedAggFunc):
        if function_name(node).endswith("if") or any(node.find(condition) for condition in _CONDITIONS):
            return True
    return False


def _narrower_base(division: exp.Div) -> str | None:
    """Why a share's denominator, a scalar subquery, counts other rows than its numerator: it leaves
    out a condition of the outer WHERE, or one total serves every group of a GROUP BY."""
    denominator = division.expression
    while isinstance(denominator, exp.Paren):
        denominator = denominator.this
    outer = division.find_ancestor(exp.Select)
    if (
        not (isinstance(denominator, exp.Subquery) and isinstance(denominator.this, exp.Select))
        or outer is None
    ):
        return None
    if not _conditional(division.this):
        return None  # count() / (…): the outer WHERE holds the numerator's own condition
    inner = denominator.this
    left_out = _conjuncts(outer) - _conjuncts(inner)
    if left_out:
        return f"the denominator leaves out {sorted(left_out)[0]}"
    outer_names = {
        source.alias_or_name
        for source in outer.find_all(exp.Table)
        if source.find_ancestor(exp.Subquery) is None
    }
    correlated = any(column.table in outer_names for column in inner.find_all(exp.Column) if column.table)
    if outer.args.get("group") and not correlated:
        return "one total of every row divides each group's figure"
    return None


def _without_factors(node: exp.Expr) -> exp.Expr:
    """The expression without parentheses and constant factors (100 * count() → count())."""
    while True:
        if isinstance(node, exp.Paren):
            node = node.this
        elif isinstance(node, exp.Mul) and isinstance(node.this, exp.Literal):
            node = node.expression
        elif isinstance(node, exp.Mul) and isinstance(node.expression, exp.Literal):
            node = node.this
        else:
            return node


def _divided_by_itself(division: exp.Div) -> bool:
    """100 * count() / count(): a share whose numerator is its denominator, 100% for every group —
    the condition of the part filtered the whole too."""
    numerator, denominator = _without_factors(division.this), _without_factors(division.expression)
    return numerator.find(exp.AggFunc) is not None and numerator == denominator


def _condition(aggregate: exp.Expr) -> exp.Expr | None:
    """The condition of countIf(c) / sumIf(x, c)."""
    if isinstance(aggregate, exp.CountIf):
        return aggregate.this
    if isinstance(aggregate, exp.CombinedAggFunc) and function_name(aggregate).endswith("if"):
        return aggregate.expressions[-1] if aggregate.expressions else None
    return None


def _bounds(condition: exp.Expr) -> tuple[str, float, float, bool, bool] | None:
    """column OP number as (column, low, high, low included, high included)."""
    ops: dict[type[exp.Expr], str] = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=", exp.EQ: "="}
    op = ops.get(type(condition))
    if op is None:
        return None
    subject, value = condition.this, number_value(condition.expression)
    if value is None and (value := number_value(condition.this)) is not None:
        subject, op = condition.expression, {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}[op]
    if not isinstance(subject, exp.Column) or value is None:
        return None
    low, high = (value, inf) if op in (">", ">=") else (-inf, value) if op in ("<", "<=") else (value, value)
    return subject.name.lower(), low, high, op != ">", op != "<"


def _disjoint_part(division: exp.Div) -> str | None:
    """The part's and the whole's conditions on one column, with no value in both."""
    part, whole = (
        _bounds(c) if (c := _condition(_without_factors(side))) else None
        for side in (division.this, division.expression)
    )
    if part is None or whole is None or part[0] != whole[0]:
        return None
    _, low_a, high_a, low_in_a, high_in_a = part
    _, low_b, high_b, low_in_b, high_in_b = whole
    low, low_in = max((low_a, low_in_a), (low_b, low_in_b), key=lambda bound: (bound[0], not bound[1]))
    high, high_in = min((high_a, high_in_a), (high_b, high_in_b), key=lambda bound: (bound[0], bound[1]))
    overlap = low < high or (low == high and low_in and high_in)
    return None if overlap else division.this.sql(dialect="clickhouse")


@dataclass(frozen=True)
class PercentageDetail:
    kind: ClassVar[Kind] = Kind.PERCENTAGE
    whole_base: bool = False  # the question names the whole market as the base
    of_weight: bool = False  # a share of an index's weight (权重占比, share of the weight)
    other_base: bool = False  # the base named as another set (是下跌家数的百分之几), or a ratio asked

    def check(self, sql: Sql) -> Finding:
        if self.of_weight and any(columns_of(total) == {_WEIGHT} for total in sql.tree.find_all(exp.Sum)):
            return passed("index weights are shares of their index: a sum of them is a share")
        divisions = list(sql.tree.find_all(exp.Div))
        if any(_divided_by_itself(division) for division in divisions):
            return failed(
                Attribution.AGGREGATION,
                "the share divides an aggregate by itself: the part's condition filters the whole too, "
                "every share is 100%",
            )
        outside = [part for division in divisions if (part := _disjoint_part(division)) is not None]
        if outside and not self.other_base:
            return failed(
                Attribution.AGGREGATION,
                f"the share's part ({outside[0]}) counts rows its whole never holds: a ratio of two sets, "
                "not a share",
            )
        narrower = [reason for div in divisions if (reason := _narrower_base(div)) is not None]
        if narrower and not self.whole_base:
            return failed(Attribution.AGGREGATION, f"the share is not of the rows asked: {narrower[0]}")
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
    weight = question.metric_after(cue.end(), 8) or question.metric_before(cue.start(), 4)
    detail = PercentageDetail(
        whole_base=_WHOLE_BASE.search(question.text) is not None,
        of_weight=weight is not None and weight[1].columns == {_WEIGHT},
        other_base=_OTHER_BASE.search(question.text) is not None,
    )
    return [Constraint(span, text, question.lang, detail)]
