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
from backend.domain.pipeline.validate.checklist.sqltree import Sql

_NAMES = "|".join(sorted(MONTH_NAMES, key=len, reverse=True))
_MONTHS = (
    re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月(?!\s*\d{1,2}\s*[日号])(?P<end>\s*(?:底|末))?"),
    re.compile(
        rf"(?P<end>\bend\s+of\s+)?\b(?P<mon>{_NAMES})\.?,?\s+(?P<y>\d{{4}})\b(?![-/.]\d)", re.IGNORECASE
    ),
)
_SINCE = re.compile(r"以来|起|从|之后|\b(?:since|from|after)\b", re.IGNORECASE)


@dataclass(frozen=True)
class MonthDetail:
    kind: ClassVar[Kind] = Kind.MONTH
    first: date
    month_end: bool  # 月底 / end of: the end of the month, a day of it
    since: bool  # a base close may come from the days before the month

    def _in_month(self, day: date) -> bool:
        return (day.year, day.month) == (self.first.year, self.first.month)

    def check(self, sql: Sql) -> Finding:
        label = self.first.strftime("%Y-%m")
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
    for pattern in _MONTHS:
        for match in pattern.finditer(question.text):
            month = MONTH_NAMES[match["mon"].lower()] if match.groupdict().get("mon") else int(match["m"])
            if not 1 <= month <= 12:
                continue
            first = date(int(match["y"]), month, 1)
            span = question.span(match.start(), match.end())
            text = question.says(f"月份 {first:%Y-%m}", f"the month {first:%Y-%m}")
            found.append(Constraint(span, text, question.lang, MonthDetail(first, bool(match["end"]), since)))
    return found
