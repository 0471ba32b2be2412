"""Trading days (交易日, trading days, sessions) read from the trading calendar are its open days.

The calendar table (`trade_cal`) lists every calendar day of each exchange with `is_open`; a SQL
that counts or lists its days without testing `is_open` counts weekends and holidays. Trading days
read from the daily bars need no such test: the check passes when the calendar is not read.
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql

_CUE = re.compile(r"交易日|开市日|\b(?:trading|market|exchange) (?:days?|sessions?)\b", re.IGNORECASE)
_CALENDAR = "trade_cal"
_OPEN = "is_open"


@dataclass(frozen=True)
class TradingDaysDetail:
    kind: ClassVar[Kind] = Kind.TRADING_DAYS

    def check(self, sql: Sql) -> Finding:
        if not any(table.name.lower() == _CALENDAR for table in sql.tree.find_all(exp.Table)):
            return passed("the trading calendar is not read")
        if any(column.name.lower() == _OPEN for column in sql.tree.find_all(exp.Column)):
            return passed(f"the calendar's days are tested on {_OPEN}")
        return failed(
            Attribution.TIME_SCOPE,
            f"the SQL reads the trading calendar without testing {_OPEN}: it counts every calendar day",
        )


def extract(question: Question) -> list[Constraint]:
    cue = question.first_cue(_CUE)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：交易日历中开市的日子（is_open）",
        f"“{span.text}”: the calendar's open days (is_open)",
    )
    return [Constraint(span, text, question.lang, TradingDaysDetail())]
