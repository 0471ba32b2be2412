"""The subqueries a query reads, each joined to `stock_basic b` on ts_code, and the columns read there.

Aliases name what a subquery holds, so asking twice for the same source reuses one join:
`d`/`db` (daily/daily_basic on the question's day, `d_YYYYMMDD` on another day), `inc_`/`fi_` +
period (report tables), `gain_…`/`w_…` (per-stock figures over a window), `s`/`sb` (every day of the
window, one row per stock and day) and `iw` (index weights).
"""

from __future__ import annotations

from datetime import date, timedelta

import sqlglot
from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sql import (
    OPS,
    call,
    col,
    date_literal,
    days_after_until,
    derived,
    is_in,
    number,
    on_date,
    string,
    table,
)
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import Window, trading_days_in
from backend.domain.language.semantic import Metric
from backend.domain.market.guard import DIALECT

DAILY_TABLES = {"daily": "d", "daily_basic": "db"}
REPORT_TABLES = {"income": "inc", "fina_indicator": "fi"}
# groupings of a window's stock-day rows: by day, or by the month / quarter / year the day falls in,
# each keyed by its first day (a Date: the year is part of the key, so a window across a new year
# never merges two Januaries — benchmarks/language/README.md, "Breakdowns by month")
DAY_GROUPINGS = {
    "trade_date": "",
    "trade_month": "toStartOfMonth",
    "trade_quarter": "toStartOfQuarter",
    "trade_year": "toYear",
}
# by when the stocks listed: the period (2023年每个月新上市), or the month of the year across years
# (上市月份: every January together)
LISTING_GROUPINGS = {
    "list_year": "toYear",
    "list_quarter": "toStartOfQuarter",
    "list_month": "toStartOfMonth",
    "list_month_of_year": "toMonth",
}
SUM_OVER_WINDOW = {"vol", "amount"}  # flows add up over a window; levels and ratios are averaged
# read over a window with no aggregate said: a flow's total, a move's gain (any other figure is a level)
FLOWS_AND_GAINS = SUM_OVER_WINDOW | {"pct_chg"}
FULL_WINDOW_MEASURES = {"stddevSamp"}
# measured at the window's last close (below its high, above its low), or a drawdown up to that close
# (the largest fall of the window): the stock needs a bar that day
AT_LAST_CLOSE = {"drawdown", "rebound", "max_drawdown"}
# the longest run of bars whose change has this sign (longest winning / losing streak)
STREAK_SIGNS = {"longest_up_streak": ">", "longest_down_streak": "<"}


def daily_alias(build: QueryBuild, table_name: str, day: date) -> str:
    base = DAILY_TABLES[table_name]
    alias = base if day == build.day else f"{base}_{day.strftime('%Y%m%d')}"
    if alias not in build.joins:
        build.joins[alias] = (
            exp.select(exp.Star()).from_(table(build.context, table_name)).where(on_date("trade_date", day))
        )
        if build.date_column is None and day == build.day:
            build.date_column = ("trade_date", col("trade_date", alias))
    return alias


def report_alias(build: QueryBuild, table_name: str, period: date) -> str:
    alias = f"{REPORT_TABLES[table_name]}_{period.strftime('%Y%m%d')}"
    if alias not in build.joins:
        build.joins[alias] = (
            exp.select(exp.Star()).from_(table(build.context, table_name)).where(on_date("end_date", period))
        )
        build.add_column("end_date", col("end_date", alias))
    return alias


def periods_alias(build: QueryBuild, table_name: str) -> str:
    """Every report period of a breakdown by period (2025年各报告期): one row per stock and period."""
    if build.period_table not in {None, table_name}:
        raise CompileError("a breakdown by report period reads one report table (income or fina_indicator)")
    build.period_table = table_name
    alias = f"{REPORT_TABLES[table_name]}_periods"
    if alias not in build.joins:
        days = [date_literal(period) for period in build.report_periods]
        build.joins[alias] = (
            exp.select(exp.Star()).from_(table(build.context, table_name)).where(is_in(col("end_date"), days))
        )
    return alias


