"""The state of one query under construction, shared by every compiler module."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from sqlglot import exp

from backend.domain.language.compiler.time_resolution import Window
from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import TimeSpec
from backend.domain.language.semantic import SemanticModel


@dataclass
class QueryBuild:
    context: LanguageContext
    day: date  # the question's trading day (the window's last day for a window)
    screen_time: TimeSpec = field(default_factory=TimeSpec)  # the question's own time, as written
    joins: dict[str, exp.Expr] = field(default_factory=dict)  # alias → subquery, joined to stock_basic b
    # alias → (its key column, the expression of b it matches) for joins not on ts_code (group figures)
    join_keys: dict[str, tuple[str, exp.Expr]] = field(default_factory=dict)
    columns: list[tuple[str, exp.Expr]] = field(default_factory=list)  # shown values, by output name
    warnings: list[str] = field(default_factory=list)
    date_column: tuple[str, exp.Expr] | None = None  # the trade_date shown next to each stock
    display_unit: float | None = None  # shown money/share values in this unit (units.py)
    column_metrics: dict[str, str] = field(default_factory=dict)  # shown column → the metric it shows
    window: Window | None = None
    per_day: bool = False  # grouped by trade_date: daily values row by row over the window
    index_members: dict[str, date] = field(default_factory=dict)  # index code → snapshot of its scope
    membership_day: date | None = None  # the day index membership is read on, when not `day`
    # grouped by report period: the periods of the year asked, and the one report table read
    report_periods: tuple[date, ...] = ()
    period_table: str | None = None
    report_time: bool = False  # the question's time is a report period dating its report figures

    @property
    def model(self) -> SemanticModel:
        return self.context.model

    def add_column(self, alias: str, expression: exp.Expr) -> None:
        if alias not in {name for name, _ in self.columns}:
            self.columns.append((alias, expression))

    def sub_build(self, time: TimeSpec, window: Window | None, *, per_day: bool = False) -> QueryBuild:
        """A fresh build for a subquery (a ranked subset, a group's average, the days of a window)
        on the same calendar; its warnings are this build's."""
        day = window.end if window is not None else self.day
        sub = QueryBuild(self.context, day, screen_time=time, warnings=self.warnings, window=window)
        sub.per_day = per_day
        return sub

    def value_columns(self) -> list[tuple[str, exp.Expr]]:
        """The shown columns other than the date column (which goes right after the stock's name)."""
        return [(name, expression) for name, expression in self.columns
                if not (self.date_column and name == self.date_column[0])]  # fmt: skip
