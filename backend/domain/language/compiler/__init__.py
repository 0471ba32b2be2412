"""QST → ClickHouse SQL, built as sqlglot expressions (no user text is ever spliced into SQL).

The compiler resolves symbolic times on the trading calendar of the context, picks the tables the
question needs and joins them to `stock_basic`; every ordering ends with `ts_code` so that results
are deterministic. Conventions (windows, moving averages, annual figures) are those documented in
semantic_model.yaml. README.md lists the steps in the order they run and the module of each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from sqlglot import exp

from backend.domain.language.compiler.aggregates import DAY_COUNTS, orders_by_aggregate
from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.shapes import build_query, lists_daily_values
from backend.domain.language.compiler.sources import DAY_GROUPINGS
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import (
    REPORT_PERIOD_LABELS,
    is_window,
    periods_asked,
    resolve_day,
    resolve_window,
)
from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import (
    REPORT_TIME_LABELS,
    BoolOp,
    Compare,
    Condition,
    GrowthStreak,
    LossToProfit,
    Not,
    Scope,
    Screen,
    Sustained,
    Technical,
    TimeSpec,
)
from backend.domain.language.qst import qst_to_screen
from backend.domain.language.semantic import SemanticModel
from backend.domain.market.guard import DIALECT, require_read_only


class Compiler:
    def __init__(self, context: LanguageContext) -> None:
        self.context = context
        self.model = context.model

    def compile_qst(self, qst: dict[str, Any]) -> tuple[exp.Query, list[str]]:
        return self.compile(qst_to_screen(qst))

    def compile(self, screen: Screen) -> tuple[exp.Query, list[str]]:
        """The query and the warnings about the data it runs on (a non-trading day, a future day…)."""
        context = self.context
        if screen.time.label == "recent_days" and lists_daily_values(self.model, screen):
            # 茅台最近5天收盘价: a listing of each day's values counts its days as rows (trading days)
            screen = replace(screen, time=replace(screen.time, label="recent_bars"))
        spec = screen.time
        window = resolve_window(context, spec) if is_window(spec) else None
        day = window.end if window else resolve_day(context, spec)
        build = QueryBuild(context, day, screen_time=spec, display_unit=screen.display_unit, window=window)
        by_day = screen.group_by in DAY_GROUPINGS  # rows are stock-days: by day, or counting days
        by_day = by_day or any(aggregate.fn in DAY_COUNTS for aggregate in screen.aggregates)
        build.per_day = (by_day or screen.daily_values) and window is not None
        # 最新一期净利率最高、流通市值不到20亿的: the period dates the reports; a market value is today's
        build.report_time = spec.label in REPORT_TIME_LABELS and _reads_any_report(self.model, screen)
        if spec.label in REPORT_PERIOD_LABELS and _reads_reports_only(self.model, screen):
            # 2025年一季度…的沪深300成分股: the period dates the report, not the index's membership
            build.membership_day = context.latest_trade_date
        conditions_day = _day_of_conditions(screen)
        if spec.label == "latest" and conditions_day is not None:
            # CSI 500 members that were up on 2024-07-15: the day said with the conditions is the
            # question's, so membership is read on it, not today
            build.membership_day = resolve_day(context, conditions_day)
        if spec.label == "date" and context.has_data and not context.is_trading_day(day):
            build.warnings.append(
                f"{day.isoformat()} is not a trading day in the data: there are no bars that day"
            )
        if context.has_data and day > context.latest_trade_date:
            build.warnings.append(f"{day.isoformat()} is after the latest trading day in the data")
        _check_known(self.model, screen)
        if screen.group_by == "report_period":
            build.report_periods = periods_asked(context, spec, context.latest_trade_date)
            build.period_table = _report_table(self.model, screen)
        query = build_query(screen, build)
        require_read_only(query.sql(dialect=DIALECT))
        return query, build.warnings


def _reads_reports_only(model: SemanticModel, screen: Screen) -> bool:
    """Whether every figure the screen reads comes from the report tables (none from market days)."""
    return _reads_reports(model, screen, all)


def _reads_any_report(model: SemanticModel, screen: Screen) -> bool:
    """Whether the screen reads a report figure at all (its report period then dates that figure)."""
    return _reads_reports(model, screen, any, dimension=False)


def _reads_reports(
    model: SemanticModel, screen: Screen, combine: Callable[[Iterable[bool]], bool], *, dimension: bool = True
) -> bool:
    """The screen's figures, each whether it comes from the report tables, combined (all or any);
    `dimension`: what a dimension, a scope or no figure counts as."""

    def report(key: str | None) -> bool:
        if key is None or key in model.dimensions:
            return dimension
        return key in model.metrics and model.metrics[key].kind == "report"

    def condition(item: Condition) -> bool:
        if isinstance(item, Compare):
            return combine([report(item.metric), dimension if item.other is None else report(item.other)])
        if isinstance(item, Sustained):
            return condition(item.compare)
        if isinstance(item, GrowthStreak | LossToProfit):
            return report(item.metric)
        if isinstance(item, BoolOp):
            return combine(condition(part) for part in item.items)
        if isinstance(item, Not):
            return condition(item.item)
        return dimension and isinstance(item, Scope)

    order = screen.order
    return combine(
        [
            combine(condition(item) for item in screen.where),
            combine(report(name) for name in screen.outputs),
            combine(report(aggregate.metric) for aggregate in screen.aggregates),
            dimension if order is None else report(order.metric.rsplit(":", 1)[-1]),
        ]
    )


def _day_of_conditions(screen: Screen) -> TimeSpec | None:
    """The one market day the screen's conditions are said on, when each that names a day names the
    same one (None when none does, or they name several: 昨天涨停、今天跌停)."""

    def days(item: Condition) -> list[TimeSpec]:
        if isinstance(item, Compare | Technical) and item.time is not None:
            return [item.time]
        if isinstance(item, BoolOp):
            return [day for part in item.items for day in days(part)]
        if isinstance(item, Not):
            return days(item.item)
        return []

    said = {day for item in screen.where for day in days(item)}
    single = next(iter(said)) if len(said) == 1 else None
    return single if single is not None and single.is_single_day and single.label != "latest" else None


def _report_table(model: SemanticModel, screen: Screen) -> str | None:
    """The report table a breakdown by period reads (the first report figure's), None if none."""

    def metrics_of(condition: Condition) -> list[str]:
        if isinstance(condition, Compare):
            return [condition.metric]
        if isinstance(condition, BoolOp):
            return [key for item in condition.items for key in metrics_of(item)]
        return metrics_of(condition.item) if isinstance(condition, Not) else []

    keys = [aggregate.metric for aggregate in screen.aggregates if aggregate.metric]
    keys += screen.outputs  # a named stock's figure listed per period (茅台近4个报告期的毛利率)
    keys += [key for condition in screen.where for key in metrics_of(condition)]
    known = [model.metrics[key] for key in keys if key in model.metrics]
    tables = [metric.table for metric in known if metric.kind == "report"]
    return tables[0] if tables else None


def _check_known(model: SemanticModel, screen: Screen) -> None:
    """Every attribute, dimension and ordering a QST names exists (an LLM-written QST may invent one)."""
    metrics = model.metrics
    dims = model.dimensions

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
    if screen.order and not orders_by_aggregate(screen.order):
        check_metric(screen.order.metric)


__all__ = ["CompileError", "Compiler"]
