"""A drawdown over the last N trading days (近60个交易日最大回撤, the max drawdown over the past 30
sessions, 20 days' drawdown) is a stock's figure as of the latest day: the stock must have a bar on
the window's last day. A stock suspended then keeps a drawdown that ended before it, an answer about
another span.

Judged on the tree: the SQL must test a bar on one day or on every day somewhere — a day's maximum
compared (HAVING max(trade_date) = …), a day's rows counted (countIf(trade_date = …)), the bars of one
day joined or filtered (trade_date = …), or the rows counted against a number (count() = 60: a bar on
every day). With none of them, the window's per-stock figure keeps stocks with no bar on the last day
(`time_scope`). A calendar period (2025年最大回撤) reads the bars in it and is not this kind's.
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
from backend.domain.pipeline.validate.checklist.question import COUNT, Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, function_name, is_date_column, strip

_CUE = re.compile(
    rf"(?:近|最近|过去)\s*{COUNT}\s*(?:个交易日|个?日|天)\s*(?:以来|内|里)?\s*的?\s*(?:最大)?回撤"
    rf"|\b(?:max(?:imum)?\s+)?drawdowns?\s+(?:over|in|during|across)\s+the\s+(?:last|past)\s+{COUNT}\s+"
    rf"(?:trading\s+)?(?:days|sessions)\b"
    rf"|\b(?:last|past)\s+{COUNT}\s+(?:trading\s+)?(?:days|sessions)['’]?\s+(?:max(?:imum)?\s+)?drawdowns?\b",
    re.IGNORECASE,
)


_COUNTS = {"count", "countif", "uniqexact", "uniq"}


def _is_day(node: exp.Expr) -> bool:
    node = strip(node)
    return isinstance(node, exp.Column) and is_date_column(node.name.lower())


def _one_day(node: exp.Expr) -> bool:
    """trade_date = …, max(trade_date) = …: a bar on one day required."""
    sides = (strip(node.this), strip(node.expression))
    return any(_is_day(side) or (isinstance(side, exp.Max) and _is_day(side.this)) for side in sides)


def _counted(node: exp.Expr) -> bool:
    """countIf(trade_date = …) = 1, count() = 60: the rows of a day, or of every day, counted."""
    sides = (strip(node.this), strip(node.expression))
    return any(isinstance(side, exp.Count) or function_name(side) in _COUNTS for side in sides)


@dataclass(frozen=True)
class WindowEndDetail:
    kind: ClassVar[Kind] = Kind.WINDOW_END

    def check(self, sql: Sql) -> Finding:
        for node in sql.nodes():
            if isinstance(node, exp.EQ) and (_one_day(node) or _counted(node)):
                return passed("a bar on the window's last day (or on every day) is tested")
        return failed(
            Attribution.TIME_SCOPE,
            "no bar on the window's last day is required: a stock with no bar that day keeps a "
            "drawdown that ended before it",
        )


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：截至最新交易日，股票须在窗口最后一天有行情",
        f"“{span.text}”: as of the latest day, the stock has a bar on the window's last day",
    )
    return [Constraint(span, text, question.lang, WindowEndDetail())]
