"""Technical tests decided on each day of a window (连续5天站上20日均线, on each of the last 10 sessions
above the 50-day MA, 近5天内5日线上穿20日线): the (stock, day) pairs of the window where the test held.

Each day reads the stock's own bars ending that day through window frames (ROWS BETWEEN k PRECEDING
AND …), with the same definitions as `technical.py` on the question's day: the average of the last n
closes (rounded like every derived value), a full set of bars required, a crossing strictly beyond
its level on the day and at or behind it on the bar before.
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sql import (
    OPS,
    call,
    col,
    date_literal,
    in_query,
    number,
    settled,
    table,
)
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.streaks import stocks_passing
from backend.domain.language.compiler.technical import RECENT_SLACK_DAYS
from backend.domain.language.compiler.time_resolution import Window
from backend.domain.language.ir import DAY_BY_DAY_TECHNICALS, PRICE_LIMITS, Technical

# the side of its level the price (or the short average) ends the day on
ABOVE_KINDS = {"ma_above", "ma_cross_above", "ma_over_ma", "ma_golden_cross"}
CROSSINGS = {"ma_cross_above", "ma_cross_below", "ma_golden_cross", "ma_death_cross"}
TWO_AVERAGES = {"ma_over_ma", "ma_under_ma", "ma_golden_cross", "ma_death_cross"}

# kind → (the bar column, True for its high): 创60日新高 of the close, 成交量创60日新高 of the volume
N_DAY_EXTREMES = {
    "n_day_high": ("close", True),
    "n_day_low": ("close", False),
    "volume_n_day_high": ("vol", True),
    "volume_n_day_low": ("vol", False),
}


def days_holding(build: QueryBuild, technical: Technical, window: Window) -> exp.Query:
    """ts_code, trade_date of the window's days on which the stock's test held."""
    if technical.kind not in DAY_BY_DAY_TECHNICALS - PRICE_LIMITS:
        raise CompileError(f"cannot evaluate {technical.kind} on each day of a window")
    frames = _Frames()
    test = _test(technical, frames)
    values = exp.select(col("ts_code"), col("trade_date"), *frames.columns()).from_(
        exp.alias_(exp.Subquery(this=_rows(build, window, frames.depth)), "history", table=True)
    )
    in_window = exp.and_(
        exp.GT(this=col("trade_date"), expression=date_literal(window.base)),
        exp.LTE(this=col("trade_date"), expression=date_literal(window.end)),
    )
    return (
        exp.select(col("ts_code"), col("trade_date"))
        .from_(exp.alias_(exp.Subquery(this=values), "day_values", table=True))
        .where(exp.and_(in_window, test))
    )


class _Frames:
    """The window-frame values a test reads, each named once: fn(column) over the bars from `first`
    to `last` before the day (0 = the day itself)."""

    def __init__(self) -> None:
        self._named: dict[str, exp.Expr] = {}
        self.depth = 1  # bars read back, the day included

    def over(self, fn: str, column: str, first: int, last: int = 0) -> exp.Expr:
        name = f"{fn}_{column}_{first}_{last}"
        if name not in self._named:
            frame = exp.WindowSpec(
                kind="ROWS",
                start=_bound(first),
                start_side="PRECEDING" if first else None,
                end=_bound(last),
                end_side="PRECEDING" if last else None,
            )
            self._named[name] = exp.Window(
                this=call(fn, col(column)) if column != "*" else call(fn),
                partition_by=[col("ts_code")],
                order=exp.Order(expressions=[exp.Ordered(this=col("trade_date"))]),
                spec=frame,
            )
            self.depth = max(self.depth, first + 1)
        return col(name)

    def bars(self, count: int) -> exp.Expr:
        """The day has `count` bars of its stock ending at it (the test is defined)."""
        return exp.EQ(this=self.over("count", "*", count - 1), expression=number(count))

    def columns(self) -> list[exp.Expr]:
        return [exp.alias_(expression, name) for name, expression in self._named.items()]


def _bound(bars_before: int) -> exp.Expr | str:
    return exp.Literal.number(bars_before) if bars_before else "CURRENT ROW"


def _test(technical: Technical, frames: _Frames) -> exp.Expr:
    kind, n = technical.kind, technical.n
    if kind == "volume_surge":  # the day's volume against the average of the n bars before it
        factor = technical.factor if technical.factor is not None else 2.0
        average = exp.Mul(this=number(factor), expression=frames.over("avg", "vol", n, 1))
        side = OPS[technical.op or ">="]  # 缩量: op "<"
        compared = side(this=frames.over("any", "vol", 0), expression=settled(average))
        return exp.and_(frames.bars(n + 1), compared)
    if kind in N_DAY_EXTREMES:  # the close's N-day high or low, or the volume's
        column, highest = N_DAY_EXTREMES[kind]
        extreme = frames.over("max" if highest else "min", column, n - 1)
        beyond = exp.GTE if highest else exp.LTE
        return exp.and_(frames.bars(n), beyond(this=frames.over("any", column, 0), expression=extreme))
    long_n = int(technical.factor or n) if kind in TWO_AVERAGES else n
    crossing = kind in CROSSINGS
    longest = max(n, long_n)

    def side_values(before: int) -> tuple[exp.Expr, exp.Expr]:
        level = settled(frames.over("avg", "close", long_n - 1 + before, before))
        if kind in TWO_AVERAGES:
            return settled(frames.over("avg", "close", n - 1 + before, before)), level
        return frames.over("any", "close", before, before), level

    above = kind in ABOVE_KINDS
    now, level_now = side_values(0)
    tests = [frames.bars(longest + crossing), OPS[">" if above else "<"](this=now, expression=level_now)]
    if crossing:
        before, level_before = side_values(1)
        tests.append(OPS["<=" if above else ">="](this=before, expression=level_before))
    return exp.and_(*tests)


def _rows(build: QueryBuild, window: Window, depth: int) -> exp.Query:
    """The daily rows the frames read: a slice reaching `depth` bars (and some slack) before the
    window for every stock, the whole history before it for a stock with fewer bars there."""
    context = build.context
    columns = [col("ts_code"), col("trade_date"), col("close"), col("vol")]
    up_to_end = exp.LTE(this=col("trade_date"), expression=date_literal(window.end))
    cut = context.trading_day_offset(window.base, -(depth + RECENT_SLACK_DAYS))
    if cut is None:
        return exp.select(*columns).from_(table(context, "daily")).where(up_to_end)
    since_cut = exp.GTE(this=col("trade_date"), expression=date_literal(cut))
    before_window = exp.LTE(this=col("trade_date"), expression=date_literal(window.base))
    short_of_bars = stocks_passing(
        build, "daily", exp.and_(since_cut.copy(), up_to_end.copy()),
        [exp.LT(this=call("countIf", before_window), expression=number(depth))],
    )  # fmt: skip
    whole_history = in_query(col("ts_code"), short_of_bars)
    return (
        exp.select(*columns)
        .from_(table(context, "daily"))
        .where(exp.and_(up_to_end, exp.or_(since_cut, whole_history)))
    )
