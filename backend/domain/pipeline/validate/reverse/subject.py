"""What a reverse rule looks at: the question's reading, the answer under test (r0), where the data is."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import cached_property

from backend.domain.market.literals import string_list, string_literal
from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.reverse.reading import Reading, Scope, When

MAX_CODES = 5000  # beyond this an IN list is not a reasonable reverse query: the rules stand aside
CODE_COLUMNS = ("ts_code", "con_code", "code")
_CODE = re.compile(r"^\d{6}\.(SH|SZ|BJ)$|^[A-Z][A-Z0-9.\-]*\.US$")
REL_TOL = 1e-6


def code_list(codes: Sequence[str]) -> str:
    """`('a', 'b', …)` written at once (market/literals.py); `('')` for no code, which matches none."""
    return string_list(codes) if codes else "('')"


def number_of(cell: object) -> float | None:
    if isinstance(cell, bool) or cell is None:
        return None
    if isinstance(cell, int | float | Decimal):
        value = float(cell)
        return None if math.isnan(value) else value
    return None


def close_to(left: float, right: float) -> bool:
    return math.isclose(left, right, rel_tol=REL_TOL, abs_tol=1e-9)


def day_of(cell: object) -> date | None:
    if isinstance(cell, datetime):
        return cell.date()
    if isinstance(cell, date):
        return cell
    if isinstance(cell, str):
        try:
            return date.fromisoformat(cell[:10])
        except ValueError:
            return None
    return None


def code_column(result: ResultRows) -> int | None:
    """The column of r0 that holds stock codes: named like one, or holding nothing but codes (and not
    named for an index)."""
    for name in CODE_COLUMNS:
        if name in result.columns:
            return result.columns.index(name)
    if not result.rows:
        return None
    for index in range(len(result.columns)):
        if "index" in str(result.columns[index]).lower():
            continue  # index_code: index codes look like stock codes (000300.SH) but are none
        cells = [row[index] for row in result.rows]
        if all(isinstance(cell, str) and _CODE.match(cell) for cell in cells):
            return index
    return None


@dataclass(frozen=True)
class Subject:
    reading: Reading
    result: ResultRows  # r0
    database: str

    @property
    def zh(self) -> bool:
        return self.reading.zh

    def says(self, zh: str, en: str) -> str:
        return zh if self.zh else en

    @cached_property
    def codes(self) -> tuple[str, ...] | None:
        """The stock codes r0 returns, in order (duplicates kept); None when r0 does not list stocks.
        An empty answer lists no stock (the store may not even name its columns then)."""
        if not self.result.rows:
            return ()
        index = code_column(self.result)
        if index is None:
            return None
        codes = tuple(str(row[index]) for row in self.result.rows)
        return codes if len(set(codes)) <= MAX_CODES else None

    @property
    def lists_stocks(self) -> bool:
        """r0 answers "which stocks": it lists codes and the question asks for no statistic."""
        reading = self.reading
        return (
            self.codes is not None
            and reading.aggregate is None
            and not reading.count
            and reading.group is None
        )

    def table(self, name: str) -> str:
        return f"{self.database}.{name}"

    def scope_condition(self, scope: Scope, when: When | None, column: str = "ts_code") -> str | None:
        """SQL that holds for a stock code `column` inside the scope (None: not expressible here)."""
        basic = self.table("stock_basic")
        if scope.column == "index":
            if when is None or when.period:
                return None  # which snapshot a range or a report period means is not read
            day = when.trade_day_sql(self.database)
            members = []
            for code in scope.values:
                weights = self.table("index_weight")
                snapshot = (
                    f"(SELECT max(trade_date) FROM {weights} WHERE index_code = {string_literal(code)} "
                    f"AND trade_date <= {day})"
                )
                members.append(
                    f"{column} IN (SELECT con_code FROM {weights} WHERE index_code = {string_literal(code)} "
                    f"AND trade_date = {snapshot})"
                )
            inside = " OR ".join(members)
        elif scope.column == "st":
            inside = (
                f"{column} IN (SELECT ts_code FROM {basic} WHERE positionCaseInsensitive(name, 'ST') > 0)"
            )
        elif scope.column == "ts_code":
            inside = f"{column} IN {code_list(scope.values)}"
        else:
            inside = (
                f"{column} IN (SELECT ts_code FROM {basic} WHERE {scope.column} IN {code_list(scope.values)})"
            )
        return f"NOT ({inside})" if scope.negated else f"({inside})"

    def universe(self, when: When, column: str = "ts_code") -> list[str] | None:
        """Conditions on a stock code for every filter and scope read (None: one is not expressible)."""
        conditions: list[str] = []
        for scope in self.reading.scopes:
            condition = self.scope_condition(scope, when, column)
            if condition is None:
                return None
            conditions.append(condition)
        for item in self.reading.filters:
            date_column = "end_date" if item.table in ("income", "fina_indicator") else "trade_date"
            day = when.trade_day_sql(self.database)
            conditions.append(
                f"{column} IN (SELECT ts_code FROM {self.table(item.table)} AS f "
                f"WHERE f.{date_column} = {day} AND {item.holds('f')})"
            )
        return conditions