def window_alias(build: QueryBuild, metric_key: str, agg: str | None, window: Window) -> tuple[str, str]:
    """A per-stock subquery with the metric over the window; returns (alias, value column)."""
    metric = build.model.metrics[metric_key]
    if metric.key == "pct_chg" and agg is None:
        return _gain_alias(build, window), "period_gain"
    fn = agg or ("sum" if metric.key in SUM_OVER_WINDOW else "avg")
    column = f"{fn}_{metric.key}"
    alias = f"w_{metric.table}_{window.base.strftime('%Y%m%d')}_{window.end.strftime('%Y%m%d')}"
    # volatility over the last N days, like an N-day indicator, needs a bar on each day; a drawdown
    # is measured at the window's last close, so the stock needs a bar on that day
    full = fn in FULL_WINDOW_MEASURES and not window.period
    if full:
        alias += "_full"
    elif fn == "max_drawdown":
        alias += "_peaks"
    elif fn in AT_LAST_CLOSE:
        alias += "_to_end"
    elif fn in STREAK_SIGNS:
        alias += "_runs"
    existing = build.joins.get(alias)
    if existing is None:
        rows = days_after_until(window.base, window.end)
        if fn == "max_drawdown":
            existing = exp.select(col("ts_code")).from_(_running_peaks(build, metric, rows))
        elif fn in STREAK_SIGNS:
            existing = exp.select(col("ts_code")).from_(_runs(build, rows))
        else:
            existing = exp.select(col("ts_code")).from_(table(build.context, metric.table)).where(rows)
        existing = existing.group_by(col("ts_code"))
        if full:
            days = trading_days_in(build.context, window)
            existing = existing.having(exp.EQ(this=exp.Count(this=exp.Star()), expression=number(days)))
        elif fn in AT_LAST_CLOSE and not (fn == "max_drawdown" and window.period):
            # a max drawdown over a calendar period (2025年) reads the bars in it, as volatility does
            at_end = call("countIf", on_date("trade_date", window.end))
            existing = existing.having(exp.EQ(this=at_end, expression=number(1)))
        build.joins[alias] = existing
    assert isinstance(existing, exp.Select)
    if column not in existing.named_selects:
        if fn == "drawdown":  # % the last close is below the window's highest value (close or high)
            last = call("argMax", col("close"), col("trade_date"))
            ratio = exp.Div(this=last, expression=call("max", metric_expr(metric, None)))
            aggregated: exp.Expr = exp.Mul(
                this=exp.Paren(this=exp.Sub(this=number(1), expression=ratio)), expression=number(100)
            )
        elif fn == "rebound":  # % the last close is above the window's lowest value (close or low)
            last = call("argMax", col("close"), col("trade_date"))
            ratio = exp.Div(this=last, expression=call("min", metric_expr(metric, None)))
            aggregated = exp.Mul(
                this=exp.Paren(this=exp.Sub(this=ratio, expression=number(1))), expression=number(100)
            )
        elif fn == "max_drawdown":  # the largest % fall of a value below the highest one before it
            fall = exp.Sub(this=number(1), expression=exp.Div(this=col("value"), expression=col("peak")))
            aggregated = exp.Mul(this=call("max", fall), expression=number(100))
        elif fn in STREAK_SIGNS:  # the most bars in one run of gains (losses); 0 without any
            moved = OPS[STREAK_SIGNS[fn]](this=col("pct_chg"), expression=number(0))
            aggregated = call("max", exp.If(this=moved, true=col("run_bars"), false=number(0)))
        else:
            aggregated = call(fn, metric_expr(metric, None))  # QST aggregate names are ClickHouse functions
        existing.select(exp.alias_(aggregated, column), copy=False)
    return alias, column


def _running_peaks(build: QueryBuild, metric: Metric, rows: exp.Expr) -> exp.Expr:
    """Each row of the window with its value and the highest value up to it (its own stock's rows)."""
    peak = exp.Window(
        this=call("max", metric_expr(metric, None)),
        partition_by=[col("ts_code")],
        order=exp.Order(expressions=[exp.Ordered(this=col("trade_date"))]),
        spec=exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW"),
    )
    source = (
        exp.select(
            col("ts_code"),
            col("trade_date"),
            exp.alias_(metric_expr(metric, None), "value"),
            exp.alias_(peak, "peak"),
        )
        .from_(table(build.context, metric.table))
        .where(rows)
    )
    return exp.alias_(exp.Subquery(this=source), "peaks", table=True)


