"""A statistic asked per calendar period: 每月 / 各年 / 按季度 / in each month / per year / monthly →
the SQL groups by that period of a date (toStartOfMonth, toYYYYMM, toYear, toQuarter, …).

A grouping by another period is another answer: by calendar month (toMonth) for each year mixes the
years, by year for each month gives one figure a year; no date grouping at all gives one figure for
the whole span. Month of the year (toMonth) for each month passes when the SQL stays within one
year, and a date key read through a function this module does not know is undecidable. Quantifiers
(每年都增长, revenue grew every year) are the every_period kind's, not a grouping. The SELECT grouped by
the period must not split it by a dimension the question never names (每年新上市的股票各有多少只 grouped
by year and board as well). A period's highest or lowest price (每个月的最高价和最低价, the highest and
lowest prices in each month) is a statistic of the period too, unless stocks are listed (哪些, which).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import every_period, per_group
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
from backend.domain.pipeline.validate.checklist.question import COUNT, Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    function_name,
    is_date_column,
    number_value,
    strip,
)

_ZH_PERIODS = {"月": "month", "年": "year", "季度": "quarter", "季": "quarter", "周": "week"}
_CUE_ZH = re.compile(r"(?:每一?个?|各|逐|按|分)(?P<p>季度|月|年|周)(?!报|度报|初|末|底|线)")
_CUE_EN = re.compile(
    r"\b(?:(?:in|for|on)\s+)?(?:each|every|per)\s+(?:calendar\s+)?(?P<p>month|year|quarter|week)\b"
    r"|\bby\s+(?P<by>month|year|quarter|week)\b|\b(?P<ly>month|year|quarter|week)ly\b(?!\s+reports?)"
)
# Periods ranked by a figure (which 3 months had the highest …, 哪个月成交额最大): one figure per period.
_RANKED_EN = re.compile(
    rf"\b(?:which|what)\s+(?:{COUNT}\s+)?(?:calendar\s+)?(?P<which>month|quarter|week|year)s?\b"
    r"[^?.;]{0,80}?\b(?:highest|largest|biggest|greatest|most|lowest|smallest|least|fewest|best|worst)\b"
)
_RANKED_ZH = re.compile(
    rf"哪(?:{COUNT})?个?(?P<which>季度|月|周|年)[^，,。；;？?]{{0,20}}?(?:最高|最大|最多|最低|最小|最少)"
)
# A period's extreme price asked with no stock listed: one figure per period, though no statistic word.
_EXTREME_PRICE = re.compile(r"最高价|最低价|\b(?:highest|lowest) (?:prices?|closes?)\b|\bhighs? and lows?\b")
_LISTS_STOCKS = re.compile(r"哪|列出|股票|\b(?:which|list|stocks?|companies)\b")
# 每年净利润都增长: the cue quantifies a condition in its clause.
_QUANTIFIED = re.compile(r"[^，,。；;？?]*?(?:都|(?<![日平])均(?![值线价额量]))")
# What a date grouping key splits by: a period, or a period of the year (toMonth: January of any year).
_FUNCTIONS = {
    "toyear": "year",
    "toyyyymm": "month",
    "tomonth": "month_of_year",
    "toquarter": "quarter_of_year",
    "tostartofweek": "week",
    "toyearweek": "week",
    "toweek": "week_of_year",
    "toyyyymmdd": "day",
    "todate": "day",
}
_TRUNC_UNITS = {"YEAR": "year", "QUARTER": "quarter", "MONTH": "month", "WEEK": "week", "DAY": "day"}
_SUBSTRING_LENGTHS = {4: "year", 7: "month", 10: "day"}
_OF_YEAR = {"month": "month_of_year", "quarter": "quarter_of_year", "week": "week_of_year"}


@dataclass(frozen=True)
class PerPeriodDetail:
    kind: ClassVar[Kind] = Kind.PER_PERIOD
    period: str  # year / quarter / month / week
    named: frozenset[str] = frozenset()  # the group columns the question names (per_group.named_dimensions)

    def check(self, sql: Sql) -> Finding:
        splits: list[set[str]] = []  # per SELECT, what its date keys split by
        unknown = False
        for select in sql.selects:
            keys = [strip(key) for key in per_group.group_keys(sql, select)]
            found = {_period_of(key) for key in keys if _has_date(key)}
            unknown = unknown or None in found
            splits.append({period for period in found if period is not None})
            dates = set().union(*(columns_of(key) for key in keys if _has_date(key)))
            others = set().union(*(columns_of(key) for key in keys if not _has_date(key)))
            extra = others & per_group.GROUP_DIMENSIONS - self.named - dates
            if self.period in found and extra:
                return failed(
                    Attribution.GROUPING,
                    f"the groups of each {self.period} are split by {', '.join(sorted(extra))} too",
                )
        if any(self.period in found for found in splits):
            return passed(f"the SQL groups by {self.period}")
        of_year = _OF_YEAR.get(self.period)
        if of_year and any(of_year in found and "year" in found for found in splits):
            return passed(f"the SQL groups by year and {self.period} of the year")
        if of_year and any(of_year in found for found in splits):
            if len(years := _years(sql)) == 1:
                return passed(f"the SQL groups by {self.period} of the year, within {years.pop()}")
            return undecided(f"{self.period} of the year may mix years: the SQL's span is not read")
        if unknown:
            return undecided("a date grouping key is read through a function not known here")
        other = sorted(set().union(*splits)) if splits else []
        if not other and _lists_rows_by(sql, self.period):
            return passed(f"the SQL lists stored rows with their {self.period} shown, one figure each")
        if other:
            return failed(
                Attribution.GROUPING,
                f"the SQL groups by {', '.join(other)}, the question asks per {self.period}",
            )
        return failed(
            Attribution.GROUPING, f"the SQL does not group by {self.period}: one figure for the span"
        )


def _lists_rows_by(sql: Sql, period: str) -> bool:
    """The answer lists stored annual report rows, no aggregate anywhere, and shows each row's year
    (toYear(end_date) AS yr for each year): an annual report's figure is its year's. Quarterly rows kept
    are four a year, daily rows many: never read so."""
    tree = sql.tree
    if period != "year" or not isinstance(tree, exp.Select) or tree.find(exp.AggFunc) is not None:
        return False
    shows_year = any(
        columns_of(shown) == {"end_date"} and _period_of(shown) == period for shown in tree.expressions
    )
    return shows_year and _annual_reports_only(sql)


def _annual_reports_only(sql: Sql) -> bool:
    """toMonth(end_date) = 12, or report days written that are all December 31."""
    if any(
        c.op == "=" and c.number == 12 and function_name(strip(c.subject)) == "tomonth"
        for c in sql.comparisons
    ):
        return True
    return bool(sql.dates) and all((day.month, day.day) == (12, 31) for day in sql.dates)


def _years(sql: Sql) -> set[int]:
    """The years the SQL keeps: toYear(d) = N, or days written on both sides of a span (one day alone
    may open a span of any length: since 2018)."""
    years = {
        int(c.number)
        for c in sql.comparisons
        if c.op == "=" and c.number is not None and function_name(strip(c.subject)) == "toyear"
    }
    if len(set(sql.dates)) >= 2:
        years |= {day.year for day in sql.dates}
    return years


def _has_date(node: exp.Expr) -> bool:
    return any(is_date_column(column.name.lower()) for column in node.find_all(exp.Column))


def _period_of(key: exp.Expr) -> str | None:
    """What a date grouping key splits by; None when its function is not known here."""
    key = strip(key.this if isinstance(key, exp.Alias) else key)
    if isinstance(key, exp.Column):
        return "day"
    if isinstance(key, exp.TimestampTrunc | exp.DateTrunc):
        unit = key.args.get("unit")
        return _TRUNC_UNITS.get(unit.name.upper() if unit is not None else "")
    if isinstance(key, exp.TimeToStr):
        form = key.args.get("format")
        text = form.name if form is not None else ""
        if "%d" in text:
            return "day"
        if "%m" in text:
            return "month" if "%Y" in text else "month_of_year"
        return "year" if "%Y" in text else None
    if isinstance(key, exp.Substring):
        start, length = key.args.get("start"), key.args.get("length")
        first = number_value(start) if start is not None else None
        size = number_value(length) if length is not None else None
        return _SUBSTRING_LENGTHS.get(int(size)) if first == 1 and size is not None else None
    return _FUNCTIONS.get(function_name(key))


def extract(question: Question) -> list[Constraint]:
    extreme = _EXTREME_PRICE.search(question.text) and not _LISTS_STOCKS.search(question.text)
    if not (question.asks_statistic() or extreme) or every_period.extract(question):
        return []  # a condition on every period (每年都增长) is a quantifier, not a grouping
    zh = question.lang is Lang.ZH
    found: dict[str, Constraint] = {}
    cues = [
        *(_CUE_ZH if zh else _CUE_EN).finditer(question.text),
        # a mixed question (English with 亿) reads as Chinese: ranked periods are read in both
        *_RANKED_ZH.finditer(question.text),
        *_RANKED_EN.finditer(question.text),
    ]
    for match in cues:
        if question.covered(match.start()) or _QUANTIFIED.match(question.text, match.end()):
            continue
        word = match["which"] if "which" in match.groupdict() else next(g for g in match.groups() if g)
        period = _ZH_PERIODS.get(word, word)
        if period in found:
            continue
        span = question.span(match.start(), match.end())
        names_zh = {"year": "年", "quarter": "季度", "month": "月", "week": "周"}
        text = question.says(
            f"{span.text}：按{names_zh[period]}分组", f"{span.text}: one figure per {period}"
        )
        found[period] = Constraint(
            span, text, question.lang, PerPeriodDetail(period, per_group.named_dimensions(question))
        )
    return sorted(found.values(), key=lambda constraint: constraint.span.start)
