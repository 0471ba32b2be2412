"""A threshold on an average, not on each row: 平均ROE超过10%的行业, industries whose average P/E is
below 20, 近一年日均成交额超过1亿 — the number bounds an aggregate of the metric (HAVING avg(roe) > 10,
or an average read from a subquery), not the metric of each row before grouping (WHERE roe > 10 keeps
the stocks above 10 and averages them).

The threshold is the number kind's, bound to a metric column, with an average word right before the
metric. Among the comparisons of the SQL with a writing of the number: one whose side averages (an
aggregate, through aliases and subquery outputs) passes; when each is the plain column, the filter is
applied row by row (`aggregation`); anything else (a formula, no comparison with the number) is left
undecided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import number
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, close, function_name, strip

# An average word right before the metric (平均ROE, 日均成交额, the average P/E, mean daily turnover).
_AVERAGE_BEFORE = re.compile(
    r"(?:平均|日均|均值)\s*(?:的\s*)?$|\b(?:average|mean|median)\s+(?:daily\s+)?$|中位数\s*(?:的\s*)?$"
)
_AGGREGATE_NAMES = re.compile(r"^(?:avg|median|quantile|sum|count)")


@dataclass(frozen=True)
class AggregateThresholdDetail:
    kind: ClassVar[Kind] = Kind.AGGREGATE_THRESHOLD
    column: str
    writings: tuple[float, ...]  # the threshold's writings in the column's stored unit
    said: str  # the threshold as the question writes it

    def check(self, sql: Sql) -> Finding:
        found = [
            c
            for c in sql.comparisons
            if c.number is not None and any(close(c.number, writing) for writing in self.writings)
        ]
        if any(_aggregates(c.subject) for c in found):
            return passed(f"the threshold of “{self.said}” bounds an aggregate of {self.column}")
        plain = [c for c in found if _plain_column(c.subject) == self.column]
        if plain and len(plain) == len(found):
            return failed(
                Attribution.AGGREGATION,
                f"{self.column} is compared with the threshold of “{self.said}” row by row, before any "
                f"average: the question bounds the average (HAVING, or the aggregate's own column)",
            )
        return undecided(f"the threshold of “{self.said}” is not compared with {self.column} or its average")


def _aggregates(node: exp.Expr) -> bool:
    return any(
        isinstance(item, exp.AggFunc) or _AGGREGATE_NAMES.match(function_name(item)) is not None
        for item in node.walk()
        if isinstance(item, exp.Func)
    )


def _plain_column(node: exp.Expr) -> str | None:
    node = strip(node)
    return node.name.lower() if isinstance(node, exp.Column) else None


# An average of a metric further before the threshold, in the same clause: industries whose average
# ROE in the 2024 annual report was above 8%; 平均市盈率在今年一直低于20.
_AVERAGE_CUE = re.compile(r"平均|日均|均值|\b(?:average|mean|median)\s+(?:daily\s+)?")
_CLAUSE_BREAK = re.compile(r"[，,。；;？?！!—]|\b(?:and|or|with|where|that)\b")
_REACH = {Lang.ZH: 20, Lang.EN: 48}


def _averaged_metric(question: Question, start: int) -> str | None:
    """The single column of the metric right after the last average word of the clause before `start`."""
    window = question.text[max(0, start - _REACH[question.lang]) : start]
    offset = start - len(window)
    cues = list(_AVERAGE_CUE.finditer(window))
    if not cues or _CLAUSE_BREAK.search(window, cues[-1].end()):
        return None
    bound = question.metric_after(offset + cues[-1].end(), 1)
    columns = bound[1].columns if bound is not None else frozenset()
    return next(iter(columns)) if len(columns) == 1 else None


def extract(question: Question) -> list[Constraint]:
    found = []
    for constraint in number.extract(question):
        detail = constraint.detail
        if not isinstance(detail, number.NumberDetail):
            continue
        if not detail.column and not detail.counted:
            column = _averaged_metric(question, constraint.span.start)
            detail = replace(detail, column=column, stored=detail.value) if column else detail
        if not detail.column or detail.stored is None:
            continue
        if not _AVERAGE_BEFORE.search(question.text, 0, constraint.span.start) and not _averaged_metric(
            question, constraint.span.start
        ):
            continue
        text = question.says(
            f"“{constraint.span.text}”：阈值作用于平均值（HAVING），不是每一行",
            f"“{constraint.span.text}”: the threshold bounds the average (HAVING), not each row",
        )
        writings = (detail.stored, *(w for w in detail.writings if w != detail.stored))
        found.append(
            Constraint(
                constraint.span,
                text,
                question.lang,
                AggregateThresholdDetail(detail.column, writings, constraint.span.text),
            )
        )
    return found
