"""The "results differ" formula between two symbolic query results, under bag, set or list semantics."""

from __future__ import annotations

from collections.abc import Callable

import z3

from backend.domain.equivalence.encoder import Encoder, EncodingTooLarge, Relation, Row
from backend.domain.equivalence.values import FALSE

SEMANTICS = ("bag", "set", "list")
MAX_COMPARED_PAIRS = 40_000


class _RowEquality:
    """`other` is present and equal to `row`; built once per unordered pair (the comparison is quadratic)."""

    def __init__(self, deadline: Callable[[], None]) -> None:
        self._terms: dict[tuple[int, int], z3.BoolRef] = {}
        self._deadline = deadline

    def __call__(self, row: Row, other: Row) -> z3.BoolRef:
        if row is other:
            return other.present
        key = (id(row), id(other)) if id(row) <= id(other) else (id(other), id(row))
        term = self._terms.get(key)
        if term is None:
            if len(self._terms) % 500 == 0:
                self._deadline()
            term = Encoder.rows_equal(row, other)
            self._terms[key] = term
        return z3.And(other.present, term)


def results_differ(
    a: Relation, b: Relation, semantics: str, deadline: Callable[[], None] = lambda: None
) -> z3.BoolRef:
    """True exactly when the two results are different under `semantics`."""
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}")
    if len(a.rows) * len(b.rows) > MAX_COMPARED_PAIRS:
        raise EncodingTooLarge(f"comparing {len(a.rows)} x {len(b.rows)} candidate rows")
    if len(a.cols) != len(b.cols):
        # Different widths differ as soon as either result has a row.
        return z3.Or(*[row.present for row in a.rows + b.rows])
    if not a.rows or not b.rows:
        return z3.Or(*[row.present for row in a.rows + b.rows], FALSE)
    if semantics == "list" and a.ranks is not None and b.ranks is not None:
        return _lists_differ(a, b)
    equal = _RowEquality(deadline)
    if semantics == "set":
        missing_in_b = [
            z3.And(row.present, z3.Not(z3.Or(*[equal(row, o) for o in b.rows]))) for row in a.rows
        ]
        missing_in_a = [
            z3.And(row.present, z3.Not(z3.Or(*[equal(row, o) for o in a.rows]))) for row in b.rows
        ]
        return z3.Or(*missing_in_b, *missing_in_a)

    def count(row: Row, relation: Relation) -> z3.ArithRef:
        return z3.Sum(*[z3.If(equal(row, other), 1, 0) for other in relation.rows])

    unequal = [z3.And(row.present, count(row, a) != count(row, b)) for row in a.rows + b.rows]
    return z3.Or(*unequal)


def _lists_differ(a: Relation, b: Relation) -> z3.BoolRef:
    assert a.ranks is not None and b.ranks is not None
    size_a = z3.Sum(*[z3.If(row.present, 1, 0) for row in a.rows])
    size_b = z3.Sum(*[z3.If(row.present, 1, 0) for row in b.rows])
    mismatched = [
        z3.And(row_a.present, row_b.present, rank_a == rank_b, z3.Not(Encoder.rows_equal(row_a, row_b)))
        for row_a, rank_a in zip(a.rows, a.ranks, strict=True)
        for row_b, rank_b in zip(b.rows, b.ranks, strict=True)
    ]
    return z3.Or(size_a != size_b, *mismatched)
