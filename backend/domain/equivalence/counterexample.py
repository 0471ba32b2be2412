"""Concrete counterexample databases: extracted from a z3 model, shown as tables of rows."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from backend.domain.equivalence.encoder import Encoder
from backend.domain.equivalence.schema import DATE, INT, REAL, ColumnDef
from backend.domain.equivalence.values import day_number_to_date


@dataclass
class CounterexampleTable:
    name: str
    columns: tuple[ColumnDef, ...]
    rows: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass
class Counterexample:
    """A small database; `tables` keeps the schema order of the tables the queries read."""

    tables: dict[str, CounterexampleTable]

    def to_dict(self) -> dict[str, dict[str, list[Any]]]:
        return {
            table.name: {
                "columns": [c.name for c in table.columns],
                "rows": [[_jsonable(v) for v in row] for row in table.rows],
            }
            for table in self.tables.values()
        }

    @property
    def row_count(self) -> int:
        return sum(len(t.rows) for t in self.tables.values())


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _concrete(model: z3.ModelRef, term: z3.ExprRef, kind: str) -> Any:
    value = model.eval(term, model_completion=True)
    if kind == INT:
        return value.as_long()
    if kind == REAL:
        fraction = Fraction(value.numerator_as_long(), value.denominator_as_long())
        return int(fraction) if fraction.denominator == 1 else float(fraction)
    if kind == DATE:
        return day_number_to_date(value.as_long())
    return _unescape_z3_string(value.as_string())


def _unescape_z3_string(text: str) -> str:
    # z3 prints every character outside printable ASCII (and the backslash) as \u{hex}.
    return re.sub(r"\\u\{([0-9a-fA-F]+)\}", lambda match: chr(int(match.group(1), 16)), text)


def extract_counterexample(encoder: Encoder, model: z3.ModelRef) -> Counterexample:
    tables: dict[str, CounterexampleTable] = {}
    for key, base in encoder.tables.items():
        table = CounterexampleTable(base.table.name, base.table.columns)
        for row in base.rows:
            if not z3.is_true(model.eval(row.present, model_completion=True)):
                continue
            values: list[Any] = []
            for column, value in zip(base.table.columns, row.values, strict=True):
                if z3.is_true(model.eval(value.null, model_completion=True)):
                    values.append(None)
                else:
                    values.append(_concrete(model, value.v, column.kind))
            table.rows.append(tuple(values))
        tables[key] = table
    return Counterexample(tables)


def blocking_clause(encoder: Encoder, model: z3.ModelRef) -> z3.BoolRef:
    """Forbid exactly this database, to look for another one after a spurious counterexample."""
    same: list[z3.BoolRef] = []
    for base in encoder.tables.values():
        for row in base.rows:
            same.append(row.present == model.eval(row.present, model_completion=True))
            for value in row.values:
                same.append(value.null == model.eval(value.null, model_completion=True))
                same.append(value.v == model.eval(value.v, model_completion=True))
    return z3.Not(z3.And(*same))
