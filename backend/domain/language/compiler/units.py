"""Shown values in the unit the question asked for (营收多少亿 → revenue / 1e8 AS revenue_yi).

A display unit (`Screen.display_unit`, in base units: yuan or shares) converts every shown money or
share value — plain columns, condition values and aggregates alike — and its column name says the
unit. Comparisons keep the stored unit: only the shown value changes.
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.language.compiler.sql import number
from backend.domain.language.compiler.state import QueryBuild

# column-name suffix per (kind of unit, base units per display unit)
SUFFIXES = {
    ("money", 1.0e4): "wan",
    ("money", 1.0e6): "mn",
    ("money", 1.0e8): "yi",
    ("money", 1.0e9): "bn",
    ("money", 1.0e12): "tn",
    ("shares", 1.0e4): "wan_shares",
    ("shares", 1.0e6): "wan_lots",
    ("shares", 1.0e8): "yi_shares",
}


def in_display_unit(
    build: QueryBuild, name: str, expression: exp.Expr, metric_key: str | None
) -> tuple[str, exp.Expr]:
    """(name, expression) of a shown value of `metric_key`, in the display unit when it applies."""
    metric = build.model.metrics.get(metric_key or "")
    unit = build.display_unit
    if unit is None or metric is None or metric.unit_kind not in {"money", "shares"}:
        return name, expression
    suffix = SUFFIXES.get((metric.unit_kind, unit), f"per_{unit:g}")
    divisor = unit / metric.stored_unit.factor  # total_mv (万元) in 亿: / 1e4
    return f"{name}_{suffix}", exp.Div(this=exp.Paren(this=expression), expression=number(divisor))


def shown_columns(build: QueryBuild) -> list[tuple[str, exp.Expr]]:
    """The shown columns other than the date column, each in the display unit where it applies."""
    return [in_display_unit(build, name, expression, build.column_metrics.get(name, name))
            for name, expression in build.value_columns()]  # fmt: skip
