"""Levels and ratios are not added up: a price, a per-share figure, a multiple or a percentage ratio
the question names (基本每股收益, 收盘价, P/E, ROE) summed over rows is no figure of it.

Adding the cumulative EPS of four report periods, or the P/E of several days, answers nothing the
question asks; money and share amounts (flows and holdings), daily changes and turnover (which add
up over days) and index weights (parts of a whole) may be summed. Unless the question asks for a
sum (合计, 累计, sum of, in total), a sum() whose argument is the named measure's column fails — not
the numerator of a division (an average written out).
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
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, first_argument, function_name, strip
from backend.domain.pipeline.validate.checklist.vocabulary import Category, MetricInfo

_SUM_ASKED = re.compile(
    r"合计|总和|总计|之和|加总|累计|求和"
    r"|\b(?:sum|sums|summed|total|in total|combined|cumulative|add(?:ed)? up)\b",
    re.IGNORECASE,
)
# Measures whose values add up: daily changes and turnover over days, index weights over members.
_ADDING_UP = {"pct_chg", "change", "turnover_rate", "weight"}
_SUMS = {"sumif", "sumornull", "sumkahan"}


def _level_or_ratio(metric: MetricInfo) -> bool:
    return (
        not metric.derived
        and metric.unit_kind not in ("money", "shares")
        and not metric.columns & _ADDING_UP
        and not metric.negated
    )


def _averaged(node: exp.Expr) -> bool:
    """sum(close) / 20, sum(x) / count(): an average written out."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    return isinstance(parent, exp.Div) and parent.this is node


@dataclass(frozen=True)
class AdditiveDetail:
    kind: ClassVar[Kind] = Kind.ADDITIVE
    column: str

    def check(self, sql: Sql) -> Finding:
        for node in sql.tree.find_all(exp.Sum, exp.Anonymous, exp.CombinedAggFunc):
            if not (isinstance(node, exp.Sum) or function_name(node) in _SUMS):
                continue
            if _averaged(node):
                continue
            argument = first_argument(node)
            summed = strip(argument) if argument is not None else None
            if isinstance(summed, exp.Column) and summed.name.lower() == self.column:
                return failed(
                    Attribution.AGGREGATION,
                    f"the SQL adds up {self.column}, a level or ratio that does not add up",
                )
        return passed(f"{self.column} is not summed")


def extract(question: Question) -> list[Constraint]:
    if _SUM_ASKED.search(question.text):
        return []
    found: list[Constraint] = []
    seen: set[str] = set()
    for hit in question.hits_of(Category.METRIC):
        metric = question.vocabulary.metrics[hit.key]
        if hit.key in seen or not _level_or_ratio(metric):
            continue
        seen.add(hit.key)
        column = next(iter(metric.columns))
        span = question.span(hit.start, hit.end)
        text = question.says(f"“{span.text}”：不可相加", f"“{span.text}”: not added up")
        found.append(Constraint(span, text, question.lang, AdditiveDetail(column)))
    return found
