"""A limit-up or limit-down day (涨停/跌停, limit-up, hit the daily limit) is a close at the limit price.

The limit price is the previous close moved by the board's limit and rounded to the cent
(round(pre_close × 1.1, 2) on the main board), so the SQL compares the close with an expression of
pre_close (or their distance with a rounded limit price). A fixed daily change instead (pct_chg >= 9.9,
close / pre_close >= 1.1) misses limit closes that round below the limit and counts moves past it on
boards with a wider one: it fails.
Neither written (a stored flag, arrays): not read.
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
    columns_of,
    enclosing_select,
    function_name,
)

_CUE = re.compile(r"涨停|跌停|\blimit[- ](?:up|down)s?\b|\bdaily (?:price )?limit\b")
_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ)
_CHANGES = {"pct_chg", "change", "pct_change"}
# A daily move this large is a limit read as a threshold (the smallest limit is 5%, ST stocks).
_LIMIT_SIZE = 4.5


def _reads_close(columns: set[str]) -> bool:
    return "close" in columns


def _sides(sql: Sql, node: exp.Binary) -> tuple[set[str], set[str]]:
    select = enclosing_select(node)
    return (
        columns_of(sql.resolve(node.this, select)),
        columns_of(sql.resolve(node.expression, select)),
    )


@dataclass(frozen=True)
class LimitMoveDetail:
    kind: ClassVar[Kind] = Kind.LIMIT_MOVE

    def check(self, sql: Sql) -> Finding:
        for node in sql.tree.find_all(*_COMPARISONS):
            left, right = _sides(sql, node)
            if (_reads_close(left) and "pre_close" in right) or (_reads_close(right) and "pre_close" in left):
                return passed("the close is compared with a limit price computed from the previous close")
        for comparison in sql.comparisons:
            # abs(close - round(pre_close * 1.1, 2)) < 0.005: the distance to the rounded limit price
            rounded = any(function_name(f) == "round" for f in comparison.subject.find_all(exp.Func))
            if rounded and {"close", "pre_close"} <= columns_of(comparison.subject):
                return passed("the close is compared with a rounded limit price of the previous close")
        for comparison in sql.comparisons:
            columns, number = columns_of(comparison.subject), comparison.number
            if number is None or not (columns & _CHANGES or {"close", "pre_close"} <= columns):
                continue
            # close / pre_close >= 1.099 is a move of 9.9 points, like pct_chg >= 9.9
            ratio = not columns & _CHANGES and 0 < number < 2
            if (abs(number - 1) * 100 if ratio else abs(number)) >= _LIMIT_SIZE:
                return failed(
                    Attribution.CONDITION,
                    f"the limit is read as a daily change {comparison.op} {comparison.number:g}; a limit day "
                    "closes at round(pre_close × (1 ± limit), 2), the board's limit",
                )
        return undecided("no limit price and no daily change threshold is read")


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：收盘价等于涨跌停价（前收盘按板块涨跌幅限制取整）",
        f"“{span.text}”: the close at the limit price (the previous close moved by the board's limit)",
    )
    return [Constraint(span, text, question.lang, LimitMoveDetail())]
