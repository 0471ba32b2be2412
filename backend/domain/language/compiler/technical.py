"""Technical conditions → a per-stock test over its last bars (moving averages, crosses, N-day
highs/lows, streaks, volume surges), used as `b.ts_code IN (…)`."""

from __future__ import annotations

from datetime import date
from itertools import pairwise

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sql import (
    OPS,
    call,
    col,
    conjunction,
    date_literal,
    in_query,
    number,
    settled,
    table,
)
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import Technical

BAR_COLUMNS = ("ts_code", "trade_date", "open", "high", "low", "close", "pct_chg", "vol", "amount")
# kind → the bar column whose N-day high / low it tests (成交量创60日新高, 成交额创120日新高)
MEASURE_EXTREMES = {
    "volume_n_day_high": ("vol", True),
    "volume_n_day_low": ("vol", False),
    "amount_n_day_high": ("amount", True),
    "amount_n_day_low": ("amount", False),
    "turnover_n_day_high": ("turnover_rate", True),
    "turnover_n_day_low": ("turnover_rate", False),
}
# an N-day high of a day's measure kept beside the bars (换手率创60日新高) ranks that table's rows
BASIC_COLUMNS = ("ts_code", "trade_date", "turnover_rate")
# 历史新高 / an all-time high (ir.ALL_TIME_TECHNICALS): (the bar column, high or low) over every bar
# of the stock up to the day
ALL_TIME_EXTREMES = {
    "all_time_high": ("close", True),
    "all_time_low": ("close", False),
    "volume_all_time_high": ("vol", True),
    "volume_all_time_low": ("vol", False),
    "amount_all_time_high": ("amount", True),
    "amount_all_time_low": ("amount", False),
}
# gaps: (the day's price that must clear the gap, the previous bar's price it clears, above or below)
GAPS = {
    "gap_up": ("open", "high", True),
    "gap_down": ("open", "low", False),
    "gap_up_unfilled": ("low", "high", True),
    "gap_down_unfilled": ("high", "low", False),
}
# streaks count the market's last N trading days, and a gap the one before the day ("上一交易日"):
# a day without a bar breaks them; the other tests read the stock's own last N bars
CALENDAR_WINDOW_KINDS = {"up_streak", "down_streak", "volume_up_streak", "volume_down_streak", *GAPS}
# tests that compare the day with the bar before it read one bar more than their length
ONE_MORE_BAR = {
    "ma_cross_above", "ma_cross_below", "volume_surge", "volume_up_streak", "volume_down_streak", "ma_rising",
    "ma_falling",
}  # fmt: skip
# MAs / N-day highs read N + RECENT_SLACK_DAYS trading days for every stock and the whole history
# only for a stock short of N bars there (measured faster than a wider slice for everyone)
RECENT_SLACK_DAYS = 20
# 多头排列 / 空头排列: the moving averages of the stack, shortest first (the longest is Technical.n)
STACK_AVERAGES = (5, 10, 20)