def _runs(build: QueryBuild, rows: exp.Expr) -> exp.Expr:
    """Each stock's runs in the window: its own bars split where the sign of the day's change turns
    (the bar's rank among all its bars minus its rank among the bars of the same sign is constant
    along a run), one row per run with its sign and number of bars."""

    def rank(*partition: exp.Expr) -> exp.Expr:
        order = exp.Order(expressions=[exp.Ordered(this=col("trade_date"))])
        return exp.Window(this=call("row_number"), partition_by=[col("ts_code"), *partition], order=order)

    up = exp.GT(this=col("pct_chg"), expression=number(0))
    down = exp.LT(this=col("pct_chg"), expression=number(0))
    sign = call("multiIf", up, number(1), down, number(-1), number(0))
    bars = (
        exp.select(col("ts_code"), col("pct_chg"), exp.alias_(sign, "sign"),
                   exp.alias_(exp.Sub(this=rank(), expression=rank(sign.copy())), "run"))
        .from_(table(build.context, "daily"))
        .where(rows)
    )  # fmt: skip
    runs = (
        exp.select(col("ts_code"), exp.alias_(call("any", col("pct_chg")), "pct_chg"),
                   exp.alias_(exp.Count(this=exp.Star()), "run_bars"))
        .from_(exp.alias_(exp.Subquery(this=bars), "bars", table=True))
        .group_by(col("ts_code"), col("sign"), col("run"))
    )  # fmt: skip
    return exp.alias_(exp.Subquery(this=runs), "runs", table=True)


def _gain_alias(build: QueryBuild, window: Window) -> str:
    """The gain over a window: close at its end against close at its base, for stocks with both bars;
    over a calendar period (`Window.period`), from the stock's last close on or before the base day
    (in the base's year) to its last close in the period (a bar on the last day for a return to date)."""
    if window.period:
        return _period_return_alias(build, window)
    base = window.gain_base or window.base
    alias = f"gain_{base.strftime('%Y%m%d')}_{window.end.strftime('%Y%m%d')}"
    if alias not in build.joins:
        at_end = on_date("trade_date", window.end)
        at_base = on_date("trade_date", base)
        gain = _gain(call("sumIf", col("close"), at_end), call("sumIf", col("close"), at_base))
        build.joins[alias] = (
            exp.select(col("ts_code"), exp.alias_(gain, "period_gain"))
            .from_(table(build.context, "daily"))
            .where(is_in(col("trade_date"), [date_literal(base), date_literal(window.end)]))
            .group_by(col("ts_code"))
            .having(
                exp.and_(
                    exp.EQ(this=call("countIf", at_end), expression=number(1)),
                    exp.EQ(this=call("countIf", at_base), expression=number(1)),
                )
            )
        )
    return alias


def _period_return_alias(build: QueryBuild, window: Window) -> str:
    alias = f"ret_{window.base.strftime('%Y%m%d')}_{window.end.strftime('%Y%m%d')}"
    ends_today = window.end == build.context.latest_trade_date
    to_date = window.to_date and ends_today
    alias += "_named" if ends_today and not to_date else ""  # not the same join as a return to date
    if alias not in build.joins:
        before = exp.LTE(this=col("trade_date"), expression=date_literal(window.base))
        inside = exp.GT(this=col("trade_date"), expression=date_literal(window.base))
        gain = _gain(
            call("argMaxIf", col("close"), col("trade_date"), inside),
            call("argMaxIf", col("close"), col("trade_date"), before),
        )
        present: list[exp.Expr] = [
            exp.GT(this=call("countIf", before), expression=number(0)),
            exp.GT(this=call("countIf", inside), expression=number(0)),
        ]
        if to_date:  # a return to date: the stock trades today
            bars_today = call("countIf", on_date("trade_date", window.end))
            present.append(exp.EQ(this=bars_today, expression=number(1)))
        build.joins[alias] = (
            exp.select(col("ts_code"), exp.alias_(gain, "period_gain"))
            .from_(table(build.context, "daily"))
            .where(days_after_until(date(window.base.year, 1, 1) - timedelta(days=1), window.end))
            .group_by(col("ts_code"))
            .having(exp.and_(*present))
        )
    return alias


