"""The shape of the query a Screen needs, after its conditions and values are compiled:

- a list of stocks (one row per stock, ordered and limited as asked), or per stock and day when the
  question asks for daily values over a window (a "series");
- an aggregate query, when the question aggregates or groups (aggregates.py);
- the top k stocks within each group (top_k.py).
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.language.compiler.aggregates import aggregate_query, orders_by_aggregate
from backend.domain.language.compiler.changes import change_value
from backend.domain.language.compiler.conditions import condition_expr
from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sources import daily_alias, join_all, periods_alias, series_alias
from backend.domain.language.compiler.sql import call, col, conjunction, number, ordered, table
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import is_window
from backend.domain.language.compiler.top_k import top_per_group
from backend.domain.language.compiler.units import shown_columns
from backend.domain.language.compiler.values import value
from backend.domain.language.compiler.window_levels import refuse_unsaid_window_mean
from backend.domain.language.ir import REPORT_TIME_LABELS, WINDOW_MEASURES, Not, Scope, Screen, TimeSpec
from backend.domain.language.semantic import SemanticModel


def build_query(screen: Screen, build: QueryBuild) -> exp.Query:
    time = screen.time
    window = build.window
    where = [condition_expr(build, condition, time) for condition in screen.where]
    order_expr: exp.Expr | None = None
    if screen.order is not None and not orders_by_aggregate(screen.order):
        if screen.order.other_time is not None:  # ranked by the change between two times
            order_expr, name = change_value(build, screen.order, time)
        else:
            order_time = screen.order.time or time
            if is_window(order_time) and not build.per_day:
                refuse_unsaid_window_mean(screen.order.metric, screen.order.agg)
            order_expr, name = value(build, screen.order.metric, order_time, screen.order.agg)
        build.add_column(name, order_expr)
    series = window is not None and lists_daily_values(build.model, screen)
    for name in screen.outputs:
        if name in build.model.dimensions:
            build.add_column(name, col(build.model.dimensions[name].column, "b"))
        elif series and window is not None:
            metric = build.model.metrics[name]
            build.add_column(name, col(metric.column, series_alias(build, metric.table, window)))
        else:
            expression, column = value(build, name, time)
            build.add_column(column, expression)
    if screen.figures and (screen.aggregates or screen.group_by):
        raise CompileError("a quarter's own or trailing figure is shown per stock, not aggregated")
    for figure in screen.figures:  # 单季净利润 / TTM revenue / 近20日最大回撤 of the listed stocks
        own_time = time if figure.window in WINDOW_MEASURES else _report_time(time)
        expression, name = value(build, figure.metric, figure.time or own_time, figure.window)
        build.add_column(name, expression)
    if screen.per_group_limit:
        for aggregate in screen.aggregates:
            if aggregate.metric is not None:
                expression, name = value(build, aggregate.metric, time)
                build.add_column(name, expression)
    elif screen.aggregates or (screen.group_by and not screen.lists_stock_periods):
        return aggregate_query(screen, build, where)
    by_period = screen.lists_stock_periods
    if by_period:  # each report period's figure: dated by its end
        daily = [name for name in screen.outputs if name in build.model.metrics
                 and build.model.metrics[name].kind != "report"]  # fmt: skip
        if build.period_table is None or daily:  # a day's figure has no value per report period
            raise CompileError("a breakdown by report period needs a report figure (毛利率, 每股收益…)")
        build.date_column = ("end_date", col("end_date", periods_alias(build, build.period_table)))
        if len(build.report_periods) > 1 and all(period.month == 12 for period in build.report_periods):
            # for each fiscal year from 2021 to 2024: the rows are years, each labelled by its own
            build.add_column("fiscal_year", call("toYear", build.date_column[1]))
    needs_bar = not build.joins and not series
    if needs_bar and window is None and not screen.where and not screen.outputs:
        daily_alias(build, "daily", build.day)  # a bare list of stocks on a day: those with a bar
    query = _select_stocks(build, where)
    if screen.per_group_limit:
        return top_per_group(screen, build, query, order_expr)
    ordering: list[exp.Ordered] = []
    if order_expr is not None and screen.order is not None:
        ordering.append(ordered(order_expr, screen.order.direction))
    ordering.append(exp.Ordered(this=col("ts_code", "b")))  # deterministic results
    if series:
        ordering.append(exp.Ordered(this=col("trade_date", "s")))
    if by_period and build.date_column is not None:  # the periods in their order
        ordering.append(exp.Ordered(this=build.date_column[1]))
    query = query.order_by(*ordering)
    if screen.limit is not None:
        query = query.limit(number(screen.limit))
    return query


def _report_time(time: TimeSpec) -> TimeSpec | None:
    """The question's time when it names a report period (Q3 2025), else none (the latest one)."""
    return time if time.label in REPORT_TIME_LABELS else None


def lists_daily_values(model: SemanticModel, screen: Screen) -> bool:
    """Daily values of unranked stocks over a window: one row per stock and day. A change (涨幅) over
    a window is the window's gain, one value per stock (每天的涨幅 is a per-day grouping instead)."""
    plain = all(
        isinstance(c, Scope) or (isinstance(c, Not) and isinstance(c.item, Scope)) for c in screen.where
    )
    daily = all(model.metrics.get(name) is not None and model.metrics[name].kind == "daily"
                for name in screen.outputs if name not in model.dimensions)  # fmt: skip
    gain = "pct_chg" in screen.outputs
    return (
        bool(screen.outputs)
        and daily
        and not gain
        and screen.order is None
        and not screen.aggregates
        and plain
    )


def _select_stocks(build: QueryBuild, where: list[exp.Expr]) -> exp.Select:
    """ts_code, name, [trade_date], then the shown values, from stock_basic joined to every source."""
    columns: list[exp.Expr] = [
        exp.alias_(col("ts_code", "b"), "ts_code"),
        exp.alias_(col("name", "b"), "name"),
    ]
    if build.date_column is not None:
        columns.append(exp.alias_(build.date_column[1], build.date_column[0]))
    columns += [exp.alias_(expression, name) for name, expression in shown_columns(build)]
    query = join_all(exp.select(*columns).from_(table(build.context, "stock_basic", "b")), build)
    if where:
        query = query.where(conjunction(where))
    return query
