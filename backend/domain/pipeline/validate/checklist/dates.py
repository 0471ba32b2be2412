"""Dates, years and report periods named in a question, and the dates a candidate SQL derives."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from itertools import pairwise

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import Lang
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, date_value, function_name, number_value

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
MONTH_NAMES = _MONTHS
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAYS = (
    re.compile(r"(?<!\d)(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)"),
    re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]?"),
    re.compile(rf"\b(?P<mon>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})\b"),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<mon>{_MONTH})\.?,?\s+(?P<y>\d{{4}})\b"),
)
# Report periods end on these days; income figures are year-to-date, so Q4 and H2 end with the year.
_PERIOD_ENDS = {
    "年报": (12, 31), "年度报告": (12, 31), "年度": (12, 31), "全年": (12, 31), "第四季度": (12, 31),
    "四季度": (12, 31), "下半年": (12, 31), "三季报": (9, 30), "三季度报告": (9, 30), "第三季度": (9, 30),
    "三季度": (9, 30), "半年报": (6, 30), "半年度报告": (6, 30), "半年度": (6, 30), "中报": (6, 30),
    "上半年": (6, 30), "第二季度": (6, 30), "二季度": (6, 30), "一季报": (3, 31), "一季度报告": (3, 31),
    "第一季度": (3, 31), "一季度": (3, 31), "annual": (12, 31), "full year": (12, 31), "q4": (12, 31),
    "h2": (12, 31), "fourth quarter": (12, 31), "q3": (9, 30), "third quarter": (9, 30),
    "half year": (6, 30), "half yearly": (6, 30), "interim": (6, 30), "h1": (6, 30), "q2": (6, 30),
    "second quarter": (6, 30), "q1": (3, 31), "first quarter": (3, 31),
}  # fmt: skip
_ZH_PERIOD = "|".join(sorted((word for word in _PERIOD_ENDS if not word.isascii()), key=len, reverse=True))
_EN_PERIOD = "|".join(sorted((word for word in _PERIOD_ENDS if word.isascii()), key=len, reverse=True))
_PERIODS = (
    re.compile(rf"(?P<y>\d{{4}})\s*年?\s*的?\s*(?P<p>{_ZH_PERIOD})"),
    re.compile(rf"\b(?P<y>\d{{4}})\s+(?P<p>{_EN_PERIOD})\b"),
    re.compile(r"\b(?P<p>q[1-4]|h[12])\s+(?P<y>\d{4})\b"),
)
# A fiscal year (FY24, FY2024, FY'24): listed companies here close their year on December 31.
_FISCAL_YEAR = re.compile(r"\bfy\s*'?(?P<y>\d{4}|\d{2})\b")
_YEARS = (
    re.compile(r"(?P<y>\d{4})\s*年(?!\s*\d{1,2}\s*月)"),
    # A bare four-digit number is a year unless a unit follows ("more than 2000 yuan").
    re.compile(
        r"(?<![\d\-/.])(?P<y>(?:19|20)\d{2})(?![\d\-/]|\.\d|\s*(?:%|亿|万|元|yuan|billion|million|shares|只|个))"
    ),
)
# Functions that build a date from parts or move one: with a literal among their arguments they
# may name the asked day without writing it.
_DATE_BUILDERS = {
    "makedate", "makedate32", "makedatetime", "todate", "todate32", "todatetime", "parsedatetime",
    "parsedatetimebesteffort", "adddays", "addweeks", "addmonths", "addquarters", "addyears",
    "subtractdays", "subtractweeks", "subtractmonths", "subtractquarters", "subtractyears", "dateadd",
    "datesub", "tsordsadd", "tostartofyear", "tostartofmonth", "tostartofquarter",
    "tolastdayofmonth", "concat",
}  # fmt: skip


# A month and day whose year comes from a day named before it (2024年9月24日至10月8日), or is not
# said (12月9日涨停, on December 9): the data's year, which the checklist does not know.
_MONTH_DAY = re.compile(r"(?<![\d年])(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]")
# "may" is also a verb (stocks that may 5x): left out of the English days without a year.
_EN_YEARLESS = "|".join(sorted((name for name in _MONTHS if name != "may"), key=len, reverse=True))
_MONTH_DAY_EN = (
    re.compile(rf"\b(?P<mon>{_EN_YEARLESS})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*[,.]?\s*\d|\s*%)"),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<mon>{_EN_YEARLESS})\b(?!\.?,?\s*\d)"),
)
# The year a day without one is kept in: a leap year, so that 2月29日 is a day; only its month and
# day are compared.
YEARLESS = 2000
_RANGE_JOIN = re.compile(r"\s*(?:至|到|~|-|—|to|until|through|and)\s*")


# Words that name a report and nothing else; the other period words (全年, 上半年, Q3, full year)
# are spans of days too.
_REPORT_WORDS = {
    "年报", "年度报告", "三季报", "三季度报告", "半年报", "半年度报告", "中报", "一季报", "一季度报告",
    "annual", "interim",
}  # fmt: skip
_DAILY_TABLES = {"daily", "daily_basic"}


def _calendar_span(question: Question, match: re.Match[str]) -> bool:
    """A period word said of a market figure (2025年全年涨幅, full year 2024 trading value): the days of
    the year, not the report period ending on its last day; only the year is read then."""
    if match["p"] in _REPORT_WORDS:
        return False
    bound = question.metric_after(match.end(), 4 if question.lang is Lang.ZH else 12)
    return bound is not None and bound[1].table in _DAILY_TABLES


@dataclass(frozen=True)
class DateMention:
    start: int
    end: int
    year: int
    day: date | None  # a named day, or the last day of a named report period
    period: bool
    starts_range: bool = False  # "A至B", "from A to B": a gain from A starts at the close before A
    yearless: bool = False  # 12月9日, December 9: `day` is kept in YEARLESS, only month and day are read


def find_dates(question: Question) -> list[DateMention]:
    text = question.text
    found: list[DateMention] = []

    def free(start: int, end: int) -> bool:
        return all(end <= mention.start or start >= mention.end for mention in found)

    for pattern in _DAYS:
        for match in pattern.finditer(text):
            month = _MONTHS[match["mon"]] if "mon" in match.groupdict() else int(match["m"])
            try:
                day = date(int(match["y"]), month, int(match["d"]))
            except ValueError:
                continue
            if free(match.start(), match.end()):
                found.append(DateMention(match.start(), match.end(), day.year, day, period=False))
    month_days = [*_MONTH_DAY.finditer(text), *(m for p in _MONTH_DAY_EN for m in p.finditer(text))]
    for match in sorted(month_days, key=lambda m: m.start()):
        month = _MONTHS[match["mon"]] if "mon" in match.groupdict() else int(match["m"])
        earlier = [m for m in found if m.day is not None and m.end <= match.start()]
        year = earlier[-1].year if earlier else YEARLESS
        if free(match.start(), match.end()):
            try:
                day = date(year, month, int(match["d"]))
            except ValueError:
                continue
            yearless = bool(not earlier or earlier[-1].yearless)
            found.append(DateMention(match.start(), match.end(), year, day, period=False, yearless=yearless))
    for pattern in _PERIODS:
        for match in pattern.finditer(text):
            month, last = _PERIOD_ENDS[match["p"]]
            if free(match.start(), match.end()) and _calendar_span(question, match):
                year = int(match["y"])
                found.append(DateMention(match.start(), match.end(), year, None, period=False))
            elif free(match.start(), match.end()):
                day = date(int(match["y"]), month, last)
                found.append(DateMention(match.start(), match.end(), day.year, day, period=True))
    for match in _FISCAL_YEAR.finditer(text):
        year = int(match["y"]) + (2000 if len(match["y"]) == 2 else 0)
        if 1990 <= year <= 2035 and free(match.start(), match.end()):
            found.append(DateMention(match.start(), match.end(), year, date(year, 12, 31), period=True))
    for pattern in _YEARS:
        for match in pattern.finditer(text):
            year = int(match["y"])
            if 1990 <= year <= 2035 and free(match.start("y"), match.end()):
                found.append(DateMention(match.start("y"), match.end(), year, None, period=False))
    found.sort(key=lambda mention: mention.start)
    for index, (first, second) in enumerate(pairwise(found)):
        if (
            first.day is not None
            and second.day is not None
            and _RANGE_JOIN.fullmatch(text[first.end : second.start])
        ):
            found[index] = replace(first, starts_range=True)
    return found


def derives_dates(sql: Sql) -> bool:
    """Whether the SQL may build a day from a literal (makeDate(2024, 12, 31), '2025-01-01' - INTERVAL…)."""
    for node in sql.nodes():
        builder = isinstance(node, exp.Func) and function_name(node) in _DATE_BUILDERS
        shifted = isinstance(node, exp.Add | exp.Sub) and isinstance(node.expression, exp.Interval)
        if not (builder or shifted):
            continue
        if isinstance(node, exp.Func) and function_name(node) == "todate" and date_value(node) is not None:
            continue  # toDate('2025-09-08') names its day plainly
        for inner in node.walk():
            value = number_value(inner) if isinstance(inner, exp.Literal) else None
            if date_value(inner) is not None or (value is not None and 1990 <= value <= 2035):
                return True
    return False