def _gain(end_close: exp.Expr, base_close: exp.Expr) -> exp.Expr:
    ratio = exp.Div(this=end_close, expression=base_close)
    return exp.Mul(this=exp.Paren(this=exp.Sub(this=ratio, expression=number(1))), expression=number(100))


def series_alias(build: QueryBuild, table_name: str, window: Window) -> str:
    """Rows of each day in the window: `s` (daily) and `sb` (daily_basic, matched to `s` by day)."""
    if table_name != "daily":
        series_alias(build, "daily", window)
    alias = "s" if table_name == "daily" else "sb"
    if alias not in build.joins:
        build.joins[alias] = (
            exp.select(exp.Star())
            .from_(table(build.context, table_name))
            .where(days_after_until(window.base, window.end))
        )
        if build.date_column is None:
            build.date_column = ("trade_date", col("trade_date", alias))
    return alias


def index_snapshot_filter(code: str, snapshot: date) -> exp.Expr:
    """The rows of `index_weight` for one index on one constituent snapshot."""
    return exp.and_(exp.EQ(this=col("index_code"), expression=string(code)), on_date("trade_date", snapshot))


def dimension(build: QueryBuild, key: str) -> exp.Expr:
    """The column a group-by key reads."""
    if key in DAY_GROUPINGS:
        if build.window is None:
            raise CompileError("a per-day breakdown needs a window of days (e.g. the last 5 trading days)")
        day = col("trade_date", series_alias(build, "daily", build.window))
        return call(DAY_GROUPINGS[key], day) if DAY_GROUPINGS[key] else day
    if key in LISTING_GROUPINGS:
        return call(LISTING_GROUPINGS[key], col("list_date", "b"))
    if key == "report_period":
        if build.period_table is None:
            raise CompileError("a breakdown by report period needs a report figure (营收同比, ROE…)")
        return col("end_date", periods_alias(build, build.period_table))
    if key == "index":
        return col("index_code", _index_membership_alias(build))
    return col(build.model.dimensions[key].column, "b")


def _index_membership_alias(build: QueryBuild) -> str:
    """One row per (stock, index) for the indexes the question's scope names, on their snapshots —
    with none named (每个指数), every index of the data on its snapshot in force that day: grouping by
    index counts a constituent in each of its indexes."""
    members = build.index_members or _every_index(build)
    if not members:
        raise CompileError("the data has no index constituents on or before the day asked")
    alias = "im"
    if alias not in build.joins:
        snapshots = [index_snapshot_filter(code, day) for code, day in sorted(members.items())]
        build.joins[alias] = (
            exp.select(exp.alias_(col("con_code"), "ts_code"), col("index_code"))
            .from_(table(build.context, "index_weight"))
            .where(exp.or_(*snapshots) if len(snapshots) > 1 else snapshots[0])
        )
    return alias


def _every_index(build: QueryBuild) -> dict[str, date]:
    """Each index of the data with a constituent snapshot on or before the day: that snapshot."""
    day = build.membership_day or build.day
    snapshots = {code: build.context.index_snapshot(code, day) for code in build.context.indexes}
    return {code: snapshot for code, snapshot in snapshots.items() if snapshot is not None}


def metric_expr(metric: Metric, alias: str | None) -> exp.Expr:
    """The column of a metric, or its formula (derived metrics such as 振幅) on that table alias."""
    if not metric.expression:
        return col(metric.column, alias)
    formula = sqlglot.parse_one(metric.expression, read=DIALECT)
    if alias is not None:
        for column in list(formula.find_all(exp.Column)):
            column.replace(col(column.name, alias))
    return derived(formula)


def join_all(query: exp.Select, build: QueryBuild) -> exp.Select:
    series_aliases = [alias for alias in ("s", "sb") if alias in build.joins]
    for alias, subquery in build.joins.items():
        key, matched = build.join_keys.get(alias, ("ts_code", col("ts_code", "b")))
        on: exp.Expr = exp.EQ(this=col(key, alias), expression=matched.copy())
        if alias == "sb" and "s" in series_aliases:
            on = exp.and_(on, exp.EQ(this=col("trade_date", "sb"), expression=col("trade_date", "s")))
        query = query.join(
            exp.alias_(exp.Subquery(this=subquery), alias, table=True), on=on, join_type="INNER"
        )
    return query
