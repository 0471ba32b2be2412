"""Conditions of the IR → WHERE expressions; each shown value a condition reads becomes a column."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from backend.domain.language.compiler.day_by_day import days_holding
from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.scopes import scope_condition
from backend.domain.language.compiler.sources import report_alias, series_alias
from backend.domain.language.compiler.sql import (
    OPS,
    call,
    col,
    comparable,
    comparison,
    derived,
    in_query,
    number,
    operand,
    string,
)
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.streaks import growth_stocks, sustained_stocks
from backend.domain.language.compiler.subsets import frequent_stocks, top_stocks, versus_group
from backend.domain.language.compiler.technical import technical_stocks
from backend.domain.language.compiler.time_resolution import (
    is_window,
    periods_asked,
    quarter_end,
    resolve_day,
    resolve_period,
)
from backend.domain.language.compiler.values import reading_time, refuse_unsaid_level_mean, value
from backend.domain.language.ir import (
    EACH_QUARTER,
    EVENT_TECHNICALS,
    PRICE_LIMITS,
    BoolOp,
    Compare,
    Condition,
    Frequency,
    GrowthStreak,
    LossToProfit,
    Not,
    Scope,
    Sustained,
    Technical,
    TimeSpec,
    TopSubset,
    VersusGroup,
)
from backend.domain.market.taxonomy import DAILY_LIMIT_PCT

# the extreme a day's own extreme price takes over a window (a ratio of the window's high and low)
WINDOW_EXTREMES = {"high": "max", "low": "min"}


def condition_expr(build: QueryBuild, condition: Condition, time: TimeSpec) -> exp.Expr:
    if isinstance(condition, BoolOp):
        parts = [condition_expr(build, item, time) for item in condition.items]
        return exp.and_(*parts) if condition.op == "and" else exp.Paren(this=exp.or_(*parts))
    if isinstance(condition, Not):
        item = condition_expr(build, condition.item, time)
        if isinstance(item, exp.Not):  # no value at all (亏损股: no P/E) reads x IS NULL, not NOT (NOT …)
            return item.this
        return exp.Not(this=exp.Paren(this=item))
    if isinstance(condition, Scope):
        return scope_condition(build, condition)
    if isinstance(condition, Compare) and condition.time is not None and condition.time.label == EACH_QUARTER:
        return condition_expr(build, _each_quarter(build, condition), time)
    if isinstance(condition, Compare):
        return _compare(build, condition, time)
    if isinstance(condition, VersusGroup):
        return versus_group(build, condition, reading_time(build, condition.metric, condition.time, time))
    if isinstance(condition, TopSubset):
        return in_query(col("ts_code", "b"), top_stocks(build, condition, time))
    if isinstance(condition, Frequency):
        return in_query(col("ts_code", "b"), frequent_stocks(build, condition, time, condition_expr))
    if (
        isinstance(condition, Technical)
        and condition.kind in EVENT_TECHNICALS
        and condition.time is None
        and not build.per_day
        and is_window(time)
    ):
        # hit limit down in the past week, crossed in the last 5 days: on any day of it, not on its
        # last day only
        once = Frequency(condition, ">=", 1)
        return in_query(col("ts_code", "b"), frequent_stocks(build, once, time, condition_expr))
    if isinstance(condition, Technical) and condition.kind in PRICE_LIMITS:
        return _price_limit(build, condition.kind, condition.time)
    if build.per_day and isinstance(condition, Technical) and condition.time is None and build.window:
        # above its 20-day MA on each day: the (stock, day) pairs where the test held
        days = series_alias(build, "daily", build.window)
        pair = exp.Tuple(expressions=[col("ts_code", days), col("trade_date", days)])
        return in_query(pair, days_holding(build, condition, build.window))
    if build.per_day:
        # a test over each stock's last bars is decided on the question's day, not on each day
        raise CompileError(f"cannot evaluate {type(condition).__name__.lower()} on each day of a window")
    if isinstance(condition, Technical):
        close, name = value(build, "close", condition.time)
        build.add_column(name, close)
        # a test on a day of its own (昨天站上20日均线) reads the bars ending that day
        own_day = replace(build, day=resolve_day(build.context, condition.time)) if condition.time else build
        return in_query(col("ts_code", "b"), technical_stocks(own_day, condition))
    if isinstance(condition, GrowthStreak):
        return in_query(col("ts_code", "b"), growth_stocks(build, condition, time))
    if isinstance(condition, LossToProfit):
        return _loss_to_profit(build, condition, time)
    if isinstance(condition, Sustained):
        return in_query(col("ts_code", "b"), sustained_stocks(build, condition, time))
    raise CompileError(f"cannot compile condition {condition!r}")


def _each_quarter(build: QueryBuild, condition: Compare) -> BoolOp:
    """每个季度都亏损 / in every quarter of 2025: the comparison at each quarter of the year reported by the
    question's day (its year None: the latest day's)."""
    year = (
        condition.time.year
        if condition.time and condition.time.year
        else build.context.latest_trade_date.year
    )
    periods = periods_asked(build.context, TimeSpec("year", year=year), build.day)
    quarters = (TimeSpec("quarter", year=year, quarter=period.month // 3) for period in periods)
    return BoolOp("and", tuple(replace(condition, time=quarter) for quarter in quarters))


def _compare(build: QueryBuild, condition: Compare, time: TimeSpec) -> exp.Expr:
    metrics = build.model.metrics
    if condition.metric not in metrics:
        raise CompileError(f"unknown attribute {condition.metric!r}")
    if condition.ratio:
        return _ratio(build, condition, time)
    metric_time = reading_time(build, condition.metric, condition.time, time)
    refuse_unsaid_level_mean(build, condition.metric, condition.agg, metric_time)
    expression, name = value(build, condition.metric, metric_time, condition.agg)
    build.add_column(name, expression)
    if condition.other is not None:
        if condition.other not in metrics:
            raise CompileError(f"unknown attribute {condition.other!r}")
        other_time = (
            reading_time(build, condition.other, condition.other_time, time)
            if condition.other_time
            else metric_time
        )
        other, other_name = value(build, condition.other, other_time, condition.agg)
        build.add_column(other_name, other)
        if not condition.value:
            return OPS[condition.op](this=comparable(expression), expression=comparable(other))
        # 比2023年多10亿以上: the difference of the two values against the threshold
        difference = derived(exp.Paren(this=exp.Sub(this=expression.copy(), expression=operand(other))))
        return comparison(difference, condition)
    return comparison(expression, condition)


def _ratio(build: QueryBuild, condition: Compare, time: TimeSpec) -> exp.Expr:
    """One measure in % of another (流通股占总股本比例低于60%): 100 × A ÷ B on one day or report
    period, each its own (FY2024 EPS in % of FY2023's). Over a window only a day's extremes have one
    reading — the window's highest high over its lowest low (近30天最高价比最低价高出120%); any
    other pair over a window is not read."""
    assert condition.other is not None
    if condition.other not in build.model.metrics:
        raise CompileError(f"unknown attribute {condition.other!r}")
    part_time = reading_time(build, condition.metric, condition.time, time)
    whole_time = (
        reading_time(build, condition.other, condition.other_time, time)
        if condition.other_time
        else part_time
    )
    metrics = build.model.metrics
    # a report figure's period (FY2024 against FY2023) is one value per stock, never a window of days
    over_window = (is_window(part_time) and metrics[condition.metric].kind == "daily") or (
        is_window(whole_time) and metrics[condition.other].kind == "daily"
    )
    aggs = (
        (WINDOW_EXTREMES.get(condition.metric), WINDOW_EXTREMES.get(condition.other))
        if over_window
        else (None, None)
    )
    if over_window and None in aggs:
        raise CompileError(
            "a ratio of two measures over a window is read only for its highest high and lowest low"
        )
    part, part_name = value(build, condition.metric, part_time, aggs[0])
    whole, whole_name = value(build, condition.other, whole_time, aggs[1])
    build.add_column(part_name, part)
    build.add_column(whole_name, whole)
    share = exp.Div(this=exp.Mul(this=number(100), expression=operand(part)),
                    expression=call("nullIf", whole.copy(), number(0)))  # fmt: skip
    return comparison(derived(share), condition)


def _loss_to_profit(build: QueryBuild, condition: LossToProfit, time: TimeSpec) -> exp.Expr:
    """A profit in the period, a loss in the same kind of period a year before (YTD against YTD)."""
    metric = build.model.metrics[condition.metric]
    if metric.kind != "report":
        raise CompileError(f"a swing from loss to profit reads a report figure, not {condition.metric!r}")
    period_time = reading_time(build, condition.metric, condition.time, time)
    now, name = value(build, condition.metric, period_time)
    build.add_column(name, now)
    period = resolve_period(build.context, period_time, build.day)
    year_before = quarter_end(period.year - 1, period.month)
    before = col(metric.column, report_alias(build, metric.table, year_before))
    build.add_column(f"{metric.column}_{year_before.year}", before)
    return exp.and_(exp.GT(this=now, expression=number(0)), exp.LT(this=before, expression=number(0)))


def _price_limit(build: QueryBuild, kind: str, time: TimeSpec | None) -> exp.Expr:
    """Closed at (touched intraday: the high or the low at) the daily limit price of the stock's board:
    round(pre_close × (1 ± limit%), 2)."""
    up = kind.startswith("limit_up")
    price = ("high" if up else "low") if kind.endswith("_touched") else "close"
    reached, name = value(build, price, time)
    build.add_column(name, reached)
    pre_close, _name = value(build, "pre_close", time)
    pct, pct_name = value(build, "pct_chg", time)
    build.add_column(pct_name, pct)
    branches: list[exp.Expr] = []
    for board, limit in DAILY_LIMIT_PCT.items():
        branches += [exp.EQ(this=col("market", "b"), expression=string(board)), number(limit)]
    limit_pct = call("multiIf", *branches, number(10))
    sign = exp.Add if up else exp.Sub
    factor = exp.Paren(this=sign(this=number(1), expression=exp.Div(this=limit_pct, expression=number(100))))
    limit_price = call("round", exp.Mul(this=pre_close, expression=factor), number(2))
    half_cent = number(0.005)
    if up:
        return exp.GTE(this=reached, expression=exp.Sub(this=limit_price, expression=half_cent))
    return exp.LTE(this=reached, expression=exp.Add(this=limit_price, expression=half_cent))
