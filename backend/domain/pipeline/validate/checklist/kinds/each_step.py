"""A change N periods in a row (连续3年增长 / 成交量连续3天放大 / grew 3 years in a row / 4 consecutive
days of rising volume) is N steps, each compared with the period before: N comparisons of a value
with the same column's value on another period. Comparing the last value with the first only
(argMax(x, d) > argMin(x, d)), or fewer steps than N, lets a dip in between through.

Counted on the tree: comparisons whose two sides read the same stored column (not a date); fewer
than N of them fail. A SQL that tests the steps row by row (lagInFrame, neighbor, a window, a lambda
over arrays, a self-join of the table) or each period's own change (yoy > 0, pct_chg > 0), comparing
no two values of a column, has no short chain of comparisons: it passes, as N or more comparisons do.
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
from backend.domain.pipeline.validate.checklist.question import COUNT, Question, parse_count
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    enclosing_select,
    is_date_column,
)

_CHANGE_ZH = r"增长|上涨|上升|放大|提高|增加|递增|走高|抬升|下降|下跌|减少|缩小|萎缩|下滑|递减|走低"
_CHANGE_EN = (
    r"\b(?:rose|rise|rising|risen|grew|grow|growing|growth|increas\w*|higher|fell|fall|falling|declin\w*"
    r"|decreas\w*|shrink\w*|lower)\b"
)
_PERIOD_ZH = r"个?交易日|天|日|年|个报告期|报告期|期|个?季度|个?月|周"
_PERIOD_EN = r"(?:trading\s+)?(?:days|sessions|years|quarters|months|weeks|reports)"
_IN_A_ROW = (
    re.compile(rf"连续\s*(?P<n>{COUNT})\s*(?:{_PERIOD_ZH})[^，,。；;？?]{{0,8}}?(?:{_CHANGE_ZH})"),
    re.compile(
        rf"(?:(?P<n>{COUNT})\s+{_PERIOD_EN}\s+in\s+a\s+row|(?P<m>{COUNT})\s+consecutive\s+{_PERIOD_EN})",
        re.IGNORECASE,
    ),
)
_CHANGE_IN_TEXT = re.compile(_CHANGE_EN, re.IGNORECASE)
# Ways of testing every step at once that one comparison stands for.
_ROW_BY_ROW = ("laginframe", "leadinframe", "neighbor", "lag", "lead", "arraydifference")


def _same_column_comparisons(sql: Sql) -> int:
    count = 0
    for node in sql.nodes():
        if not isinstance(node, exp.GT | exp.GTE | exp.LT | exp.LTE):
            continue
        select = enclosing_select(node)
        left = columns_of(sql.resolve(node.this, select))
        right = columns_of(sql.resolve(node.expression, select))
        shared = {name for name in left & right if not is_date_column(name)}
        count += bool(shared)
    return count


def _self_joined(select: exp.Select) -> bool:
    from_clause = select.args.get("from_")
    sources = [from_clause.this] if isinstance(from_clause, exp.From) else []
    sources += [join.this for join in select.args.get("joins") or []]
    tables = [source.name.lower() for source in sources if isinstance(source, exp.Table)]
    return len(tables) != len(set(tables))


def _steps_row_by_row(sql: Sql) -> bool:
    return (
        any(name.startswith(_ROW_BY_ROW) for name in sql.functions)
        or sql.tree.find(exp.Window, exp.Lambda) is not None
        or any(_self_joined(select) for select in sql.selects)
    )


@dataclass(frozen=True)
class EachStepDetail:
    kind: ClassVar[Kind] = Kind.EACH_STEP
    steps: int

    def check(self, sql: Sql) -> Finding:
        if _steps_row_by_row(sql):
            return passed("the steps are tested row by row (a window, a lambda or a self-join)")
        compared = _same_column_comparisons(sql)
        if compared == 0:
            return passed("no two values of one column are compared: each period's own change is tested")
        if compared >= self.steps:
            return passed(
                f"{compared} comparisons of a value with another period's, {self.steps} steps asked"
            )
        return failed(
            Attribution.AGGREGATION,
            f"only {compared} comparison(s) of a value with another period's where {self.steps} steps "
            "in a row are asked: a dip between the compared periods goes unseen",
        )


def extract(question: Question) -> list[Constraint]:
    found = []
    for pattern in _IN_A_ROW:
        for match in pattern.finditer(question.text):
            if pattern is _IN_A_ROW[1] and _CHANGE_IN_TEXT.search(question.text) is None:
                continue
            steps = parse_count(match["n"] or match.groupdict().get("m") or "")
            if steps is None or steps < 2:
                continue
            span = question.span(match.start(), match.end())
            text = question.says(
                f"“{span.text}”：逐期比较，{steps} 次变化", f"“{span.text}”: each of {steps} steps compared"
            )
            found.append(Constraint(span, text, question.lang, EachStepDetail(steps)))
    return found
