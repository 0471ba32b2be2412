"""QST → ClickHouse SQL, built as sqlglot expressions (no user text is ever spliced into SQL).

The compiler resolves symbolic times on the trading calendar of the context, picks the tables the
question needs and joins them to `stock_basic`; every ordering ends with `ts_code` so that results
are deterministic. Conventions (windows, moving averages, annual figures) are those documented in
semantic_model.yaml. README.md lists the steps in the order they run and the module of each.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from backend.domain.language.compiler.aggregates import orders_by_aggregate
from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.shapes import build_query
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import is_window, resolve_day, resolve_window
from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import Screen
from backend.domain.language.qst import qst_to_screen
from backend.domain.language.semantic import SemanticModel
from backend.domain.market.guard import DIALECT, check_read_only


class Compiler:
    def __init__(self, context: LanguageContext) -> None:
        self.context = context
        self.model = context.model

    def compile_qst(self, qst: dict[str, Any]) -> tuple[exp.Query, list[str]]:
        return self.compile(qst_to_screen(qst))

    def compile(self, screen: Screen) -> tuple[exp.Query, list[str]]:
        """The query and the warnings about the data it runs on (a non-trading day, a future day…)."""
        context = self.context
        spec = screen.time
        window = resolve_window(context, spec) if is_window(spec) else None
        day = window.end if window else resolve_day(context, spec)
        build = QueryBuild(context, day, screen_time=spec, display_unit=screen.display_unit, window=window)
        build.per_day = (screen.group_by == "trade_date" or screen.daily_values) and window is not None
        if spec.label == "date" and context.has_data and not context.is_trading_day(day):
            build.warnings.append(
                f"{day.isoformat()} is not a trading day in the data: there are no bars that day"
            )
        if context.has_data and day > context.latest_trade_date:
            build.warnings.append(f"{day.isoformat()} is after the latest trading day in the data")
        _check_known(self.model, screen)
        query = build_query(screen, build)
        check_read_only(query.sql(dialect=DIALECT))
        return query, build.warnings


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
