"""The value of a metric for the question's day, a report period or a window, as (expression, name).

The name is the output column: the metric's own name on the question's day or main report period,
suffixed with the day or year otherwise (close_20250905, n_income_attr_p_2023).
"""

from __future__ import annotations

from datetime import date

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sources import (
    FLOWS_AND_GAINS,
    daily_alias,
    index_snapshot_filter,
    metric_expr,
    periods_alias,
    report_alias,
    series_alias,
    window_alias,
)
from backend.domain.language.compiler.sql import col, derived, number, table
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import (
    is_window,
    quarter_end,
    resolve_day,
    resolve_period,
    resolve_window,
)
from backend.domain.language.ir import WINDOW_MEASURES, TimeSpec
from backend.domain.language.semantic import Metric

# volatility, drawdowns, the rise from a low and the longest streaks: no value on a day
WINDOW_ONLY = WINDOW_MEASURES


def value(
    build: QueryBuild, metric_key: str, time: TimeSpec | None, agg: str | None = None
) -> tuple[exp.Expr, str]:
    """(expression, output name) of a metric; `agg` picks a window aggregate or single_quarter."""
    expression, name = _value(build, metric_key, time, agg)
    build.column_metrics.setdefault(name, metric_key)  # shown in the question's unit (units.py)
    return expression, name


def _value(
    build: QueryBuild, metric_key: str, time: TimeSpec | None, agg: str | None
) -> tuple[exp.Expr, str]:
    context = build.context
    metric = build.model.metrics[metric_key]
    spec = time or TimeSpec()
    if metric.kind == "index":
        return _index_weight(build, metric, time)
    if metric.kind == "report":
        if agg in {"ttm", "qoq", "single_yoy"}:
            return _derived_figure(build, metric, _latest_period(build, time), agg)
        if build.report_periods and (time is None or time == build.screen_time):
            if agg is not None:  # 各报告期单季净利润: a derived figure per period is not read
                raise CompileError(f"{agg} of {metric_key} is not read per report period")
            return col(metric.column, periods_alias(build, metric.table)), metric.column
        period = resolve_period(context, time, build.day)
        alias = report_alias(build, metric.table, period)
        if agg == "single_quarter":
            return _single_quarter(build, metric, period)
        name = metric.column if period == _main_period(build) else f"{metric.column}_{period.year}"
        return col(metric.column, alias), name
    same_window = time is None or time == build.screen_time
    if build.per_day and agg is None and build.window is not None and same_window:
        alias = series_alias(build, metric.table, build.window)
        return col(metric.column, alias), metric.column
    if (
        is_window(spec)
        and agg is None
        and metric.key not in FLOWS_AND_GAINS
        and build.report_time
        and same_window
    ):
        return _latest_level(build, metric)
    if is_window(spec):
        window = resolve_window(context, spec)
        alias, column = window_alias(build, metric_key, agg, window)
        return derived(col(column, alias)), column
    if agg in WINDOW_ONLY:
        raise CompileError(
            f"{agg} of {metric_key} is measured over a window of days (近20个交易日, last 20 days)"
        )
    day = resolve_day(context, spec) if time is not None else build.day
    alias = daily_alias(build, metric.table, day)
    name = metric.key if day == build.day else f"{metric.key}_{day.strftime('%Y%m%d')}"
    return metric_expr(metric, alias), name


def _latest_level(build: QueryBuild, metric: Metric) -> tuple[exp.Expr, str]:
    """A level (a price, a market value, a multiple) said with no average word in a question whose
    report period dates its report figures (最新一期净利率最高、流通市值不到20亿的) is the latest day's,
    never silently the period's average."""
    day = build.context.latest_trade_date
    alias = daily_alias(build, metric.table, day)
    name = metric.key if day == build.day else f"{metric.key}_{day.strftime('%Y%m%d')}"
    return metric_expr(metric, alias), name


def refuse_unsaid_level_mean(
    build: QueryBuild, metric_key: str, agg: str | None, time: TimeSpec | None
) -> None:
    """A condition on a level over a window of days with no average word (2024年市盈率低于10) is
    refused, never read as the window's average (a by-day reading compares each day's own value)."""
    metric = build.model.metrics[metric_key]
    if metric.kind != "daily" or agg is not None or metric.key in FLOWS_AND_GAINS or not is_window(time):
        return
    same_window = time == build.screen_time
    if (build.per_day or build.report_time) and same_window:
        return
    raise CompileError(
        f"{metric_key} over a window of days is compared as an average only when one is said "
        "(近20日平均市盈率低于10, average P/E over the last 20 days below 10), else on one day"
    )


def reading_time(build: QueryBuild, metric_key: str, own: TimeSpec | None, time: TimeSpec) -> TimeSpec | None:
    """The time a condition reads its metric at: its own, else the question's; a report figure keeps
    its own period (None: the latest annual report) unless the question's time is a window."""
    if own is not None or build.model.metrics[metric_key].kind == "daily" or not time.is_single_day:
        return own or time
    return None


