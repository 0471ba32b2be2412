"""Conditions read from a query of their own, compiled as a Screen by the same compiler:

- a ranked subset (the 50 largest by market cap, the top 3 of each industry) → `b.ts_code IN (…)`;
- a comparison with a group's own average (市盈率低于行业平均) → a join on the group's figure;
- a daily condition counted over the days of a window (at least twice in December, every day last
  week) → `b.ts_code IN (…)` of the stocks whose days pass the count.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.naming import aggregate_name
from backend.domain.language.compiler.sources import dimension, join_all
from backend.domain.language.compiler.sql import OPS, call, col, comparable, number, settled, table
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import is_window, resolve_window
from backend.domain.language.compiler.values import value
from backend.domain.language.ir import (
    DAY_BY_DAY_TECHNICALS,
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    Frequency,
    Not,
    Scope,
    Screen,
    Technical,
    TimeSpec,
    TopSubset,
    VersusGroup,
)

ConditionCompiler = Callable[[QueryBuild, Condition, TimeSpec], exp.Expr]


def _compile_screen(screen: Screen, build: QueryBuild) -> exp.Query:
    # shapes.py compiles conditions, so it is imported here, when a subquery is built
    from backend.domain.language.compiler.shapes import build_query

    return build_query(screen, build)


def top_stocks(build: QueryBuild, subset: TopSubset, time: TimeSpec) -> exp.Query:
    """The codes of the stocks the ordering ranks first (among `within`, per group if asked)."""
    grouped = subset.per_group is not None
    screen = Screen(
        time=time,
        where=list(subset.within),
        order=subset.order,
        limit=None if grouped else subset.n,
        group_by=subset.per_group,
        per_group_limit=subset.n if grouped else None,
    )
    sub = build.sub_build(time, build.window)
    ranked = _compile_screen(screen, sub)
    if _ranked_in_one_index(subset):  # the ranked stocks are its members: their weight is in it
        for code, snapshot in sub.index_members.items():
            build.index_members.setdefault(code, snapshot)
    return exp.select(col("ts_code")).from_(
        exp.alias_(exp.Subquery(this=ranked), "ranked_subset", table=True)
    )


def _ranked_in_one_index(subset: TopSubset) -> bool:
    """The subset is ranked among the members of one index (沪深300权重最大的10只), never outside it."""
    indexes = [scope for scope in subset.within if isinstance(scope, Scope) and scope.kind == "index"]
    return len(indexes) == 1 and len(indexes[0].values) == 1 and indexes[0].op == "in"


def versus_group(build: QueryBuild, condition: VersusGroup, time: TimeSpec | None) -> exp.Expr:
    """The stock's value OP the average of the same value over its group (or over `within`);
    `time` is the time the value is read at (None: a report figure's default period)."""
    own, name = value(build, condition.metric, time)
    build.add_column(name, own)
    aggregate = Aggregate(condition.fn, condition.metric)
    group_time = time or build.screen_time
    screen = Screen(
        time=group_time, where=list(condition.within), aggregates=[aggregate], group_by=condition.dimension
    )
    figures = _compile_screen(screen, build.sub_build(group_time, build.window))
    figure_name = aggregate_name(aggregate)
    if condition.dimension is None:
        group_figure: exp.Expr = _scalar(figures, figure_name)
        build.add_column(f"all_{figure_name}", group_figure)
    else:
        alias = f"group_{condition.dimension}_{figure_name}"
        build.joins[alias] = figures
        build.join_keys[alias] = (condition.dimension, dimension(build, condition.dimension))
        group_figure = col(figure_name, alias)
        build.add_column(f"{condition.dimension}_{figure_name}", group_figure)
    return _against_average(own, condition, group_figure)


def versus_whole_set(build: QueryBuild, condition: VersusGroup, screen: Screen, own: exp.Expr) -> exp.Expr:
    """A group's figure (`own`: its average gain) OP the same figure over every stock of the question
    (Which industries outperformed the market average): the whole set's figure, a scalar subquery
    over the question's own conditions and time."""
    aggregate = Aggregate(condition.fn, condition.metric)
    whole = Screen(time=screen.time, where=list(screen.where), aggregates=[aggregate])
    figures = _compile_screen(whole, build.sub_build(screen.time, build.window))
    return _against_average(own, condition, _scalar(figures, aggregate_name(aggregate)))


def _scalar(figures: exp.Query, name: str) -> exp.Expr:
    """The one value of a one-row query (the market's average), as a scalar subquery."""
    return exp.Subquery(this=exp.select(exp.column(name)).from_(
        exp.alias_(exp.Subquery(this=figures), "market_figure", table=True)))  # fmt: skip


def _against_average(own: exp.Expr, condition: VersusGroup, average: exp.Expr) -> exp.Expr:
    compared: exp.Expr = settled(average)
    if condition.factor != 1:  # less than half of the industry average
        compared = exp.Mul(this=number(condition.factor), expression=compared)
    if condition.margin > 0:  # 比行业平均高出5个百分点: the difference against the margin
        compared = exp.Add(this=compared, expression=number(condition.margin))
    elif condition.margin < 0:
        compared = exp.Sub(this=compared, expression=number(-condition.margin))
    return OPS[condition.op](this=comparable(own), expression=compared)


def frequent_stocks(
    build: QueryBuild, frequency: Frequency, time: TimeSpec, compile_condition: ConditionCompiler
) -> exp.Query:
    """Stocks whose daily condition holds on `op count` trading days of the window (or on each)."""
    spec = frequency.time or time
    if not is_window(spec):
        raise CompileError("counting the days a condition holds needs a window (last week, in December…)")
    _check_daily_row_condition(frequency.item)
    window = resolve_window(build.context, spec)
    days = build.sub_build(spec, window, per_day=True)
    holds = compile_condition(days, frequency.item, spec)
    on_days = call("countIf", holds)
    if frequency.op == "every":
        trading_days = [d for d in build.context.trade_dates if window.base < d <= window.end]
        test: exp.Expr = exp.EQ(this=on_days, expression=number(len(trading_days)))
    else:
        test = OPS[frequency.op](this=on_days, expression=number(frequency.count))
    query = join_all(exp.select(col("ts_code", "b")).from_(table(build.context, "stock_basic", "b")), days)
    return query.group_by(col("ts_code", "b")).having(test)


def _check_daily_row_condition(condition: Condition) -> None:
    """Only what one day decides can be counted day by day: its row, or its technical tests on the bars
    ending that day (day_by_day.py)."""
    if isinstance(condition, BoolOp):
        for item in condition.items:
            _check_daily_row_condition(item)
        return
    if isinstance(condition, Not):
        _check_daily_row_condition(condition.item)
        return
    if isinstance(condition, Scope):
        return
    if isinstance(condition, Technical) and condition.kind in DAY_BY_DAY_TECHNICALS:
        return
    if isinstance(condition, Compare) and condition.time is None and condition.agg is None:
        return
    raise CompileError(f"cannot count the days on which {type(condition).__name__.lower()} holds")
