"""Conditions over several periods → `b.ts_code IN (…)`: growth streaks of a report figure and
comparisons sustained over the last N years, report periods or trading days."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sources import metric_expr
from backend.domain.language.compiler.sql import (
    call,
    col,
    comparison,
    date_literal,
    days_after_until,
    is_in,
    number,
    on_date,
    table,
)
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import annual_periods, recent_periods
from backend.domain.language.ir import Compare, GrowthStreak, Sustained, TimeSpec
from backend.domain.language.semantic import Metric

# the stored year-over-year growth of a figure, for streaks over quarters
YOY_OF = {"n_income_attr_p": "netprofit_yoy", "n_income": "netprofit_yoy", "revenue": "or_yoy",
          "total_revenue": "or_yoy"}  # fmt: skip


def growth_stocks(build: QueryBuild, growth: GrowthStreak, time: TimeSpec) -> exp.Query:
    """Annual: the figure rose (fell) year on year; quarterly: its YoY growth stayed above (below) 0."""
    metric = build.model.metrics.get(growth.metric)
    if metric is None or metric.kind != "report":
        raise CompileError(f"growth streaks need a report figure, not {growth.metric!r}")
    if growth.period == "quarter" and metric.key not in YOY_OF:
        if metric.unit_kind or metric.stored_unit.name != "%":  # a year-to-date amount grows every quarter
            raise CompileError(
                f"quarterly growth streaks are available for profit, revenue and ratios, not {metric.key}"
            )
        # a ratio (毛利率连续4个季度提升): N successive rises of the stored figure, N + 1 report periods
        periods = list(reversed(recent_periods(build.context, build.day, growth.years + 1)))
        return _successive(build, metric, growth, periods)
    if growth.period == "quarter":
        yoy = YOY_OF[metric.key]
        periods = recent_periods(build.context, build.day, growth.years)
        value = col(yoy)
        tests: list[exp.Expr] = [exp.EQ(this=call("count"), expression=number(len(periods)))]
        sign = exp.GT if growth.direction == "up" else exp.LT
        tests.append(
            sign(this=call("min" if growth.direction == "up" else "max", value), expression=number(0))
        )
        return stocks_passing(
            build, "fina_indicator", is_in(col("end_date"), [date_literal(p) for p in periods]), tests
        )
    periods = annual_periods(build.context, growth.time or time, build.day, growth.years + 1)
    return _successive(build, metric, growth, periods)


def _successive(
    build: QueryBuild, metric: Metric, growth: GrowthStreak, periods: Sequence[date]
) -> exp.Query:
    """The stored figure strictly rising (falling) from each period to the next, newest first."""
    tests: list[exp.Expr] = [exp.EQ(this=call("count"), expression=number(len(periods)))]
    for newer, older in itertools.pairwise(periods):
        newer_value = call("sumIf", col(metric.column), on_date("end_date", newer))
        older_value = call("sumIf", col(metric.column), on_date("end_date", older))
        compare = exp.GT if growth.direction == "up" else exp.LT
        tests.append(compare(this=newer_value, expression=older_value))
    return stocks_passing(
        build, metric.table, is_in(col("end_date"), [date_literal(p) for p in periods]), tests
    )


def sustained_stocks(build: QueryBuild, sustained: Sustained, time: TimeSpec) -> exp.Query:
    """Stocks whose comparison holds in each of the last n years, report periods or trading days."""
    metric = build.model.metrics.get(sustained.compare.metric)
    if metric is None:
        raise CompileError(f"unknown attribute {sustained.compare.metric!r}")
    if sustained.period == "day":
        if metric.kind != "daily":
            raise CompileError(f"{metric.key} is not a daily figure")
        base = build.context.trading_day_offset(build.day, -sustained.n)
        if base is None:
            raise CompileError(f"the data has fewer than {sustained.n + 1} trading days")
        in_periods = days_after_until(base, build.day)
    else:
        if metric.kind != "report":
            raise CompileError(f"{metric.key} is not a report figure")
        if sustained.period == "year":
            periods = annual_periods(build.context, time, build.day, sustained.n)
        else:
            periods = recent_periods(build.context, build.day, sustained.n)
        in_periods = is_in(col("end_date"), [date_literal(p) for p in periods])
    holds = _holds(build, metric, sustained.compare)
    tests = [exp.EQ(this=call("countIf", holds), expression=number(sustained.n))]
    return stocks_passing(build, metric.table, in_periods, tests)


def _holds(build: QueryBuild, metric: Metric, compare: Compare) -> exp.Expr:
    """The comparison on one row: against a number, or against another column of the same row
    (收阳 each day: close > open)."""
    if compare.other is None:
        return comparison(metric_expr(metric, None), replace(compare, time=None))
    other = build.model.metrics.get(compare.other)
    if other is None or other.table != metric.table or compare.other_time is not None:
        raise CompileError(f"cannot compare {metric.key} with {compare.other} on each period")
    difference = exp.Paren(this=exp.Sub(this=metric_expr(metric, None), expression=metric_expr(other, None)))
    return comparison(difference, replace(compare, time=None))


def stocks_passing(
    build: QueryBuild, table_name: str, rows: exp.Expr, tests: Sequence[exp.Expr]
) -> exp.Query:
    """ts_code of the stocks whose `rows` of the table pass every test."""
    return (
        exp.select(col("ts_code"))
        .from_(table(build.context, table_name))
        .where(rows)
        .group_by(col("ts_code"))
        .having(exp.and_(*tests))
    )