def technical_stocks(build: QueryBuild, technical: Technical) -> exp.Query:
    """Per stock: its last bars ending at the day (rn = 1 is the day itself), then a HAVING test."""
    if technical.kind in ALL_TIME_EXTREMES:
        return _all_time_extreme(build, *ALL_TIME_EXTREMES[technical.kind])
    n = technical.n
    bars = n + 1 if technical.kind in ONE_MORE_BAR else n
    if technical.kind in {"ma_golden_cross", "ma_death_cross"}:
        bars = max(n, int(technical.factor or n)) + 1
    elif technical.kind in {"ma_over_ma", "ma_under_ma"}:
        bars = max(n, int(technical.factor or n))
    elif technical.kind in GAPS:
        bars = 2
    basic = technical.kind in MEASURE_EXTREMES and MEASURE_EXTREMES[technical.kind][0] in BASIC_COLUMNS
    source, columns = ("daily_basic", BASIC_COLUMNS) if basic else ("daily", BAR_COLUMNS)
    calendar = technical.kind in CALENDAR_WINDOW_KINDS
    bar_source = _bar_source(build.context, build.day, bars, calendar, source, columns)
    row_number = exp.Window(
        this=call("row_number"),
        partition_by=[col("ts_code")],
        order=exp.Order(expressions=[exp.Ordered(this=col("trade_date"), desc=True)]),
    )
    ranked = exp.select(*[col(name) for name in columns], exp.alias_(row_number, "rn")).from_(
        exp.alias_(exp.Subquery(this=bar_source), "history", table=True)
    )
    rn = col("rn")

    def rn_le(k: int) -> exp.Expr:
        return exp.LTE(this=rn, expression=number(k))

    def rn_eq(k: int) -> exp.Expr:
        return exp.EQ(this=rn, expression=number(k))

    def rn_between(low: int, high: int) -> exp.Expr:
        return exp.and_(exp.GTE(this=rn, expression=number(low)), exp.LTE(this=rn, expression=number(high)))

    def mean_close(bar_range: exp.Expr | None) -> exp.Expr:
        if bar_range is None:
            return settled(call("avg", col("close")))
        return settled(call("avgIf", col("close"), bar_range))

    today_close = call("anyIf", col("close"), rn_eq(1))
    tests: list[exp.Expr] = [
        exp.EQ(this=call("count"), expression=number(bars)),
        exp.EQ(this=call("max", col("trade_date")), expression=date_literal(build.day)),
    ]
    kind = technical.kind
    if kind in {"ma_above", "ma_below"}:
        ma = mean_close(None)
        tests.append(
            exp.GT(this=today_close, expression=ma)
            if kind == "ma_above"
            else exp.LT(this=today_close, expression=ma)
        )
    elif kind in {"ma_cross_above", "ma_cross_below"}:
        ma_today = mean_close(rn_le(n))
        ma_before = mean_close(rn_between(2, n + 1))
        close_before = call("anyIf", col("close"), rn_eq(2))
        tests += _crossing(today_close, ma_today, close_before, ma_before, upward=kind == "ma_cross_above")
    elif kind in {"ma_golden_cross", "ma_death_cross"}:
        long_n = int(technical.factor or n)
        short_today = mean_close(rn_le(n))
        long_today = mean_close(rn_le(long_n))
        short_before = mean_close(rn_between(2, n + 1))
        long_before = mean_close(rn_between(2, long_n + 1))
        tests += _crossing(
            short_today, long_today, short_before, long_before, upward=kind == "ma_golden_cross"
        )
    elif kind in {"ma_rising", "ma_falling"}:  # 60日线拐头向上: the MA on the day against the bar before
        compare = exp.GT if kind == "ma_rising" else exp.LT
        tests.append(compare(this=mean_close(rn_le(n)), expression=mean_close(rn_between(2, n + 1))))
    elif kind in {"ma_over_ma", "ma_under_ma"}:
        # 20日线在60日线上方: the two averages on the day, each over the stock's own last bars
        short, long = mean_close(rn_le(n)), mean_close(rn_le(int(technical.factor or n)))
        compare = exp.GT if kind == "ma_over_ma" else exp.LT
        tests.append(compare(this=short, expression=long))
    elif kind in GAPS:
        today_column, before_column, upward = GAPS[kind]
        today = call("anyIf", col(today_column), rn_eq(1))
        before = call("anyIf", col(before_column), rn_eq(2))
        beyond = exp.GT if upward else exp.LT
        tests.append(beyond(this=today, expression=before))
    elif kind in {"volume_up_streak", "volume_down_streak"}:
        # volume grew (fell) on each of the last n bars against the bar before
        compare = exp.GT if kind == "volume_up_streak" else exp.LT
        for k in range(1, n + 1):
            newer = call("anyIf", col("vol"), rn_eq(k))
            tests.append(compare(this=newer, expression=call("anyIf", col("vol"), rn_eq(k + 1))))
    elif kind in {"ma_bull_stack", "ma_bear_stack"}:
        # MA5 > MA10 > MA20 > MA60 on the day (bear: each below the next)
        averages = [mean_close(rn_le(k)) for k in (*STACK_AVERAGES, n)]
        compare = exp.GT if kind == "ma_bull_stack" else exp.LT
        tests += [compare(this=short, expression=long) for short, long in pairwise(averages)]
    elif kind == "ma_gap":  # 20% above its 200-day MA: the close's distance from it, in %
        ratio = exp.Div(this=today_close, expression=call("avg", col("close")))
        gap = settled(
            exp.Mul(this=exp.Paren(this=exp.Sub(this=ratio, expression=number(1))), expression=number(100))
        )
        tests.append(OPS[technical.op or ">"](this=gap, expression=number(technical.factor or 0.0)))
    elif kind in {"n_day_high_gap", "n_day_low_gap"}:  # within 2% of its 120-day closing high: % below it
        below_high = kind == "n_day_high_gap"  # (a low's gap: % above it)
        ratio = exp.Div(this=today_close, expression=call("max" if below_high else "min", col("close")))
        one = number(1)
        distance = exp.Sub(this=one, expression=ratio) if below_high else exp.Sub(this=ratio, expression=one)
        percent = settled(exp.Mul(this=exp.Paren(this=distance), expression=number(100)))
        tests.append(OPS[technical.op or "<="](this=percent, expression=number(technical.factor or 0.0)))
    elif kind == "n_day_high":
        tests.append(exp.GTE(this=today_close, expression=call("max", col("close"))))
    elif kind == "n_day_low":
        tests.append(exp.LTE(this=today_close, expression=call("min", col("close"))))
    elif kind in MEASURE_EXTREMES:  # 成交量创60日新高: the day's volume against its last N bars'
        column, high = MEASURE_EXTREMES[kind]
        today_value = call("anyIf", col(column), rn_eq(1))
        if high:
            tests.append(exp.GTE(this=today_value, expression=call("max", col(column))))
        else:
            tests.append(exp.LTE(this=today_value, expression=call("min", col(column))))
    elif kind == "up_streak":
        tests.append(exp.GT(this=call("min", col("pct_chg")), expression=number(0)))
    elif kind == "down_streak":
        tests.append(exp.LT(this=call("max", col("pct_chg")), expression=number(0)))
    elif kind == "volume_surge":
        factor = technical.factor if technical.factor is not None else 2.0
        today_vol = call("anyIf", col("vol"), rn_eq(1))
        average = call("avgIf", col("vol"), rn_between(2, n + 1))
        threshold = settled(exp.Mul(this=number(factor), expression=average))
        tests.append(OPS[technical.op or ">="](this=today_vol, expression=threshold))  # 缩量: op "<"
    else:
        raise CompileError(f"unknown technical condition {kind!r}")
    return (
        exp.select(col("ts_code"))
        .from_(exp.alias_(exp.Subquery(this=ranked), "bars", table=True))
        .where(rn_le(bars))
        .group_by(col("ts_code"))
        .having(exp.and_(*tests))
    )