def _single_quarter(build: QueryBuild, metric: Metric, period: date) -> tuple[exp.Expr, str]:
    """Income figures are year-to-date: a quarter's own figure is YTD minus the previous quarter's YTD."""
    alone = _quarter_alone(build, metric, period)
    return (alone if period.month == 3 else derived(alone)), f"{metric.column}_single_quarter"


def _quarter_alone(build: QueryBuild, metric: Metric, period: date) -> exp.Expr:
    """Q = YTD(q) − YTD(q − 1) within the fiscal year; Q1 is its own YTD."""
    ytd = col(metric.column, report_alias(build, metric.table, period))
    if period.month == 3:
        return ytd
    previous = col(
        metric.column, report_alias(build, metric.table, quarter_end(period.year, period.month - 3))
    )
    return exp.Paren(this=exp.Sub(this=ytd, expression=previous))


def _derived_figure(build: QueryBuild, metric: Metric, period: date, agg: str) -> tuple[exp.Expr, str]:
    """TTM = YTD(q) + annual(y − 1) − YTD(q, y − 1) (the annual figure itself at a year end);
    QoQ = (Q(q) − Q(q − 1)) / Q(q − 1) × 100, each quarter's own figure; NULL (never compared true)
    when Q(q − 1) ≤ 0: a growth rate from a loss or from nothing is not a number people compare;
    single_yoy the same against the same quarter a year before (单季净利润同比)."""
    if agg == "ttm":
        ytd = col(metric.column, report_alias(build, metric.table, period))
        if period.month == 12:
            return ytd, f"{metric.column}_ttm"
        last_annual = col(metric.column, report_alias(build, metric.table, date(period.year - 1, 12, 31)))
        year_before = col(metric.column, report_alias(build, metric.table, _year_before(period)))
        trailing = exp.Sub(this=exp.Add(this=ytd, expression=last_annual), expression=year_before)
        return derived(exp.Paren(this=trailing)), f"{metric.column}_ttm"
    if agg == "single_yoy":  # the same quarter a year before
        previous_period = _year_before(period)
    else:
        previous_period = _year_before(period) if period.month == 3 else period
        previous_period = quarter_end(previous_period.year, 12 if period.month == 3 else period.month - 3)
    this_quarter = _quarter_alone(build, metric, period)
    previous = _quarter_alone(build, metric, previous_period)
    change = exp.Mul(
        this=exp.Div(
            this=exp.Paren(this=exp.Sub(this=this_quarter, expression=previous.copy())),
            expression=exp.If(
                this=exp.GT(this=previous.copy(), expression=number(0)), true=previous, false=exp.Null()
            ),
        ),
        expression=number(100),
    )
    return derived(change), f"{metric.column}_{agg}"


def _year_before(period: date) -> date:
    return quarter_end(period.year - 1, period.month)


def _latest_period(build: QueryBuild, time: TimeSpec | None) -> date:
    """A trailing or quarter-on-quarter figure reads the quarter the question names, else the latest
    report period (any quarter) on or before the question's day — not the latest annual report."""
    if time is not None and time.label in {"quarter", "latest_report"}:
        return resolve_period(build.context, time, build.day)
    periods = [period for period in build.context.report_periods if period <= build.day]
    if not periods:
        raise CompileError(f"no report period was announced by {build.day.isoformat()}")
    return periods[-1]


def _index_weight(build: QueryBuild, metric: Metric, time: TimeSpec | None) -> tuple[exp.Expr, str]:
    """A constituent's weight in the index the question is scoped to, from the same snapshot — or,
    at a day of its own (权重比半年前…), from the snapshot in force that day (a stock in both)."""
    if len(build.index_members) != 1:
        raise CompileError("an index weight needs exactly one index in the question (e.g. 沪深300成分股)")
    code, snapshot = next(iter(build.index_members.items()))
    alias, name = "iw", metric.column
    if time is not None and time != build.screen_time:
        if not time.is_single_day:
            raise CompileError("an index weight is read on one day's snapshot, not over a window")
        day = resolve_day(build.context, time)
        own = build.context.index_snapshot(code, day)
        if own is None:
            raise CompileError(f"index {code} has no constituent snapshot on or before {day.isoformat()}")
        if own != snapshot:
            snapshot, alias, name = own, f"iw_{own:%Y%m%d}", f"{metric.column}_{own:%Y%m%d}"
    if alias not in build.joins:
        build.joins[alias] = (
            exp.select(exp.alias_(col("con_code"), "ts_code"), col(metric.column))
            .from_(table(build.context, metric.table))
            .where(index_snapshot_filter(code, snapshot))
        )
    return col(metric.column, alias), name


def _main_period(build: QueryBuild) -> date | None:
    """The question's default report period, if the data has one (names its figures without a year)."""
    try:
        return resolve_period(build.context, None, build.day)
    except CompileError:
        return None
