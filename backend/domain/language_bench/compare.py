"""Execution-accuracy comparison of a predicted result with the gold result.

Rules (README.md in benchmarks/language explains why):
- cells are normalised: every number (int, float, Decimal, bool) becomes a float, dates and
  datetimes become ISO text (a midnight datetime, naive or UTC, equals the date), NaN becomes a
  marker, arrays become tuples;
- floats are equal within a relative tolerance of 1e-6 (absolute 1e-9 near zero);
- every gold column must be present in the prediction: the predicted columns are matched to the gold
  columns by their VALUES, not their names (an injective mapping gold column -> predicted column);
  extra predicted columns are ignored, so "ts_code" and "ts_code, name, close" both answer a
  "which stocks" question whose gold returns ts_code;
- the rows projected on the matched columns are compared as a multiset (duplicates count), or as a
  list when the item says order matters;
- two empty results are equal whatever their columns.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

REL_TOL = 1e-6
ABS_TOL = 1e-9
_MAX_ASSIGNMENTS = 2000  # column-mapping search bound; real results have a handful of columns
_DIFF_SAMPLES = 5

Cell = None | float | str | tuple[Any, ...]
Row = tuple[Cell, ...]


@dataclass(frozen=True)
class ResultTable:
    columns: list[str]
    rows: list[tuple[Any, ...]]


@dataclass(frozen=True)
class Comparison:
    match: bool
    reason: str = ""
    column_map: dict[str, str] = field(default_factory=dict)  # gold column -> predicted column
    only_in_gold: list[list[Any]] = field(default_factory=list)  # sample of rows/values
    only_in_pred: list[list[Any]] = field(default_factory=list)


def normalise_cell(value: Any) -> Cell:
    if value is None:
        return None
    if isinstance(value, bool | int | Decimal):
        return float(value)
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else value
    if isinstance(value, datetime):
        if value.time() == time(0, 0) and value.utcoffset() in (None, timedelta(0)):
            return value.date().isoformat()
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return tuple(normalise_cell(item) for item in value)
    return str(value)


def normalise_rows(rows: Sequence[Sequence[Any]]) -> list[Row]:
    return [tuple(normalise_cell(value) for value in row) for row in rows]


def cells_equal(left: Cell, right: Cell) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(left, tuple) and isinstance(right, tuple):
        return len(left) == len(right) and all(cells_equal(a, b) for a, b in zip(left, right, strict=True))
    return left == right


def _cell_key(cell: Cell) -> tuple[int, Any]:
    # Total order over mixed cells; floats rounded so that values equal within tolerance sort alike.
    if cell is None:
        return (0, 0)
    if isinstance(cell, float):
        return (1, float(f"{cell:.9g}"))
    if isinstance(cell, str):
        return (2, cell)
    return (3, tuple(_cell_key(item) for item in cell))


def _row_key(row: Row) -> tuple[tuple[int, Any], ...]:
    return tuple(_cell_key(cell) for cell in row)


def rows_equal(gold: list[Row], pred: list[Row], *, ordered: bool) -> bool:
    if len(gold) != len(pred):
        return False
    if not ordered:
        gold = sorted(gold, key=_row_key)
        pred = sorted(pred, key=_row_key)
    return all(
        len(g) == len(p) and all(cells_equal(a, b) for a, b in zip(g, p, strict=True))
        for g, p in zip(gold, pred, strict=True)
    )


def _project(rows: list[Row], indexes: Sequence[int]) -> list[Row]:
    return [tuple(row[i] for i in indexes) for row in rows]


def _candidates(gold: list[Row], pred: list[Row], gold_width: int, pred_width: int) -> list[list[int]]:
    """For each gold column, the predicted columns holding the same multiset of values."""
    return [
        [p for p in range(pred_width) if rows_equal(_project(gold, [g]), _project(pred, [p]), ordered=False)]
        for g in range(gold_width)
    ]


def _assignments(candidates: list[list[int]]) -> list[list[int]]:
    """Injective choices of one candidate per gold column, at most _MAX_ASSIGNMENTS of them."""
    found: list[list[int]] = []

    def extend(prefix: list[int]) -> None:
        if len(found) >= _MAX_ASSIGNMENTS:
            return
        if len(prefix) == len(candidates):
            found.append(list(prefix))
            return
        for choice in candidates[len(prefix)]:
            if choice not in prefix:
                extend([*prefix, choice])

    extend([])
    return found


def _plain(row: Row) -> list[Any]:
    return [list(cell) if isinstance(cell, tuple) else cell for cell in row]


def _difference(gold: list[Row], pred: list[Row]) -> tuple[list[list[Any]], list[list[Any]]]:
    """Samples of rows present (more often) on one side only, compared on rounded keys."""
    gold_keys = Counter(_row_key(row) for row in gold)
    pred_keys = Counter(_row_key(row) for row in pred)
    return _surplus(gold, gold_keys - pred_keys), _surplus(pred, pred_keys - gold_keys)


def _surplus(rows: list[Row], extra: Counter[tuple[tuple[int, Any], ...]]) -> list[list[Any]]:
    """Up to _DIFF_SAMPLES rows accounting for the surplus counts in `extra`."""
    remaining = Counter(extra)
    sample: list[list[Any]] = []
    for row in rows:
        key = _row_key(row)
        if remaining[key] > 0 and len(sample) < _DIFF_SAMPLES:
            remaining[key] -= 1
            sample.append(_plain(row))
    return sample


def _diff_basis(gold: ResultTable, pred: ResultTable) -> tuple[list[Row], list[Row]]:
    """What to show in a diff: the column both sides name alike (ts_code first), else whole rows."""
    shared = [name for name in gold.columns if name in pred.columns]
    shared.sort(key=lambda name: name != "ts_code")
    gold_rows, pred_rows = normalise_rows(gold.rows), normalise_rows(pred.rows)
    if shared:
        name = shared[0]
        return (
            _project(gold_rows, [gold.columns.index(name)]),
            _project(pred_rows, [pred.columns.index(name)]),
        )
    return gold_rows, pred_rows


def compare_results(gold: ResultTable, pred: ResultTable, *, order_matters: bool) -> Comparison:
    gold_rows, pred_rows = normalise_rows(gold.rows), normalise_rows(pred.rows)
    if not gold_rows and not pred_rows:
        return Comparison(match=True)
    if not pred_rows:
        return Comparison(
            match=False, reason=f"the predicted result is empty; gold has {len(gold_rows)} rows"
        )
    if not gold_rows:
        return Comparison(match=False, reason=f"gold is empty; the prediction has {len(pred_rows)} rows")
    if len(gold_rows) != len(pred_rows):
        only_gold, only_pred = _difference(*_diff_basis(gold, pred))
        return Comparison(
            match=False,
            reason=f"row count differs: gold {len(gold_rows)}, predicted {len(pred_rows)}",
            only_in_gold=only_gold,
            only_in_pred=only_pred,
        )
    candidates = _candidates(gold_rows, pred_rows, len(gold.columns), len(pred.columns))
    unmatched = [gold.columns[g] for g, options in enumerate(candidates) if not options]
    if unmatched:
        only_gold, only_pred = _difference(*_diff_basis(gold, pred))
        return Comparison(
            match=False,
            reason="no predicted column holds the values of gold column(s) " + ", ".join(unmatched),
            only_in_gold=only_gold,
            only_in_pred=only_pred,
        )
    same_rows_other_order = False
    for assignment in _assignments(candidates):
        projected = _project(pred_rows, assignment)
        if rows_equal(gold_rows, projected, ordered=order_matters):
            return Comparison(
                match=True,
                column_map={gold.columns[g]: pred.columns[p] for g, p in enumerate(assignment)},
            )
        if order_matters and rows_equal(gold_rows, projected, ordered=False):
            same_rows_other_order = True
    if same_rows_other_order:
        return Comparison(
            match=False, reason="same rows as gold but in a different order (order matters here)"
        )
    return Comparison(
        match=False,
        reason="every gold column has a predicted match alone, but the rows do not pair up",
    )