def _all_time_extreme(build: QueryBuild, column: str, high: bool) -> exp.Query:
    """The day's value is the highest (lowest) of all the stock's bars up to the day; no length needed."""
    today = call("argMax", col(column), col("trade_date"))
    extreme = call("max" if high else "min", col(column))
    at_extreme = exp.GTE(this=today, expression=extreme) if high else exp.LTE(this=today, expression=extreme)
    day = date_literal(build.day)
    return (
        exp.select(col("ts_code"))
        .from_(table(build.context, "daily"))
        .where(exp.LTE(this=col("trade_date"), expression=day))
        .group_by(col("ts_code"))
        .having(exp.and_(exp.EQ(this=call("max", col("trade_date")), expression=day.copy()), at_extreme))
    )


def _bar_source(
    context: LanguageContext,
    day: date,
    bars: int,
    calendar_window: bool,
    source: str,
    columns: tuple[str, ...],
) -> exp.Query:
    """The daily rows a technical test ranks: a superset of every candidate's last `bars` bars.

    Streaks look at the market's last N trading days (a day without a bar breaks "连续"), so a
    calendar cut of exactly those days is the definition. Moving averages and N-day highs/lows
    use the stock's OWN last N bars, whatever its suspensions: every stock is read over a recent
    slice (a range of the table's sort key), and a stock trading on the day with fewer than N
    bars there (a long suspension) over its whole history; that second part is empty, hence
    cheap, unless such a stock exists.
    """

    def rows(*conditions: exp.Expr) -> exp.Select:
        selected = [col(name) for name in columns]
        return exp.select(*selected).from_(table(context, source)).where(conjunction(list(conditions)))

    up_to_day = exp.LTE(this=col("trade_date"), expression=date_literal(day))
    span = bars - 1 if calendar_window else bars + RECENT_SLACK_DAYS
    cut = context.trading_day_offset(day, -span)
    if cut is None:
        return rows(up_to_day)
    since_cut = exp.GTE(this=col("trade_date"), expression=date_literal(cut))
    recent = rows(since_cut, up_to_day)
    if calendar_window:
        return recent
    short_of_bars = (
        exp.select(col("ts_code"))
        .from_(table(context, source))
        .where(exp.and_(since_cut.copy(), up_to_day.copy()))
        .group_by(col("ts_code"))
        .having(
            exp.and_(
                exp.LT(this=call("count"), expression=number(bars)),
                exp.EQ(this=call("max", col("trade_date")), expression=date_literal(day)),
            )
        )
    )
    older = rows(
        exp.LT(this=col("trade_date"), expression=date_literal(cut)), in_query(col("ts_code"), short_of_bars)
    )
    return exp.union(recent, older, distinct=False)


def _crossing(
    now: exp.Expr, level_now: exp.Expr, before: exp.Expr, level_before: exp.Expr, *, upward: bool
) -> list[exp.Expr]:
    """`now` crosses its level: strictly beyond it on the day, at or behind it on the bar before."""
    if upward:
        return [exp.GT(this=now, expression=level_now), exp.LTE(this=before, expression=level_before)]
    return [exp.LT(this=now, expression=level_now), exp.GTE(this=before, expression=level_before)]
