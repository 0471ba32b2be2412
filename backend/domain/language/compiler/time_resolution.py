"""Symbolic times (ir.TimeSpec) → days, windows and report periods on the context's trading calendar."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from datetime import date, timedelta

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import HALF_YEAR_ENDS, REPORT_TIME_LABELS, TimeSpec

ANNUAL_LABELS = {"year", "annual", "last_year", "year_before"}  # times that name one annual report
# times that name a report period when a question reads report figures only
REPORT_PERIOD_LABELS = ANNUAL_LABELS | {"quarter", "half", "last_quarter", "this_quarter"}
# A calendar period's return (this year, 2024, since March, last month) starts from each stock's last
# close before the period, on whatever day it traded last; a window of N days needs the base day's bar.
PERIOD_LABELS = ANNUAL_LABELS | {
    "this_year", "this_month", "this_week", "last_week", "last_month", "month", "quarter", "half",
    "this_quarter", "last_quarter",
}  # fmt: skip
TO_DATE_LABELS = {"this_year", "this_month", "this_week", "this_quarter", "since"}


@dataclass(frozen=True)
class Window:
    base: date  # last trading day before the window (the base of a gain)
    end: date  # last trading day in the window
    period: bool = False  # a calendar period: a stock without a bar on `base` takes its last close before
    # a period said as still under way (this year, 今年以来, since March): a return to date, so the
    # stock trades on its last day; a period named (2025, Q4 2025) ends on its own last close
    to_date: bool = False
    # between A and B: the days from A on, a gain measured from A's close (not from the day before A)
    gain_base: date | None = None


def is_window(spec: TimeSpec | None) -> bool:
    return spec is not None and not spec.is_single_day


def resolve_day(context: LanguageContext, spec: TimeSpec) -> date:
    latest = context.latest_trade_date
    if spec.label == "date" and spec.day is not None:
        return spec.day
    if spec.label == "yesterday":
        previous = context.trading_day_offset(latest, -1)
        if previous is None:
            raise CompileError("there is no trading day before the latest one in the data")
        return previous
    if spec.label == "days_ago" and spec.n:  # 3 sessions ago: counted in trading days from the latest
        earlier = context.trading_day_offset(latest, -spec.n)
        if earlier is None:
            raise CompileError(f"the data has no trading day {spec.n} sessions before the latest one")
        return earlier
    if spec.label == "period_end" and spec.year and spec.month:  # 2024年6月底: its last trading day
        last_day = months_back(date(spec.year, spec.month, 1), -1) - timedelta(days=1)
        found = context.last_trading_day_on_or_before(last_day)
        if found is None:
            raise CompileError(f"the data has no trading day on or before {last_day.isoformat()}")
        return found
    if spec.label == "period_start" and spec.year and spec.month:  # the first trading day of 2025
        first_day = date(spec.year, spec.month, 1)
        after = bisect.bisect_left(context.trade_dates, first_day)
        if after == len(context.trade_dates) or context.trade_dates[after] > months_back(first_day, -1):
            raise CompileError(f"the data has no trading day in {first_day.strftime('%Y-%m')}")
        return context.trade_dates[after]
    return latest


def resolve_window(context: LanguageContext, spec: TimeSpec) -> Window:
    window = _resolve_window(context, spec)
    # since a day counts from that day's bar before; since a month or a year (its first day) is a period
    since_period = spec.label == "since" and spec.day is not None and spec.day.day == 1
    return replace(
        window, period=spec.label in PERIOD_LABELS or since_period, to_date=spec.label in TO_DATE_LABELS
    )


def trading_days_in(context: LanguageContext, window: Window) -> int:
    """How many trading days the window holds (after its base day, up to its last day)."""
    return bisect.bisect_right(context.trade_dates, window.end) - bisect.bisect_right(
        context.trade_dates, window.base
    )


def _resolve_window(context: LanguageContext, spec: TimeSpec) -> Window:
    latest = context.latest_trade_date

    def last_on_or_before(day: date) -> date:
        found = context.last_trading_day_on_or_before(day)
        if found is None:
            raise CompileError(f"the data has no trading day on or before {day.isoformat()}")
        return found

    def before(day: date) -> date:
        return last_on_or_before(day - timedelta(days=1))

    label = spec.label
    n = spec.n or 1
    if label == "recent_days":
        return Window(last_on_or_before(latest - timedelta(days=n)), latest)
    if label == "recent_weeks":
        return Window(last_on_or_before(latest - timedelta(days=7 * n)), latest)
    if label == "recent_months":
        return Window(last_on_or_before(months_back(latest, n)), latest)
    if label == "recent_bars":
        base = context.trading_day_offset(latest, -n)
        if base is None:
            raise CompileError(f"the data has fewer than {n + 1} trading days")
        return Window(base, latest)
    if label == "this_year":
        return Window(before(date(latest.year, 1, 1)), latest)
    if label == "this_month":
        return Window(before(latest.replace(day=1)), latest)
    if label == "this_week":
        return Window(before(latest - timedelta(days=latest.weekday())), latest)
    if label == "last_week":
        monday = latest - timedelta(days=latest.weekday())
        return Window(before(monday - timedelta(days=7)), before(monday))
    if label == "last_month":
        first = latest.replace(day=1)
        return Window(before(months_back(first, 1)), before(first))
    if label in ANNUAL_LABELS:
        year = {"last_year": latest.year - 1, "year_before": latest.year - 2}.get(
            label, spec.year or latest.year
        )
        return Window(before(date(year, 1, 1)), min(last_on_or_before(date(year, 12, 31)), latest))
    if label in {"this_quarter", "last_quarter"}:
        this_quarter = date(latest.year, latest.month - (latest.month - 1) % 3, 1)
        if label == "this_quarter":
            return Window(before(this_quarter), latest)
        return Window(before(months_back(this_quarter, 3)), before(this_quarter))
    if label in {"month", "half"} and spec.year and spec.month:  # a month, or the six ending with one
        first = date(spec.year, spec.month - (5 if label == "half" else 0), 1)
        last = months_back(date(spec.year, spec.month, 1), -1) - timedelta(days=1)
        return Window(before(first), min(last_on_or_before(last), latest))
    if (label == "quarter" and spec.quarter) or label == "latest_report":  # the report period's quarter
        period = resolve_period(context, spec, latest)
        first = date(period.year, period.month - 2, 1)
        return Window(before(first), last_on_or_before(period))
    if label == "date_range" and spec.day and spec.end_day:
        return Window(before(spec.day), last_on_or_before(spec.end_day))
    if label == "recent_reports":  # the last N report periods: the quarters they close
        periods = recent_periods(context, latest, n)
        return Window(before(date(periods[0].year, periods[0].month - 2, 1)), last_on_or_before(periods[-1]))
    if label == "since" and spec.day:  # 2025年以来 / since March 2024: from that day to the latest
        return Window(before(spec.day), latest)
    if label == "date_span" and spec.day:  # no end day said: between that day and today
        first = last_on_or_before(spec.day)
        end = last_on_or_before(spec.end_day) if spec.end_day else latest
        return Window(before(spec.day), end, gain_base=first)
    raise CompileError(f"time scope {label} is not a window")


def resolve_period(context: LanguageContext, spec: TimeSpec | None, day: date) -> date:
    """The report period (end_date) a fundamental figure is read from."""
    latest = context.latest_trade_date
    if spec is not None:
        if spec.label in {"year", "annual"} and spec.year:
            return date(spec.year, 12, 31)
        if spec.label == "annual":  # 最近一期年报 / the latest annual report
            return latest_annual_period(context, day)
        if spec.label == "last_year":
            return date(latest.year - 1, 12, 31)
        if spec.label == "year_before":
            return date(latest.year - 2, 12, 31)
        if spec.label == "quarter" and spec.year and spec.quarter:
            return quarter_end(spec.year, 3 * spec.quarter)
        if spec.label == "quarter" and spec.quarter:  # 三季报 with no year: the latest Q3 report
            return latest_report_period(context, day, month=3 * spec.quarter)
        if spec.label == "last_quarter":  # 上季度净利润: that quarter's report (year-to-date, as stored)
            previous = date(latest.year, latest.month - (latest.month - 1) % 3, 1) - timedelta(days=1)
            return quarter_end(previous.year, previous.month)
        if spec.label == "this_quarter":
            raise CompileError(
                "the quarter under way has no report yet: ask for last quarter's or the latest report"
            )
        if spec.label == "half" and spec.year and spec.month == HALF_YEAR_ENDS[0]:  # the half-year report
            return quarter_end(spec.year, 6)
        if spec.label == "half":
            raise CompileError(
                "a second half's report figure is no stored period (the annual figure less the half-year "
                "one): ask for the annual or the half-year report"
            )
        if not spec.is_single_day and spec.label not in REPORT_TIME_LABELS:
            # 近12个月净利润 / loss-making over the trailing twelve months: a window of days is no
            # report period; read silently as the latest one it would be another answer
            raise CompileError(
                f"a report figure is read for a report period, not over a window of days ({spec.label}): "
                "name the period (2024年报, 最新一期) or the trailing four quarters (TTM, 近四个季度)"
            )
    # no period named (净利率超过30%的公司), or 最新一期财报: the latest report period of any quarter,
    # as a question naming no day reads the latest trading day — never the latest annual report
    return latest_report_period(context, day)


def periods_asked(context: LanguageContext, spec: TimeSpec, day: date) -> tuple[date, ...]:
    """2025年各报告期: the report periods of the year asked announced by `day` (a breakdown by period
    needs its year, or a count of the latest ones — 近4个报告期: every period of the history is no
    question anyone means)."""
    if spec.label == "recent_reports" and spec.n:
        return tuple(recent_periods(context, day, spec.n))
    if spec.label == "annual" and spec.year and spec.n:  # for each fiscal year from 2021 to 2024
        ends = {date(spec.year - k, 12, 31) for k in range(spec.n)}
        return tuple(p for p in context.report_periods if p in ends and p <= day)
    if spec.label not in {"year", "annual"} or not spec.year:
        raise CompileError("a breakdown by report period needs its year (2025年各报告期)")
    periods = tuple(p for p in context.report_periods if p.year == spec.year and p <= day)
    if not periods:
        raise CompileError(f"no report period of {spec.year} was announced by {day.isoformat()}")
    return periods


def latest_annual_period(context: LanguageContext, day: date) -> date:
    """The latest annual report (period ending 12-31) announced by `day`: the last of a run of years."""
    period = context.latest_annual_period(day)
    if period is None:
        raise CompileError(f"no annual report (period ending 12-31) was announced by {day.isoformat()}")
    return period


def latest_report_period(context: LanguageContext, day: date, month: int | None = None) -> date:
    """The latest report period in the data on or before `day` (of that quarter's `month` if given):
    one period for every stock, as the figures of a market screen are read on one day."""
    periods = [p for p in context.report_periods if p <= day and (month is None or p.month == month)]
    if not periods:
        which = f"period ending in month {month}" if month else "period"
        raise CompileError(f"no report {which} was announced by {day.isoformat()}")
    return periods[-1]


def annual_periods(context: LanguageContext, time: TimeSpec, day: date, count: int) -> list[date]:
    """The last `count` year ends, newest first, up to the year the question names (else the latest)."""
    if time.label in ANNUAL_LABELS:
        reference = resolve_period(context, time, day)
    else:
        reference = latest_annual_period(context, day)
    return [date(reference.year - k, 12, 31) for k in range(count)]


def recent_periods(context: LanguageContext, day: date, count: int) -> list[date]:
    """The last `count` report periods (any quarter) on or before `day`, oldest first."""
    periods = [p for p in context.report_periods if p <= day]
    if len(periods) < count:
        raise CompileError(f"the data has fewer than {count} report periods")
    return periods[-count:]


def quarter_end(year: int, month: int) -> date:
    """The report period ending in `month` (3, 6, 9 or 12) of `year`."""
    return date(year, month, 31 if month in {3, 12} else 30)


def months_back(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    month += 1
    for candidate in (day.day, 30, 29, 28):
        try:
            return date(year, month, min(candidate, day.day))
        except ValueError:
            continue
    return date(year, month, 28)


def years_back(day: date, years: float) -> date:
    return months_back(day, round(years * 12))
