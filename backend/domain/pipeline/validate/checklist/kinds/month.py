"""A month of a year named without a day (2025年12月, 2025年6月底, December 2025, the end of June 2025)
must reach the SQL: a day of that month written out (or toYYYYMM = 202512, '2025-12'). A SQL naming
days only of other months reads the wrong month. A gain since the month, or from it (以来/起/从, since,
from), may take its base close on the last trading days before it (up to 14 days) — not when the end
of the month (月底, end of) is named, which is a day of the month itself. A SQL that builds its days
from literals, or writes none, has no other month to read: it passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.dates import MONTH_NAMES, derives_dates
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    date_value,
    function_name,
    strip,
)

_NAMES = "|".join(sorted(MONTH_NAMES, key=len, reverse=True))
_MONTHS = (
    re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月(?!\s*\d{1,2}\s*[日号])(?P<end>\s*(?:底|末))?"),
    re.compile(
        rf"(?P<end>\bend\s+of\s+)?\b(?P<mon>{_NAMES})\.?,?\s+(?P<y>\d{{4}})\b(?![-/.]\d)", re.IGNORECASE
    ),
)
# Another day, span or range said beside the month: its days may rightly be read too.
_OTHER_TIMES = re.compile(
    r"\d{1,2}\s*[日号]|\d{4}-\d{1,2}|至|到|之间|前|上月|上个月|近|过去|连续|均线|同比|环比|相比|对比|比"
    r"|\b(?:to|through|until|between|before|prior|previous|last|past|versus|vs|compared|moving|average)\b"
    r"|\d+[- ](?:trading[- ])?(?:day|session|week|month)s?\b",
    re.IGNORECASE,
)
_DAYS = {"trade_date", "cal_date"}
# The day before each day, a move's base (closed higher than the day before, 比前一交易日): no span.
_DAY_BEFORE = re.compile(
    r"前一(?:个)?(?:交易日|天|日)|\b(?:the )?(?:day|session) before\b"
    r"|\bprevious (?:trading )?(?:day|session|close)\b",
    re.IGNORECASE,
)
_SINCE = re.compile(r"以来|起|从|之后|\b(?:since|from|after)\b", re.IGNORECASE)


def _lower_bound(sql: Sql) -> date | None:
    """The earliest day a plain range reads from (trade_date >= '2025-11-01', BETWEEN '2025-11-01' AND …)
    when nothing reads rows before the answer's own days: no window (moving averages, the previous bar),
    no join, no price picked by day (argMax, a -If aggregate over days: a base close), no array of days."""
    picks_days = any(
        (name := function_name(node)).startswith("arg") or (name.endswith("if") and columns_of(node) & _DAYS)
        for node in sql.tree.find_all(exp.Func)
    )
    if picks_days:
        return None
    if (
        any(sql.tree.find_all(exp.Window))
        or any(select.args.get("joins") for select in sql.selects)
        or any(
            function_name(node).startswith(("array", "grouparray", "neighbor"))
            for node in sql.tree.find_all(exp.Func)
        )
    ):
        return None
    bounds = []
    for node in sql.tree.find_all(exp.Between, exp.GTE, exp.GT):
        column = strip(node.this)
        if not isinstance(column, exp.Column) or column.name.lower() != "trade_date":
            continue
        bound = node.args.get("low") if isinstance(node, exp.Between) else node.expression
        day = date_value(bound) if bound is not None else None
        if day is not None:
            bounds.append(day)
    return min(bounds) if bounds else None


@dataclass(frozen=True)
class MonthDetail:
    kind: ClassVar[Kind] = Kind.MONTH
    first: date
    month_end: bool  # 月底 / end of: the end of the month, a day of it
    since: bool  # a base close may come from the days before the month
    alone: bool = False  # the one month or day the question names, with no range said

    def _in_month(self, day: date) -> bool:
        return (day.year, day.month) == (self.first.year, self.first.month)

    def check(self, sql: Sql) -> Finding:
        label = self.first.strftime("%Y-%m")
        early = _lower_bound(sql)
        if self.alone and not self.since and early is not None and early < self.first - timedelta(days=14):
            return failed(
                Attribution.TIME_SCOPE,
                f"the SQL reads days from {early.isoformat()} on; the question asks {label} alone",
            )
        if any(self._in_month(day) for day in sql.dates):
            return passed(f"the SQL names a day of {label}")
        if sql.has_number((float(self.first.strftime("%Y%m")),)) or any(
            text.startswith(label) for text in sql.strings
        ):
            return passed(f"the SQL names {label} as a month")
        if self.since and not self.month_end:
            before = [day for day in sql.dates if self.first - timedelta(days=14) <= day < self.first]
            if before:
                return passed(f"the SQL names {before[0].isoformat()}, a base day just before {label}")
        if not sql.dates or derives_dates(sql):
            return passed("the SQL writes no day of another month")
        named = ", ".join(sorted({day.isoformat() for day in sql.dates})[:4])
        return failed(Attribution.TIME_SCOPE, f"the SQL names no day of {label} (it names {named})")


def extract(question: Question) -> list[Constraint]:
    found = []
    since = _SINCE.search(question.text) is not None
    matches = [match for pattern in _MONTHS for match in pattern.finditer(question.text)]
    alone = len(matches) == 1 and _OTHER_TIMES.search(_DAY_BEFORE.sub(" ", question.text)) is None
    for pattern in _MONTHS:
        for match in pattern.finditer(question.text):
            month = MONTH_NAMES[match["mon"].lower()] if match.groupdict().get("mon") else int(match["m"])
            if not 1 <= month <= 12:
                continue
            first = date(int(match["y"]), month, 1)
            span = question.span(match.start(), match.end())
            text = question.says(f"月份 {first:%Y-%m}", f"the month {first:%Y-%m}")
            found.append(
                Constraint(span, text, question.lang, MonthDetail(first, bool(match["end"]), since, alone))
            )
    return found
