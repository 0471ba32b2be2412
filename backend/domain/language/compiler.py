"""QST → ClickHouse SQL, built as sqlglot expressions (no user text is ever spliced into SQL).

The compiler resolves symbolic times on the trading calendar of the context, picks the tables the
question needs and joins them to `stock_basic`; every ordering ends with `ts_code` so that results
are deterministic. Conventions (windows, moving averages, annual figures) are those documented in
semantic_model.yaml.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

import sqlglot
from sqlglot import exp

from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import (
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    GrowthStreak,
    Not,
    Scope,
    Screen,
    Sustained,
    Technical,
    TimeSpec,
)
from backend.domain.language.qst import qst_to_screen
from backend.domain.language.semantic import Metric
from backend.domain.market.guard import DIALECT, check_read_only
from backend.domain.market.taxonomy import DAILY_LIMIT_PCT

DAILY_TABLES = {"daily": "d", "daily_basic": "db"}
REPORT_TABLES = {"income": "inc", "fina_indicator": "fi"}
SUM_OVER_WINDOW = {"vol", "amount"}
CALENDAR_WINDOW_KINDS = {
    "up_streak",
    "down_streak",
    "volume_up_streak",
    "volume_down_streak",
}  # flows add up over a window; levels and ratios are averaged
COMPUTED_AGGREGATES = {"avg", "sum", "median"}  # min/max/count return stored values or integers
BAR_COLUMNS = ("ts_code", "trade_date", "close", "pct_chg", "vol")
# MAs / N-day highs read N + RECENT_SLACK_DAYS trading days for every stock and the whole history
# only for a stock short of N bars there (measured faster than a wider slice for everyone)
RECENT_SLACK_DAYS = 20
DERIVED_DECIMALS = 6  # semantic_model.yaml conventions → derived_precision
OPS = {">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE, "=": exp.EQ, "!=": exp.NEQ}


class CompileError(ValueError):
    """The QST is well formed but cannot be compiled on this data (e.g. no such period)."""


@dataclass(frozen=True)
class Window:
    base: date  # last trading day before the window (the base of a gain)
    end: date  # last trading day in the window


def _date(value: date) -> exp.Expr:
    return _fn("toDate", exp.Literal.string(value.isoformat()))


def _num(value: float | int) -> exp.Expr:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    literal = exp.Literal.number(abs(value))
    return exp.Neg(this=literal) if value < 0 else literal


def _settled(expression: exp.Expr) -> exp.Expr:
    """A derived value (average, gain, ratio, formula) rounded to DERIVED_DECIMALS for a comparison.

    Stored prices have 2 decimals, so "close above its MA" or "gain over 30%" often meet exact
    mathematical ties that float arithmetic tips either way (8.64 vs 8.640000000000002); rounding
    the derived side settles them to the exact value. Shown values keep full precision.
    """
    return _fn("round", expression.copy(), _num(DERIVED_DECIMALS))


def _derived(expression: exp.Expr) -> exp.Expr:
    """Mark a computed value, so that comparisons settle it (see `_settled`)."""
    expression.meta["derived"] = True
    return expression


def _comparable(expression: exp.Expr) -> exp.Expr:
    return _settled(expression) if expression.meta.get("derived") else expression


def _str(value: str) -> exp.Expr:
    return exp.Literal.string(value)


def _col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table)


def _fn(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def _and(conditions: list[exp.Expr]) -> exp.Expr:
    return exp.and_(*conditions) if len(conditions) > 1 else conditions[0]


def _in(expression: exp.Expr, values: list[exp.Expr]) -> exp.Expr:
    return exp.In(this=expression, expressions=values)


def _in_query(expression: exp.Expr, query: exp.Query) -> exp.Expr:
    return exp.In(this=expression, query=exp.Subquery(this=query))


def _table(context: LanguageContext, name: str, alias: str | None = None) -> exp.Expr:
    table = exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(context.database))
    return exp.alias_(table, alias, table=True) if alias else table


@dataclass
class _Build:
    context: LanguageContext
    day: date
    joins: dict[str, exp.Expr] = field(default_factory=dict)  # alias → subquery
    columns: list[tuple[str, exp.Expr]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    date_column: tuple[str, exp.Expr] | None = None
    money: dict[str, float] = field(default_factory=dict)  # output name → stored unit factor (yuan)
    display_unit: float | None = None
    window: Window | None = None
    per_day: bool = False  # grouped by trade_date: daily values row by row over the window
    index_members: dict[str, date] = field(default_factory=dict)  # index code → snapshot of its scope

    def add_column(self, alias: str, expression: exp.Expr) -> None:
        if alias not in {name for name, _ in self.columns}:
            self.columns.append((alias, expression))


class Compiler:
    def __init__(self, context: LanguageContext) -> None:
        self.context = context
        self.model = context.model
        self._screen_time = TimeSpec()

    # --- time resolution --------------------------------------------------------------------------
    def resolve_day(self, spec: TimeSpec) -> date:
        ctx = self.context
        latest = ctx.latest_trade_date
        if spec.label == "date" and spec.day is not None:
            return spec.day
        if spec.label == "yesterday":
            previous = ctx.trading_day_offset(latest, -1)
            if previous is None:
                raise CompileError("there is no trading day before the latest one in the data")
            return previous
        return latest

    def resolve_window(self, spec: TimeSpec) -> Window:
        ctx = self.context
        latest = ctx.latest_trade_date

        def last_on_or_before(day: date) -> date:
            found = ctx.last_trading_day_on_or_before(day)
            if found is None:
                raise CompileError(f"the data has no trading day on or before {day.isoformat()}")
            return found

        def before(day: date) -> date:
            return last_on_or_before(day - timedelta(days=1))

        label = spec.label
        n = spec.n or 1
        if label == "recent_days":
            return Window(last_on_or_before(latest - timedelta(days=n)), latest)
        if label == "recent_weeks":
            return Window(last_on_or_before(latest - timedelta(days=7 * n)), latest)
        if label == "recent_months":
            return Window(last_on_or_before(_months_back(latest, n)), latest)
        if label == "recent_bars":
            base = ctx.trading_day_offset(latest, -n)
            if base is None:
                raise CompileError(f"the data has fewer than {n + 1} trading days")
            return Window(base, latest)
        if label == "this_year":
            return Window(before(date(latest.year, 1, 1)), latest)
        if label == "this_month":
            return Window(before(latest.replace(day=1)), latest)
        if label == "this_week":
            return Window(before(latest - timedelta(days=latest.weekday())), latest)
        if label == "last_week":
            monday = latest - timedelta(days=latest.weekday())
            return Window(before(monday - timedelta(days=7)), before(monday))
        if label == "last_month":
            first = latest.replace(day=1)
            return Window(before(_months_back(first, 1)), before(first))
        if label in {"last_year", "year_before", "year", "annual"}:
            year = {"last_year": latest.year - 1, "year_before": latest.year - 2}.get(
                label, spec.year or latest.year
            )
            return Window(before(date(year, 1, 1)), min(last_on_or_before(date(year, 12, 31)), latest))
        if label == "month" and spec.year and spec.month:
            first = date(spec.year, spec.month, 1)
            return Window(before(first), last_on_or_before(_months_back(first, -1) - timedelta(days=1)))
        if label == "quarter" and spec.year and spec.quarter:
            first = date(spec.year, 3 * spec.quarter - 2, 1)
            return Window(before(first), last_on_or_before(_months_back(first, -3) - timedelta(days=1)))
        if label == "date_range" and spec.day and spec.end_day:
            return Window(before(spec.day), last_on_or_before(spec.end_day))
        if label == "date_span" and spec.day and spec.end_day:
            return Window(last_on_or_before(spec.day), last_on_or_before(spec.end_day))
        raise CompileError(f"time scope {label} is not a window")

    def is_window(self, spec: TimeSpec | None) -> bool:
        return spec is not None and not spec.is_single_day

    def resolve_period(self, spec: TimeSpec | None, day: date) -> date:
        """The report period (end_date) a fundamental figure is read from."""
        latest = self.context.latest_trade_date
        if spec is not None:
            if spec.label in {"year", "annual"} and spec.year:
                return date(spec.year, 12, 31)
            if spec.label == "last_year":
                return date(latest.year - 1, 12, 31)
            if spec.label == "year_before":
                return date(latest.year - 2, 12, 31)
            if spec.label == "quarter" and spec.year and spec.quarter:
                month = 3 * spec.quarter
                return date(spec.year, month, 31 if month in {3, 12} else 30)
        period = self.context.latest_annual_period(day)
        if period is None:
            raise CompileError(f"no annual report (period ending 12-31) was announced by {day.isoformat()}")
        return period

    # --- entry points -----------------------------------------------------------------------------
    def compile_qst(self, qst: dict[str, Any]) -> tuple[exp.Query, list[str]]:
        return self.compile(qst_to_screen(qst))

    def compile(self, screen: Screen) -> tuple[exp.Query, list[str]]:
        spec = screen.time
        self._screen_time = spec
        window = self.resolve_window(spec) if self.is_window(spec) else None
        day = window.end if window else self.resolve_day(spec)
        build = _Build(self.context, day, display_unit=screen.display_unit, window=window)
        build.per_day = (screen.group_by == "trade_date" or screen.daily_values) and window is not None
        if spec.label == "date" and self.context.has_data and not self.context.is_trading_day(day):
            build.warnings.append(
                f"{day.isoformat()} is not a trading day in the data: there are no bars that day"
            )
        if self.context.has_data and day > self.context.latest_trade_date:
            build.warnings.append(f"{day.isoformat()} is after the latest trading day in the data")
        self._check_known(screen)
        query = self._build(screen, build, window)
        sql = query.sql(dialect=DIALECT)
        check_read_only(sql)
        return query, build.warnings

    def _check_known(self, screen: Screen) -> None:
        metrics = self.model.metrics
        dims = self.model.dimensions

        def check_metric(key: str | None) -> None:
            if key is not None and key not in metrics:
                raise CompileError(f"unknown attribute {key!r}")

        for aggregate in screen.aggregates:
            check_metric(aggregate.metric)
        for name in screen.outputs:
            if name not in metrics and name not in dims:
                raise CompileError(f"unknown attribute {name!r}")
        if screen.group_by and screen.group_by not in dims:
            raise CompileError(f"cannot group by {screen.group_by!r}")
        if screen.order and not screen.order.metric.startswith("agg:"):
            check_metric(screen.order.metric)

    # --- value expressions ------------------------------------------------------------------------
    def _daily_alias(self, build: _Build, table: str, day: date) -> str:
        base = DAILY_TABLES[table]
        alias = base if day == build.day else f"{base}_{day.strftime('%Y%m%d')}"
        if alias not in build.joins:
            subquery = (
                exp.select(exp.Star())
                .from_(_table(self.context, table))
                .where(exp.EQ(this=_col("trade_date"), expression=_date(day)))
            )
            build.joins[alias] = subquery
            if build.date_column is None and day == build.day:
                build.date_column = ("trade_date", _col("trade_date", alias))
        return alias

    def _report_alias(self, build: _Build, table: str, period: date) -> str:
        alias = f"{REPORT_TABLES[table]}_{period.strftime('%Y%m%d')}"
        if alias not in build.joins:
            build.joins[alias] = (
                exp.select(exp.Star())
                .from_(_table(self.context, table))
                .where(exp.EQ(this=_col("end_date"), expression=_date(period)))
            )
            build.add_column("end_date", _col("end_date", alias))
        return alias

    def _window_alias(
        self, build: _Build, metric_key: str, agg: str | None, window: Window
    ) -> tuple[str, str]:
        """A per-stock subquery with the metric over the window; returns (alias, value column)."""
        metric = self.model.metrics[metric_key]
        if metric.key == "pct_chg" and agg is None:
            alias = f"gain_{window.base.strftime('%Y%m%d')}_{window.end.strftime('%Y%m%d')}"
            if alias not in build.joins:
                at_end = exp.EQ(this=_col("trade_date"), expression=_date(window.end))
                at_base = exp.EQ(this=_col("trade_date"), expression=_date(window.base))
                gain = exp.Mul(
                    this=exp.Paren(
                        this=exp.Sub(
                            this=exp.Div(
                                this=_fn("sumIf", _col("close"), at_end),
                                expression=_fn("sumIf", _col("close"), at_base),
                            ),
                            expression=_num(1),
                        )
                    ),
                    expression=_num(100),
                )
                build.joins[alias] = (
                    exp.select(_col("ts_code"), exp.alias_(gain, "period_gain"))
                    .from_(_table(self.context, "daily"))
                    .where(_in(_col("trade_date"), [_date(window.base), _date(window.end)]))
                    .group_by(_col("ts_code"))
                    .having(
                        exp.and_(
                            exp.EQ(this=_fn("countIf", at_end), expression=_num(1)),
                            exp.EQ(this=_fn("countIf", at_base), expression=_num(1)),
                        )
                    )
                )
            return alias, "period_gain"
        fn = agg or ("sum" if metric.key in SUM_OVER_WINDOW else "avg")
        column = f"{fn}_{metric.key}"
        alias = f"w_{metric.table}_{window.base.strftime('%Y%m%d')}_{window.end.strftime('%Y%m%d')}"
        in_window = exp.and_(
            exp.GT(this=_col("trade_date"), expression=_date(window.base)),
            exp.LTE(this=_col("trade_date"), expression=_date(window.end)),
        )
        existing = build.joins.get(alias)
        if existing is None:
            existing = exp.select(_col("ts_code")).from_(_table(self.context, metric.table)).where(in_window)
            existing = existing.group_by(_col("ts_code"))
            build.joins[alias] = existing
        assert isinstance(existing, exp.Select)
        if column not in existing.named_selects:
            aggregated = _fn(_agg_function(fn), self._metric_expr(metric, None))
            existing.select(exp.alias_(aggregated, column), copy=False)
        return alias, column

    def value(
        self, build: _Build, metric_key: str, time: TimeSpec | None, agg: str | None = None
    ) -> tuple[exp.Expr, str]:
        """(expression, output name) of a metric for the question's day, period or window."""
        expression, name = self._value(build, metric_key, time, agg)
        metric = self.model.metrics[metric_key]
        if metric.unit_kind == "money":
            build.money[name] = metric.stored_unit.factor
        return expression, name

    def _value(
        self, build: _Build, metric_key: str, time: TimeSpec | None, agg: str | None
    ) -> tuple[exp.Expr, str]:
        metric = self.model.metrics[metric_key]
        spec = time or TimeSpec()
        if metric.kind == "index":
            return self._index_weight(build, metric), metric.column
        if metric.kind == "report":
            period = self.resolve_period(time, build.day)
            alias = self._report_alias(build, metric.table, period)
            if agg == "single_quarter":
                return self._single_quarter(build, metric, period, alias)
            name = metric.column if period == self._main_period(build) else f"{metric.column}_{period.year}"
            return _col(metric.column, alias), name
        same_window = time is None or time == self._screen_time
        if build.per_day and agg is None and build.window is not None and same_window:
            alias = self._series_alias(build, metric.table, build.window)
            return _col(metric.column, alias), metric.column
        if self.is_window(spec):
            window = self.resolve_window(spec)
            alias, column = self._window_alias(build, metric_key, agg, window)
            return _derived(_col(column, alias)), column
        day = self.resolve_day(spec) if time is not None else build.day
        alias = self._daily_alias(build, metric.table, day)
        name = metric.key if day == build.day else f"{metric.key}_{day.strftime('%Y%m%d')}"
        return self._metric_expr(metric, alias), name

    def _single_quarter(
        self, build: _Build, metric: Metric, period: date, alias: str
    ) -> tuple[exp.Expr, str]:
        """Income figures are year-to-date: a quarter's own figure is YTD minus the previous quarter's YTD."""
        name = f"{metric.column}_single_quarter"
        if period.month == 3:
            return _col(metric.column, alias), name
        previous_month = period.month - 3
        previous = date(period.year, previous_month, 31 if previous_month in {3, 12} else 30)
        previous_alias = self._report_alias(build, metric.table, previous)
        difference = exp.Sub(this=_col(metric.column, alias), expression=_col(metric.column, previous_alias))
        return _derived(exp.Paren(this=difference)), name

    def _index_weight(self, build: _Build, metric: Metric) -> exp.Expr:
        """A constituent's weight in the index the question is scoped to, from the same snapshot."""
        if len(build.index_members) != 1:
            raise CompileError("an index weight needs exactly one index in the question (e.g. 沪深300成分股)")
        code, snapshot = next(iter(build.index_members.items()))
        alias = "iw"
        if alias not in build.joins:
            build.joins[alias] = (
                exp.select(exp.alias_(_col("con_code"), "ts_code"), _col(metric.column))
                .from_(_table(self.context, metric.table))
                .where(
                    exp.and_(
                        exp.EQ(this=_col("index_code"), expression=_str(code)),
                        exp.EQ(this=_col("trade_date"), expression=_date(snapshot)),
                    )
                )
            )
        return _col(metric.column, alias)

    def _main_period(self, build: _Build) -> date | None:
        try:
            return self.resolve_period(None, build.day)
        except CompileError:
            return None

    # --- conditions -------------------------------------------------------------------------------
    def condition(self, build: _Build, condition: Condition, time: TimeSpec) -> exp.Expr:
        if isinstance(condition, BoolOp):
            parts = [self.condition(build, item, time) for item in condition.items]
            return exp.and_(*parts) if condition.op == "and" else exp.Paren(this=exp.or_(*parts))
        if isinstance(condition, Not):
            return exp.Not(this=exp.Paren(this=self.condition(build, condition.item, time)))
        if isinstance(condition, Scope):
            return self._scope(build, condition)
        if isinstance(condition, Compare):
            return self._compare(build, condition, time)
        if isinstance(condition, Technical) and condition.kind in {"limit_up", "limit_down"}:
            return self._price_limit(build, condition.kind == "limit_up")
        if isinstance(condition, Technical):
            close, name = self.value(build, "close", None)
            build.add_column(name, close)
            return _in_query(_col("ts_code", "b"), self._technical(build, condition))
        if isinstance(condition, GrowthStreak):
            return _in_query(_col("ts_code", "b"), self._growth(build, condition, time))
        if isinstance(condition, Sustained):
            return _in_query(_col("ts_code", "b"), self._sustained(build, condition, time))
        raise CompileError(f"cannot compile condition {condition!r}")

    def _compare(self, build: _Build, condition: Compare, time: TimeSpec) -> exp.Expr:
        if condition.metric not in self.model.metrics:
            raise CompileError(f"unknown attribute {condition.metric!r}")
        metric_time = condition.time or (time if self.model.metrics[condition.metric].kind == "daily" or
                                         not time.is_single_day else None)  # fmt: skip
        expression, name = self.value(build, condition.metric, metric_time, condition.agg)
        build.add_column(name, expression)
        if condition.other is not None:
            if condition.other not in self.model.metrics:
                raise CompileError(f"unknown attribute {condition.other!r}")
            other, other_name = self.value(build, condition.other, metric_time, condition.agg)
            build.add_column(other_name, other)
            return OPS[condition.op](this=_comparable(expression), expression=_comparable(other))
        return _comparison(expression, condition)

    def _price_limit(self, build: _Build, up: bool) -> exp.Expr:
        """Closed at the daily limit price of the stock's board: round(pre_close × (1 ± limit%), 2)."""
        close, name = self.value(build, "close", None)
        build.add_column(name, close)
        pre_close, _name = self.value(build, "pre_close", None)
        pct, _pct_name = self.value(build, "pct_chg", None)
        build.add_column("pct_chg", pct)
        branches: list[exp.Expr] = []
        for board, limit in DAILY_LIMIT_PCT.items():
            branches += [exp.EQ(this=_col("market", "b"), expression=_str(board)), _num(limit)]
        limit_pct = _fn("multiIf", *branches, _num(10))
        sign = exp.Add if up else exp.Sub
        factor = exp.Paren(this=sign(this=_num(1), expression=exp.Div(this=limit_pct, expression=_num(100))))
        limit_price = _fn("round", exp.Mul(this=pre_close, expression=factor), _num(2))
        half_cent = _num(0.005)
        if up:
            return exp.GTE(this=close, expression=exp.Sub(this=limit_price, expression=half_cent))
        return exp.LTE(this=close, expression=exp.Add(this=limit_price, expression=half_cent))

    def _sustained(self, build: _Build, sustained: Sustained, time: TimeSpec) -> exp.Query:
        """Stocks whose comparison holds in each of the last n years, report periods or trading days."""
        metric = self.model.metrics.get(sustained.compare.metric)
        if metric is None:
            raise CompileError(f"unknown attribute {sustained.compare.metric!r}")
        if sustained.period == "day":
            if metric.kind != "daily":
                raise CompileError(f"{metric.key} is not a daily figure")
            base = self.context.trading_day_offset(build.day, -sustained.n)
            if base is None:
                raise CompileError(f"the data has fewer than {sustained.n + 1} trading days")
            key = "trade_date"
            in_periods: exp.Expr = exp.and_(
                exp.GT(this=_col(key), expression=_date(base)),
                exp.LTE(this=_col(key), expression=_date(build.day)),
            )
        else:
            if metric.kind != "report":
                raise CompileError(f"{metric.key} is not a report figure")
            if sustained.period == "year":
                explicit_year = time.label in {"year", "annual", "last_year", "year_before"}
                reference = self.resolve_period(time if explicit_year else None, build.day)
                periods = [date(reference.year - k, 12, 31) for k in range(sustained.n)]
            else:
                periods = self._recent_periods(build.day, sustained.n)
            key = "end_date"
            in_periods = _in(_col(key), [_date(p) for p in periods])
        holds = _comparison(self._metric_expr(metric, None), replace(sustained.compare, time=None))
        return (
            exp.select(_col("ts_code"))
            .from_(_table(self.context, metric.table))
            .where(in_periods)
            .group_by(_col("ts_code"))
            .having(exp.EQ(this=_fn("countIf", holds), expression=_num(sustained.n)))
        )

    def _metric_expr(self, metric: Metric, alias: str | None) -> exp.Expr:
        """The column of a metric, or its formula (derived metrics such as 振幅) on that table alias."""
        if not metric.expression:
            return _col(metric.column, alias)
        formula = sqlglot.parse_one(metric.expression, read=DIALECT)
        if alias is not None:
            for column in list(formula.find_all(exp.Column)):
                column.replace(_col(column.name, alias))
        return _derived(formula)

    def _scope(self, build: _Build, scope: Scope) -> exp.Expr:
        if scope.kind == "exchange":
            return _membership(_col("exchange", "b"), scope.values)
        if scope.kind == "board":
            return _membership(_col("market", "b"), scope.values)
        if scope.kind == "industry":
            return _membership(_col("industry", "b"), scope.values)
        if scope.kind == "group":
            names = [name for key in scope.values for name in self._group_industries(key)]
            return _membership(_col("industry", "b"), tuple(names))
        if scope.kind == "stock":
            return _membership(_col("ts_code", "b"), scope.values)
        if scope.kind == "area":
            return _membership(_col("area", "b"), scope.values)
        if scope.kind == "index":
            parts = [self._index_members(build, code) for code in scope.values]
            return exp.or_(*parts) if len(parts) > 1 else parts[0]
        if scope.kind == "list_date" and scope.day is not None:
            return OPS[scope.op](this=_col("list_date", "b"), expression=_date(scope.day))
        if scope.kind == "listed_years" and scope.number is not None:
            # listed more than N years ago ⇔ list_date before D − N years
            cutoff = _years_back(build.day, scope.number)
            flipped = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}[scope.op]
            return OPS[flipped](this=_col("list_date", "b"), expression=_date(cutoff))
        raise CompileError(f"cannot compile scope {scope.kind}")

    def _group_industries(self, key: str) -> tuple[str, ...]:
        group = self.model.industry_groups.get(key)
        if group is None:
            raise CompileError(f"unknown industry group {key!r}")
        return group.industries

    def _index_members(self, build: _Build, code: str) -> exp.Expr:
        snapshot = self.context.index_snapshot(code, build.day)
        if snapshot is not None:
            build.index_members[code] = snapshot
        if snapshot is None:
            known = self.context.index_snapshots.get(code)
            if not known:
                raise CompileError(f"the data has no constituents for index {code}")
            snapshot = known[0]
            build.index_members[code] = snapshot
            build.warnings.append(
                f"index {code} has no constituent snapshot on or before {build.day.isoformat()}; "
                f"using the earliest one ({snapshot.isoformat()})"
            )
        members = (
            exp.select(_col("con_code"))
            .from_(_table(self.context, "index_weight"))
            .where(
                exp.and_(
                    exp.EQ(this=_col("index_code"), expression=_str(code)),
                    exp.EQ(this=_col("trade_date"), expression=_date(snapshot)),
                )
            )
        )
        return _in_query(_col("ts_code", "b"), members)

    def _technical(self, build: _Build, technical: Technical) -> exp.Query:
        """Per stock: its last bars ending at the day (rn = 1 is the day itself), then a HAVING test."""
        n = technical.n
        one_more = {
            "ma_cross_above",
            "ma_cross_below",
            "volume_surge",
            "volume_up_streak",
            "volume_down_streak",
        }
        bars = n + 1 if technical.kind in one_more else n
        if technical.kind in {"ma_golden_cross", "ma_death_cross"}:
            bars = max(n, int(technical.factor or n)) + 1
        bar_source = self._bar_source(build.day, bars, technical.kind in CALENDAR_WINDOW_KINDS)
        row_number = exp.Window(
            this=_fn("row_number"),
            partition_by=[_col("ts_code")],
            order=exp.Order(expressions=[exp.Ordered(this=_col("trade_date"), desc=True)]),
        )
        ranked = exp.select(*[_col(name) for name in BAR_COLUMNS], exp.alias_(row_number, "rn")).from_(
            exp.alias_(exp.Subquery(this=bar_source), "history", table=True)
        )
        rn = _col("rn")

        def rn_le(k: int) -> exp.Expr:
            return exp.LTE(this=rn, expression=_num(k))

        def rn_eq(k: int) -> exp.Expr:
            return exp.EQ(this=rn, expression=_num(k))

        def rn_between(low: int, high: int) -> exp.Expr:
            return exp.and_(exp.GTE(this=rn, expression=_num(low)), exp.LTE(this=rn, expression=_num(high)))

        def mean_close(bar_range: exp.Expr | None) -> exp.Expr:
            if bar_range is None:
                return _settled(_fn("avg", _col("close")))
            return _settled(_fn("avgIf", _col("close"), bar_range))

        today_close = _fn("anyIf", _col("close"), rn_eq(1))
        tests: list[exp.Expr] = [
            exp.EQ(this=_fn("count"), expression=_num(bars)),
            exp.EQ(this=_fn("max", _col("trade_date")), expression=_date(build.day)),
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
            close_before = _fn("anyIf", _col("close"), rn_eq(2))
            tests += _crossing(
                today_close, ma_today, close_before, ma_before, upward=kind == "ma_cross_above"
            )
        elif kind in {"ma_golden_cross", "ma_death_cross"}:
            long_n = int(technical.factor or n)
            short_today = mean_close(rn_le(n))
            long_today = mean_close(rn_le(long_n))
            short_before = mean_close(rn_between(2, n + 1))
            long_before = mean_close(rn_between(2, long_n + 1))
            tests += _crossing(
                short_today, long_today, short_before, long_before, upward=kind == "ma_golden_cross"
            )
        elif kind in {"volume_up_streak", "volume_down_streak"}:
            # volume grew (fell) on each of the last n bars against the bar before
            compare = exp.GT if kind == "volume_up_streak" else exp.LT
            for k in range(1, n + 1):
                newer = _fn("anyIf", _col("vol"), rn_eq(k))
                tests.append(compare(this=newer, expression=_fn("anyIf", _col("vol"), rn_eq(k + 1))))
        elif kind == "n_day_high":
            tests.append(exp.GTE(this=today_close, expression=_fn("max", _col("close"))))
        elif kind == "n_day_low":
            tests.append(exp.LTE(this=today_close, expression=_fn("min", _col("close"))))
        elif kind == "up_streak":
            tests.append(exp.GT(this=_fn("min", _col("pct_chg")), expression=_num(0)))
        elif kind == "down_streak":
            tests.append(exp.LT(this=_fn("max", _col("pct_chg")), expression=_num(0)))
        elif kind == "volume_surge":
            factor = technical.factor if technical.factor is not None else 2.0
            today_vol = _fn("anyIf", _col("vol"), rn_eq(1))
            average = _fn("avgIf", _col("vol"), rn_between(2, n + 1))
            threshold = _settled(exp.Mul(this=_num(factor), expression=average))
            tests.append(exp.GTE(this=today_vol, expression=threshold))
        else:
            raise CompileError(f"unknown technical condition {kind!r}")
        return (
            exp.select(_col("ts_code"))
            .from_(exp.alias_(exp.Subquery(this=ranked), "bars", table=True))
            .where(rn_le(bars))
            .group_by(_col("ts_code"))
            .having(exp.and_(*tests))
        )

    def _bar_source(self, day: date, bars: int, calendar_window: bool) -> exp.Query:
        """The daily rows a technical test ranks: a superset of every candidate's last `bars` bars.

        Streaks look at the market's last N trading days (a day without a bar breaks "连续"), so a
        calendar cut of exactly those days is the definition. Moving averages and N-day highs/lows
        use the stock's OWN last N bars, whatever its suspensions: every stock is read over a recent
        slice (a range of the table's sort key), and a stock trading on the day with fewer than N
        bars there (a long suspension) over its whole history; that second part is empty, hence
        cheap, unless such a stock exists.
        """

        def rows(*conditions: exp.Expr) -> exp.Select:
            columns = [_col(name) for name in BAR_COLUMNS]
            return exp.select(*columns).from_(_table(self.context, "daily")).where(_and(list(conditions)))

        up_to_day = exp.LTE(this=_col("trade_date"), expression=_date(day))
        span = bars - 1 if calendar_window else bars + RECENT_SLACK_DAYS
        cut = self.context.trading_day_offset(day, -span)
        if cut is None:
            return rows(up_to_day)
        since_cut = exp.GTE(this=_col("trade_date"), expression=_date(cut))
        recent = rows(since_cut, up_to_day)
        if calendar_window:
            return recent
        short_of_bars = (
            exp.select(_col("ts_code"))
            .from_(_table(self.context, "daily"))
            .where(exp.and_(since_cut.copy(), up_to_day.copy()))
            .group_by(_col("ts_code"))
            .having(
                exp.and_(
                    exp.LT(this=_fn("count"), expression=_num(bars)),
                    exp.EQ(this=_fn("max", _col("trade_date")), expression=_date(day)),
                )
            )
        )
        older = rows(
            exp.LT(this=_col("trade_date"), expression=_date(cut)), _in_query(_col("ts_code"), short_of_bars)
        )
        return exp.union(recent, older, distinct=False)

    def _growth(self, build: _Build, growth: GrowthStreak, time: TimeSpec) -> exp.Query:
        metric = self.model.metrics.get(growth.metric)
        if metric is None or metric.kind != "report":
            raise CompileError(f"growth streaks need a report figure, not {growth.metric!r}")
        if growth.period == "quarter":
            yoy = {"n_income_attr_p": "netprofit_yoy", "n_income": "netprofit_yoy", "revenue": "or_yoy",
                   "total_revenue": "or_yoy"}.get(metric.key)  # fmt: skip
            if yoy is None:
                raise CompileError(
                    f"quarterly growth streaks are available for profit and revenue, not {metric.key}"
                )
            periods = self._recent_periods(build.day, growth.years)
            value = _col(yoy)
            tests: list[exp.Expr] = [exp.EQ(this=_fn("count"), expression=_num(len(periods)))]
            sign = exp.GT if growth.direction == "up" else exp.LT
            tests.append(
                sign(this=_fn("min" if growth.direction == "up" else "max", value), expression=_num(0))
            )
            return (
                exp.select(_col("ts_code"))
                .from_(_table(self.context, "fina_indicator"))
                .where(_in(_col("end_date"), [_date(p) for p in periods]))
                .group_by(_col("ts_code"))
                .having(exp.and_(*tests))
            )
        explicit_year = time.label in {"year", "annual", "last_year", "year_before"}
        reference = self.resolve_period(time if explicit_year else None, build.day)
        periods = [date(reference.year - k, 12, 31) for k in range(growth.years + 1)]
        tests = [exp.EQ(this=_fn("count"), expression=_num(len(periods)))]
        for newer, older in itertools.pairwise(periods):
            newer_value = _fn(
                "sumIf", _col(metric.column), exp.EQ(this=_col("end_date"), expression=_date(newer))
            )
            older_value = _fn(
                "sumIf", _col(metric.column), exp.EQ(this=_col("end_date"), expression=_date(older))
            )
            compare = exp.GT if growth.direction == "up" else exp.LT
            tests.append(compare(this=newer_value, expression=older_value))
        return (
            exp.select(_col("ts_code"))
            .from_(_table(self.context, metric.table))
            .where(_in(_col("end_date"), [_date(p) for p in periods]))
            .group_by(_col("ts_code"))
            .having(exp.and_(*tests))
        )

    def _recent_periods(self, day: date, count: int) -> list[date]:
        periods = [p for p in self.context.report_periods if p <= day]
        if len(periods) < count:
            raise CompileError(f"the data has fewer than {count} report periods")
        return periods[-count:]

    # --- query shapes -----------------------------------------------------------------------------
    def _build(self, screen: Screen, build: _Build, window: Window | None) -> exp.Query:
        time = screen.time
        where = [self.condition(build, condition, time) for condition in screen.where]
        order_expr: exp.Expr | None = None
        if screen.order is not None and not screen.order.metric.startswith("agg:"):
            order_time = screen.order.time or time
            order_expr, name = self.value(build, screen.order.metric, order_time, screen.order.agg)
            build.add_column(name, order_expr)
        series = window is not None and self._is_series(screen)
        for name in screen.outputs:
            if name in self.model.dimensions:
                build.add_column(name, _col(self.model.dimensions[name].column, "b"))
            elif series:
                metric = self.model.metrics[name]
                alias = self._series_alias(build, metric.table, window)  # type: ignore[arg-type]
                build.add_column(name, _col(metric.column, alias))
            else:
                expression, column = self.value(build, name, time)
                build.add_column(column, expression)
        if screen.per_group_limit:
            for aggregate in screen.aggregates:
                if aggregate.metric is not None:
                    expression, name = self.value(build, aggregate.metric, time)
                    build.add_column(name, expression)
        elif screen.aggregates or screen.group_by:
            return self._aggregate_query(screen, build, where, window)
        needs_bar = not build.joins and not series
        if needs_bar and window is None and not screen.where and not screen.outputs:
            self._daily_alias(build, "daily", build.day)  # a bare list of stocks on a day: those with a bar
        query = self._select_from(build, where, stock_columns=True)
        if screen.per_group_limit:
            return self._top_per_group(screen, build, query, order_expr)
        ordering: list[exp.Ordered] = []
        if order_expr is not None and screen.order is not None:
            ordering.append(
                exp.Ordered(this=order_expr, desc=screen.order.direction == "desc", nulls_first=False)
            )
        if series:
            ordering.append(exp.Ordered(this=_col("ts_code", "b")))
            ordering.append(exp.Ordered(this=_col("trade_date", "s")))
        else:
            ordering.append(exp.Ordered(this=_col("ts_code", "b")))
        query = query.order_by(*ordering)
        if screen.limit is not None:
            query = query.limit(_num(screen.limit))
        return query

    def _is_series(self, screen: Screen) -> bool:
        plain = all(
            isinstance(c, Scope) or (isinstance(c, Not) and isinstance(c.item, Scope)) for c in screen.where
        )
        daily = all(self.model.metrics.get(name) is not None and self.model.metrics[name].kind == "daily"
                    for name in screen.outputs if name not in self.model.dimensions)  # fmt: skip
        return bool(screen.outputs) and daily and screen.order is None and not screen.aggregates and plain

    def _series_alias(self, build: _Build, table: str, window: Window) -> str:
        """Rows of each day in the window: `s` (daily) and `sb` (daily_basic, matched to `s` by day)."""
        if table != "daily":
            self._series_alias(build, "daily", window)
        alias = "s" if table == "daily" else "sb"
        if alias not in build.joins:
            build.joins[alias] = (
                exp.select(exp.Star())
                .from_(_table(self.context, table))
                .where(
                    exp.and_(
                        exp.GT(this=_col("trade_date"), expression=_date(window.base)),
                        exp.LTE(this=_col("trade_date"), expression=_date(window.end)),
                    )
                )
            )
            if build.date_column is None:
                build.date_column = ("trade_date", _col("trade_date", alias))
        return alias

    def _select_from(self, build: _Build, where: list[exp.Expr], *, stock_columns: bool) -> exp.Select:
        columns: list[exp.Expr] = []
        if stock_columns:
            columns += [exp.alias_(_col("ts_code", "b"), "ts_code"), exp.alias_(_col("name", "b"), "name")]
            if build.date_column is not None:
                columns.append(exp.alias_(build.date_column[1], build.date_column[0]))
        columns += [exp.alias_(expression, name) for name, expression in build.columns
                    if not (build.date_column and name == build.date_column[0])]  # fmt: skip
        query = exp.select(*columns).from_(_table(self.context, "stock_basic", "b"))
        query = self._join_all(query, build)
        if where:
            query = query.where(_and(where))
        return query

    def _join_all(self, query: exp.Select, build: _Build) -> exp.Select:
        series_aliases = [alias for alias in ("s", "sb") if alias in build.joins]
        for alias, subquery in build.joins.items():
            on: exp.Expr = exp.EQ(this=_col("ts_code", alias), expression=_col("ts_code", "b"))
            if alias == "sb" and "s" in series_aliases:
                on = exp.and_(on, exp.EQ(this=_col("trade_date", "sb"), expression=_col("trade_date", "s")))
            query = query.join(
                exp.alias_(exp.Subquery(this=subquery), alias, table=True), on=on, join_type="INNER"
            )
        return query

    def _aggregate_query(
        self, screen: Screen, build: _Build, where: list[exp.Expr], window: Window | None
    ) -> exp.Query:
        group_column: exp.Expr | None = None
        if screen.group_by:
            group_column = self._dimension(build, screen.group_by)
        select: list[exp.Expr] = []
        if group_column is not None:
            select.append(exp.alias_(group_column, screen.group_by or ""))
        aggregates = list(screen.aggregates)
        order_key: str | None = None
        if screen.order is not None and screen.order.metric.startswith("agg:"):
            _prefix, fn, metric = screen.order.metric.split(":", 2)
            order_aggregate = Aggregate(fn, metric or None)
            if order_aggregate not in aggregates:
                aggregates.append(order_aggregate)
            order_key = _aggregate_name(order_aggregate)
        if screen.order is not None and not screen.order.metric.startswith("agg:"):
            # "各行业平均涨幅排序" without an aggregate word: order groups by the average
            fallback = Aggregate("avg", screen.order.metric)
            if fallback not in aggregates:
                aggregates.append(fallback)
            order_key = _aggregate_name(fallback)
        if not aggregates:
            aggregates.append(Aggregate("count"))
        having_parts: list[exp.Expr] = []
        for aggregate in aggregates:
            expression = self._aggregate_expr(build, aggregate, screen.time)
            select.append(exp.alias_(expression, _aggregate_name(aggregate)))
            measured = self.model.metrics.get(aggregate.metric or "")
            if (
                build.display_unit
                and measured is not None
                and measured.unit_kind == "money"
                and aggregate.fn != "count"
            ):
                converted = _in_display_unit(
                    expression.copy(), measured.stored_unit.factor, build.display_unit
                )
                select.append(exp.alias_(converted, f"{_aggregate_name(aggregate)}_in_unit"))
        for condition in screen.having:
            if condition.agg == "count":
                count = self._aggregate_expr(build, Aggregate("count"), screen.time)
                having_parts.append(_comparison(count, condition))
                continue
            expression = self._aggregate_expr(
                build, Aggregate(condition.agg or "avg", condition.metric), screen.time
            )
            having_parts.append(_comparison(expression, condition))
        query = exp.select(*select).from_(_table(self.context, "stock_basic", "b"))
        query = self._join_all(query, build)
        if where:
            query = query.where(_and(where))
        if group_column is not None:
            query = query.group_by(group_column)
        if having_parts:
            query = query.having(_and(having_parts))
        ordering: list[exp.Ordered] = []
        if order_key is not None and screen.order is not None:
            ordering.append(
                exp.Ordered(
                    this=exp.column(order_key), desc=screen.order.direction == "desc", nulls_first=False
                )
            )
        if group_column is not None:
            ordering.append(exp.Ordered(this=exp.column(screen.group_by or "")))
        if ordering:
            query = query.order_by(*ordering)
        if screen.limit is not None:
            query = query.limit(_num(screen.limit))
        return query

    def _dimension(self, build: _Build, key: str) -> exp.Expr:
        if key == "trade_date":
            if build.window is None:
                raise CompileError(
                    "a per-day breakdown needs a window of days (e.g. the last 5 trading days)"
                )
            return _col("trade_date", self._series_alias(build, "daily", build.window))
        if key == "list_year":
            return _fn("toYear", _col("list_date", "b"))
        return _col(self.model.dimensions[key].column, "b")

    def _aggregate_expr(self, build: _Build, aggregate: Aggregate, time: TimeSpec) -> exp.Expr:
        if aggregate.fn == "count" or aggregate.metric is None:
            return exp.Count(this=exp.Distinct(expressions=[_col("ts_code", "b")]))
        metric = self.model.metrics[aggregate.metric]
        if aggregate.fn in {"count_up", "count_down"}:
            change, _name = self.value(build, aggregate.metric, time)
            sign = exp.GT if aggregate.fn == "count_up" else exp.LT
            return _fn("countIf", sign(this=_comparable(change), expression=_num(0)))
        if self.is_window(time) and metric.kind == "daily":
            # an aggregate over a window: per stock over the window first (gain, sum or average)
            expression, _name = self.value(build, aggregate.metric, time, None)
        else:
            expression, _name = self.value(build, aggregate.metric, time)
        aggregated = _fn(_agg_function(aggregate.fn), expression)
        return _derived(aggregated) if aggregate.fn in COMPUTED_AGGREGATES else aggregated

    def _top_per_group(
        self, screen: Screen, build: _Build, query: exp.Select, order_expr: exp.Expr | None
    ) -> exp.Query:
        if order_expr is None or screen.order is None or not screen.group_by:
            raise CompileError("top-k per group needs an ordering and a group")
        group_column = self._dimension(build, screen.group_by)
        rank = exp.Window(
            this=_fn("row_number"),
            partition_by=[group_column],
            order=exp.Order(
                expressions=[
                    exp.Ordered(this=order_expr, desc=screen.order.direction == "desc", nulls_first=False),
                    exp.Ordered(this=_col("ts_code", "b")),
                ]
            ),
        )
        inner = query.select(
            exp.alias_(group_column.copy(), screen.group_by), exp.alias_(rank, "rank_in_group")
        )
        outer_columns: list[exp.Expr] = [
            exp.column(name) for name in (screen.group_by, "rank_in_group", "ts_code", "name")
        ]
        if build.date_column is not None:
            outer_columns.append(exp.column(build.date_column[0]))
        outer_columns += [exp.column(name) for name, _ in build.columns
                          if not (build.date_column and name == build.date_column[0])]  # fmt: skip
        metric_columns = {name for name, _ in build.columns}
        for aggregate in screen.aggregates:
            if aggregate.metric is None:
                continue
            source = self.model.metrics[aggregate.metric].column
            if source not in metric_columns:
                raise CompileError(f"cannot aggregate {aggregate.metric} within the groups")
            window_value = exp.Window(
                this=_fn(_agg_function(aggregate.fn), exp.column(source)),
                partition_by=[exp.column(screen.group_by)],
            )
            outer_columns.append(exp.alias_(window_value, f"group_{_aggregate_name(aggregate)}"))
        return (
            exp.select(*outer_columns)
            .from_(exp.alias_(exp.Subquery(this=inner), "ranked", table=True))
            .where(exp.LTE(this=exp.column("rank_in_group"), expression=_num(screen.per_group_limit or 1)))
            .order_by(
                exp.Ordered(this=exp.column(screen.group_by)), exp.Ordered(this=exp.column("rank_in_group"))
            )
        )


def _in_display_unit(expression: exp.Expr, stored_factor: float, unit: float | None) -> exp.Expr:
    """A money value in the unit the question asked for (市值是多少亿元 → total_mv × 1e4 / 1e8)."""
    return exp.Div(
        this=exp.Mul(this=expression, expression=_num(stored_factor)), expression=_num(unit or 1.0)
    )


def _comparison(expression: exp.Expr, condition: Compare) -> exp.Expr:
    expression = _comparable(expression)
    if condition.op == "between":
        if condition.value2 is None:
            raise CompileError("between needs two values")
        low, high = sorted((condition.value, condition.value2))
        return exp.Between(this=expression, low=_num(low), high=_num(high))
    if condition.op not in OPS:
        raise CompileError(f"unknown operator {condition.op!r}")
    return OPS[condition.op](this=expression, expression=_num(condition.value))


def _membership(column: exp.Expr, values: tuple[str, ...]) -> exp.Expr:
    if len(values) == 1:
        return exp.EQ(this=column, expression=_str(values[0]))
    return _in(column, [_str(value) for value in values])


def _agg_function(fn: str) -> str:
    return {"avg": "avg", "sum": "sum", "max": "max", "min": "min", "median": "median"}.get(fn, fn)


def _aggregate_name(aggregate: Aggregate) -> str:
    if aggregate.fn == "count" or aggregate.metric is None:
        return "stock_count"
    if aggregate.fn in {"count_up", "count_down"}:
        return "up_count" if aggregate.fn == "count_up" else "down_count"
    return f"{aggregate.fn}_{aggregate.metric}"


def _months_back(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    month += 1
    for candidate in (day.day, 30, 29, 28):
        try:
            return date(year, month, min(candidate, day.day))
        except ValueError:
            continue
    return date(year, month, 28)


def _years_back(day: date, years: float) -> date:
    return _months_back(day, round(years * 12))


def _crossing(
    now: exp.Expr, level_now: exp.Expr, before: exp.Expr, level_before: exp.Expr, *, upward: bool
) -> list[exp.Expr]:
    """`now` crosses its level: strictly beyond it on the day, at or behind it on the bar before."""
    if upward:
        return [exp.GT(this=now, expression=level_now), exp.LTE(this=before, expression=level_before)]
    return [exp.LT(this=now, expression=level_now), exp.GTE(this=before, expression=level_before)]
