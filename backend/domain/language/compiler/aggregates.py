"""Aggregate queries: one row per group (or one row for the whole set) with the aggregates asked
for, the aggregate the groups are ordered by, and HAVING filters on group aggregates."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from backend.domain.language.compiler.conditions import condition_expr
from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.naming import aggregate_name
from backend.domain.language.compiler.sources import (
    SUM_OVER_WINDOW,
    dimension,
    join_all,
    metric_expr,
    series_alias,
)
from backend.domain.language.compiler.sql import (
    call,
    col,
    comparable,
    comparison,
    conjunction,
    derived,
    number,
    ordered,
    table,
)
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.subsets import versus_whole_set
from backend.domain.language.compiler.time_resolution import is_window, resolve_window
from backend.domain.language.compiler.units import in_display_unit
from backend.domain.language.compiler.values import value
from backend.domain.language.compiler.window_levels import per_stock_extreme
from backend.domain.language.ir import Aggregate, Compare, Order, Screen, TimeSpec, VersusGroup

AGGREGATE_ORDER_PREFIX = "agg:"  # Order.metric "agg:<fn>:<metric>" orders groups by an aggregate
COMPUTED_AGGREGATES = {"avg", "sum", "median"}  # min/max/count return stored values or integers
DAY_COUNTS = {"trading_days", "stock_days"}  # counts of the window's days / stock-day bars, row by row
# aggregates a ranking names without the condition they count (the highest share, 涨停次数最多)
COUNTED_WITH_CONDITION = {"share", *DAY_COUNTS}


def orders_by_aggregate(order: Order | None) -> bool:
    return order is not None and order.metric.startswith(AGGREGATE_ORDER_PREFIX)


def aggregate_query(screen: Screen, build: QueryBuild, where: list[exp.Expr]) -> exp.Query:
    if any(aggregate.fn == "groups" for aggregate in screen.aggregates):
        return _count_groups(screen, build, where)
    group_column: exp.Expr | None = None
    if screen.group_by:
        group_column = dimension(build, screen.group_by)
    select: list[exp.Expr] = []
    if group_column is not None:
        select.append(exp.alias_(group_column, screen.group_by or ""))
    aggregates = list(screen.aggregates)
    order_key: str | None = None
    order_aggregate = _order_aggregate(screen.order, screen.aggregates)
    if order_aggregate is not None and order_aggregate not in aggregates:
        aggregates.append(order_aggregate)
    if not aggregates:
        aggregates.append(Aggregate("count"))
    for condition in screen.having:  # 平均ROE超过10%的行业: the figure the groups were kept for is shown
        compared = _having_aggregate(condition)
        if compared not in aggregates:
            aggregates.append(compared)
    for aggregate in aggregates:
        expression = _over_window_days(build, aggregate, screen)
        expression = expression or aggregate_expr(build, aggregate, screen.time)
        metric = None if aggregate.fn in {"count", "share"} else aggregate.metric
        name, shown = in_display_unit(build, aggregate_name(aggregate), expression, metric)
        select.append(exp.alias_(shown, name))
        if aggregate == order_aggregate:
            order_key = name
    having = [_group_filter(build, condition, screen) for condition in screen.having]
    query = join_all(exp.select(*select).from_(table(build.context, "stock_basic", "b")), build)
    if where:
        query = query.where(conjunction(where))
    if group_column is not None:
        query = query.group_by(group_column)
    if having:
        query = query.having(conjunction(having))
    ordering: list[exp.Ordered] = []
    if order_key is not None and screen.order is not None:
        ordering.append(ordered(exp.column(order_key), screen.order.direction))
    if group_column is not None:
        ordering.append(exp.Ordered(this=exp.column(screen.group_by or "")))
    if ordering:
        query = query.order_by(*ordering)
    if screen.limit is not None:
        query = query.limit(number(screen.limit))
    return query


def _count_groups(screen: Screen, build: QueryBuild, where: list[exp.Expr]) -> exp.Query:
    """How many groups (days) the grouped query gives: its rows counted (groups kept by a HAVING, the
    days with more than 25 limit-up stocks). Another figure beside it is no figure of the count."""
    if screen.group_by is None:
        raise CompileError("a count of groups needs a grouping (industries, trading days …)")
    compared = [_having_aggregate(condition) for condition in screen.having]  # the count a HAVING filters on
    others = [a for a in screen.aggregates if a.fn != "groups" and a not in compared]
    if others or screen.order is not None or screen.limit is not None:
        raise CompileError("a count of groups is asked alone: no other figure, ranking or limit beside it")
    grouped = aggregate_query(replace(screen, aggregates=[]), build, where)
    counted = exp.alias_(exp.Count(this=exp.Star()), f"{screen.group_by}_count")
    return exp.select(counted).from_(grouped.subquery("grouped"))


def _over_window_days(build: QueryBuild, aggregate: Aggregate, screen: Screen) -> exp.Expr | None:
    """A group's figure over a window of days, read from the rows of each stock and day: its average
    level (换手率, P/E) over every stock-day bar, and its daily average flow (日均成交额) as the group's
    total per trading day. None when the aggregate is read another way (gains, per-stock figures)."""
    metric = build.model.metrics.get(aggregate.metric or "")
    time = screen.time
    if metric is None or aggregate.where is not None or not is_window(time) or metric.kind != "daily":
        return None
    if screen.group_by == "trade_date" or aggregate.fn not in {"avg", "median"}:
        return None
    flow = metric.key in SUM_OVER_WINDOW
    if flow and (not build.per_day or aggregate.fn != "avg"):
        return None  # an average of the stocks' window totals
    if metric.key == "pct_chg" and not build.per_day:
        return None  # 近5日平均涨幅: each stock's gain over the window, averaged
    rows = metric_expr(metric, series_alias(build, metric.table, resolve_window(build.context, time)))
    if flow:
        days = exp.Count(this=exp.Distinct(expressions=[col("trade_date", "s")]))
        return derived(exp.Div(this=call("sum", rows), expression=days))
    return derived(call(aggregate.fn, rows))


def _group_filter(build: QueryBuild, condition: Compare | VersusGroup, screen: Screen) -> exp.Expr:
    """A HAVING test: the group's aggregate against a number, or against the whole set's figure."""
    aggregate = _having_aggregate(condition)
    own = _over_window_days(build, aggregate, screen) or aggregate_expr(build, aggregate, screen.time)
    if isinstance(condition, VersusGroup):
        return versus_whole_set(build, condition, screen, own)
    return comparison(own, condition)


def _having_aggregate(condition: Compare | VersusGroup) -> Aggregate:
    if isinstance(condition, VersusGroup):  # the group's own average, compared with the market's
        return Aggregate(condition.fn, condition.metric)
    if condition.agg in {"count", "share"}:  # 股票数超过100只的地区; industries where 70% rose
        return Aggregate(condition.agg, None, condition.where)
    return Aggregate(condition.agg or "avg", condition.metric, condition.where)


def _order_aggregate(order: Order | None, aggregates: list[Aggregate]) -> Aggregate | None:
    """The aggregate the groups are ordered by: the one named (a share or a count of days, which a
    ranking names without the condition they count — the share of …, 涨停次数最多: the screen's own),
    else the metric's average ("各行业平均涨幅排序" without an aggregate word)."""
    if order is None:
        return None
    if orders_by_aggregate(order):
        _prefix, fn, metric = order.metric.split(":", 2)
        shown = [aggregate for aggregate in aggregates if aggregate.fn == fn and fn in COUNTED_WITH_CONDITION]
        return shown[0] if shown else Aggregate(fn, metric or None)
    return Aggregate("avg", order.metric)


def aggregate_expr(build: QueryBuild, aggregate: Aggregate, time: TimeSpec) -> exp.Expr:
    if aggregate.where is not None:
        return _filtered(build, aggregate, time)
    if aggregate.fn == "trading_days":  # the window's days with a bar (meeting the conditions, row by row)
        if build.window is None:
            raise CompileError("a count of trading days needs a window (2024, the last 30 days …)")
        days = col("trade_date", series_alias(build, "daily", build.window))
        return exp.Count(this=exp.Distinct(expressions=[days]))
    if aggregate.fn == "count" or aggregate.metric is None:
        return exp.Count(this=exp.Distinct(expressions=[col("ts_code", "b")]))
    metric = build.model.metrics[aggregate.metric]
    if aggregate.fn in {"count_up", "count_down", "up_down_ratio", "net_up"}:
        change, _name = value(build, aggregate.metric, time)
        up = call("countIf", exp.GT(this=comparable(change), expression=number(0)))
        down = call("countIf", exp.LT(this=comparable(change.copy()), expression=number(0)))
        if aggregate.fn == "up_down_ratio":  # advancers per decliner; NULL without any decliner
            return derived(exp.Div(this=up, expression=call("nullIf", down, number(0))))
        if aggregate.fn == "net_up":  # advancers minus decliners: above 0 when more rose than fell
            return exp.Sub(this=up, expression=down)
        return up if aggregate.fn == "count_up" else down
    if is_window(time) and metric.kind == "daily":
        # an aggregate over a window: per stock over the window first (gain, sum or average; the
        # highest / lowest price or valuation: the same extreme over the stock's bars, unless read by day)
        extreme = None if build.per_day else per_stock_extreme(metric.key, aggregate.fn)
        expression, _name = value(build, aggregate.metric, time, extreme)
    else:
        expression, _name = value(build, aggregate.metric, time)
    aggregated = call(aggregate.fn, expression)  # QST aggregate names are ClickHouse functions
    return derived(aggregated) if aggregate.fn in COMPUTED_AGGREGATES else aggregated


def _filtered(build: QueryBuild, aggregate: Aggregate, time: TimeSpec) -> exp.Expr:
    """涨停和跌停各有多少家 / share of stocks up: the aggregate over the stocks where a condition holds
    (each condition its own column); share = those stocks in % of the whole set."""
    assert aggregate.where is not None
    holds = condition_expr(build, aggregate.where, time)
    if aggregate.fn == "stock_days":  # 涨停家次: every stock-day bar where it held (one day: each stock)
        return call("countIf", holds)
    if aggregate.fn == "trading_days":  # 涨停次数: the window's days on which it held
        if build.window is None:
            raise CompileError("a count of trading days needs a window (2024, the last 30 days …)")
        day = col("trade_date", series_alias(build, "daily", build.window))
        return exp.Count(this=exp.Distinct(expressions=[exp.If(this=holds, true=day)]))
    stocks = exp.Count(this=exp.Distinct(expressions=[exp.If(this=holds, true=col("ts_code", "b"))]))
    if aggregate.fn == "share":
        every = exp.Count(this=exp.Distinct(expressions=[col("ts_code", "b")]))
        return derived(exp.Div(this=exp.Mul(this=number(100), expression=stocks), expression=every))
    if aggregate.fn == "count" or aggregate.metric is None:
        return stocks
    unfiltered = aggregate_expr(build, Aggregate(aggregate.fn, aggregate.metric), time)
    if not isinstance(unfiltered, exp.Anonymous):
        raise CompileError(f"cannot restrict {aggregate.fn} to the stocks where a condition holds")
    return derived(call(f"{unfiltered.name}If", *unfiltered.expressions, holds))
