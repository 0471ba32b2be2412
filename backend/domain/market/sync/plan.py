"""Incremental planning: which trade dates, report periods and ranges a sync still has to fetch.

Pure functions of what the store already holds (its latest date per table, or per exchange/index),
the optional `--since` date and today. Rules:
- a window starts the day after the latest stored date; `since` overrides it (a deliberate re-fetch,
  made safe by delete-insert); an empty table starts DEFAULT_LOOKBACK_DAYS before today;
- trade dates are the open days of the stored calendar in that window, up to today;
- report periods are quarter ends up to today, starting AT the latest stored period: companies keep
  announcing a period's reports for months (annual reports until April 30), so the newest stored
  period is fetched again to complete it;
- the calendar is fetched to the end of the current year (exchanges publish it ahead).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

DEFAULT_LOOKBACK_DAYS = 30
SYNC_SOURCES = ("tushare", "akshare")
# Tables in the order they are synced: the calendar first (daily tables read its open days).
SYNC_TABLES = ("trade_cal", "stock_basic", "daily", "daily_basic", "income", "fina_indicator", "index_weight")
QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))


def window_start(latest: date | None, since: date | None, today: date) -> date:
    if since is not None:
        return since
    if latest is not None:
        return latest + timedelta(days=1)
    return today - timedelta(days=DEFAULT_LOOKBACK_DAYS)


def calendar_range(latest: date | None, since: date | None, today: date) -> tuple[date, date] | None:
    start, end = window_start(latest, since, today), date(today.year, 12, 31)
    return (start, end) if start <= end else None


def trade_dates(
    open_days: Iterable[date], latest: date | None, since: date | None, today: date
) -> list[date]:
    start = window_start(latest, since, today)
    return sorted(day for day in set(open_days) if start <= day <= today)


def quarter_end_on_or_before(day: date) -> date:
    for year in (day.year, day.year - 1):
        for month, last in reversed(QUARTER_ENDS):
            end = date(year, month, last)
            if end <= day:
                return end
    raise AssertionError("unreachable: December 31 of the previous year is always on or before the day")


def _next_quarter_end(period: date) -> date:
    return quarter_end_on_or_before(period + timedelta(days=92))  # quarters are 90 to 92 days long


def report_periods(latest: date | None, since: date | None, today: date) -> list[date]:
    if since is not None:
        first = quarter_end_on_or_before(since)
    elif latest is not None:
        first = latest
    else:
        first = quarter_end_on_or_before(today - timedelta(days=DEFAULT_LOOKBACK_DAYS))
    periods = []
    period = quarter_end_on_or_before(first)
    while period <= today:
        periods.append(period)
        period = _next_quarter_end(period)
    return periods
