"""Named days, years and report periods must reach the SQL: 2025年9月8日, 2024年年报, Q2 2025, in 2023.

A day or report period passes when the SQL writes that day; a year when the SQL writes a day of it
(or its boundary days) or the number itself (toYear(list_date) = 2023). A SQL that builds days from
literals (makeDate, '2025-01-01' - INTERVAL 1 DAY) may name the day without writing it: undecidable.

A day said without its year (12月9日, on December 9) is the data's year, which the checklist does not
know: only its month and day are compared with the days the SQL names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import ClassVar

from backend.domain.pipeline.validate.checklist.dates import derives_dates, find_dates
from backend.domain.pipeline.validate.checklist.kinds import open_range
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql


@dataclass(frozen=True)
class DateDetail:
    kind: ClassVar[Kind] = Kind.DATE
    year: int
    day: date | None  # the named day or the last day of the named report period; None for a year
    period: bool
    starts_range: bool  # the first day of "A至B": the base close may be the trading day before it
    since: bool  # "2025年以来", "since 2024-09-24": the base close may be the last one before it
    yearless: bool = False  # 12月9日, December 9: `day` is in dates.YEARLESS; month and day are read

    def check(self, sql: Sql) -> Finding:
        if self.yearless:
            return self._month_day(sql)
        if self.day is not None and (self.day in sql.dates or self._as_number(sql)):
            return passed(f"the SQL names {self.day.isoformat()}")
        # the first day of a range, or a day a gain is asked since (2024年9月24日以来): the base close
        # may be the last one before it
        if self.day is not None and (self.starts_range or (self.since and not self.period)):
            before = [d for d in sql.dates if self.day - timedelta(days=14) <= d < self.day]
            if before:
                return passed(f"the SQL names {before[0].isoformat()}, a day just before the range starts")
        if self.day is None and self._names_year(sql):
            return passed(f"the SQL names the year {self.year}")
        if self.day is not None and any(c.number == self.year for c in sql.comparisons):
            return undecided(f"the SQL picks {self.year} by number; which day of it is kept is not read")
        if derives_dates(sql):
            return undecided(
                "the SQL builds dates from literals; whether it reaches the named one is not read"
            )
        if self.day is None:
            return failed(Attribution.TIME_SCOPE, f"the SQL names no day of {self.year}{_instead(sql)}")
        what = "the report period ending" if self.period else "the day"
        return failed(
            Attribution.TIME_SCOPE, f"the SQL never names {what} {self.day.isoformat()}{_instead(sql)}"
        )

    def _month_day(self, sql: Sql) -> Finding:
        """A day without its year: the SQL names that month and day in some year (a literal day or a
        toYYYYMMDD number), or a day just before a range or gain starts; another day is a different day."""
        assert self.day is not None
        shown = f"{self.day.month:02d}-{self.day.day:02d}"
        month_day = self.day.month * 100 + self.day.day
        numbers = (c.number for c in sql.comparisons if c.number is not None)
        if any((d.month, d.day) == (self.day.month, self.day.day) for d in sql.dates) or any(
            19_900_000 < n < 20_360_000 and n % 10_000 == month_day for n in numbers
        ):
            return passed(f"the SQL names a {shown}")
        if self.starts_range or self.since:
            before = [d for d in sql.dates if _days_before(self.day, d) in range(1, 15)]
            if before:
                return passed(f"the SQL names {before[0].isoformat()}, a day just before the range starts")
        if derives_dates(sql):
            return undecided(
                "the SQL builds dates from literals; whether it reaches the named one is not read"
            )
        if not sql.dates:
            return undecided(f"the SQL names no day; whether its day is the {shown} asked is not read")
        return failed(Attribution.TIME_SCOPE, f"the SQL never names a {shown}{_instead(sql)}")

    def _as_number(self, sql: Sql) -> bool:
        """toYYYYMMDD(d) = 20250908, or toYYYYMM(end_date) = 202412 for a report period."""
        assert self.day is not None
        forms = [float(self.day.strftime("%Y%m%d"))] + (
            [float(self.day.strftime("%Y%m"))] if self.period else []
        )
        return sql.has_number(tuple(forms))

    def _names_year(self, sql: Sql) -> bool:
        boundaries = {date(self.year - 1, 12, 31), date(self.year + 1, 1, 1)}
        if any(day.year == self.year or day in boundaries for day in sql.dates):
            return True
        if self.since and any(c.number == self.year - 1 for c in sql.comparisons):
            return True  # toYear(trade_date) = 2024: the base of a gain since 2025
        if str(self.year) in sql.strings:
            return True  # formatDateTime(d, '%Y') = '2024'
        # toYear(d) = 2023, or toYYYYMM / toYYYYMMDD numbers of that year
        numbers = (c.number for c in sql.comparisons if c.number is not None)
        return any(
            n == self.year
            or 100 * self.year <= n < 100 * (self.year + 1)
            or 10_000 * self.year <= n < 10_000 * (self.year + 1)
            for n in numbers
        )


def _days_before(asked: date, named: date) -> int:
    """How many days `named` falls before the month and day asked in its own year (or the next, for
    a day in late December before a day in early January); -1 when that day does not exist."""
    for year in (named.year, named.year + 1):
        try:
            gap = (asked.replace(year=year) - named).days
        except ValueError:
            return -1
        if gap >= 0:
            return gap
    return -1


def _instead(sql: Sql) -> str:
    named = sorted({day.isoformat() for day in sql.dates})
    return f" (it names {', '.join(named[:4])})" if named else ""


def extract(question: Question) -> list[Constraint]:
    since = [
        c.span
        for c in open_range.extract(question)
        if isinstance(c.detail, open_range.OpenRangeDetail) and c.detail.way is open_range.Way.SINCE
    ]
    constraints = []
    for mention in find_dates(question):
        cued = open_range.cue(question, mention) if mention.yearless else None
        anchors_since = any(span.start <= mention.start < span.end for span in since) or (
            cued is not None and cued[0] is open_range.Way.SINCE
        )
        span = question.span(mention.start, mention.end)
        if mention.day is None:
            text = question.says(f"年份 {mention.year}", f"the year {mention.year}")
        elif mention.yearless:
            shown = f"{mention.day.month}月{mention.day.day}日"
            text = question.says(
                f"日期 {shown}（年份未说）", f"the day {mention.day:%B} {mention.day.day} (no year said)"
            )
        elif mention.period:
            text = question.says(
                f"报告期 {mention.day.isoformat()}", f"the report period ending {mention.day.isoformat()}"
            )
        else:
            text = question.says(f"日期 {mention.day.isoformat()}", f"the day {mention.day.isoformat()}")
        constraints.append(
            Constraint(
                span,
                text,
                question.lang,
                DateDetail(
                    mention.year,
                    mention.day,
                    mention.period,
                    mention.starts_range,
                    anchors_since,
                    mention.yearless,
                ),
            )
        )
    return constraints
