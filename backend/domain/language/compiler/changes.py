"""A ranking by the change of one figure between two times (权重比半年前提高得最多, net profit grew the
most from 2023 to 2024): (figure at the ordering's time) − (figure at `other_time`), both shown.

Report amounts are year-to-date: two periods are compared only when they cover as many months (FY2024
against FY2023, Q3 2025 against Q3 2024); a year-to-date amount against an annual one is no change
people mean, a `CompileError`. A ratio (ROE, 毛利率) is compared as stored between any two periods, as
a ratio's rise over successive quarters is.
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sql import derived, number
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import is_window, resolve_period
from backend.domain.language.compiler.values import reading_time, value
from backend.domain.language.ir import Order, TimeSpec


def change_value(build: QueryBuild, order: Order, time: TimeSpec) -> tuple[exp.Expr, str]:
    """(the difference, its output name); each value is also a shown column."""
    assert order.other_time is not None
    metric = build.model.metrics[order.metric]
    first_time = reading_time(build, order.metric, order.time, time)
    if metric.kind == "report" and (metric.unit_kind or metric.stored_unit.name != "%"):
        _same_length(build, first_time, order.other_time)
    elif metric.kind == "daily" and is_window(first_time or time) != is_window(order.other_time):
        raise CompileError("a change compares a day with a day, or a window with a window")
    later, later_name = value(build, order.metric, first_time, order.agg)
    earlier, earlier_name = value(build, order.metric, order.other_time, order.agg)
    if later_name == earlier_name:
        raise CompileError(f"both times of the change of {order.metric} are the same")
    build.add_column(later_name, later)
    build.add_column(earlier_name, earlier)
    difference = derived(exp.Paren(this=exp.Sub(this=later.copy(), expression=earlier.copy())))
    if not order.percent_change:
        return difference, f"{order.metric}_change"
    if metric.percent or metric.stored_unit.name == "%":
        raise CompileError(f"a growth rate of {order.metric}, itself a rate, is not read: ask for its change")
    # a growth from a loss or from nothing is no percentage: NULL, ranked last
    rate = exp.Mul(this=exp.Div(this=difference, expression=earlier.copy()), expression=number(100))
    positive = exp.GT(this=earlier.copy(), expression=number(0))
    return derived(exp.If(this=positive, true=rate, false=exp.Null())), f"{order.metric}_change_pct"


def _same_length(build: QueryBuild, later: TimeSpec | None, earlier: TimeSpec) -> None:
    first = resolve_period(build.context, later, build.day)
    second = resolve_period(build.context, earlier, build.day)
    if first.month != second.month:
        raise CompileError(
            f"report figures are year-to-date: {first.isoformat()} and {second.isoformat()} cover "
            "different months; name two periods of the same kind (two years, or one quarter of two years)"
        )
