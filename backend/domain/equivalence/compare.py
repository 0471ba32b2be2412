"""The "results differ" formula between two symbolic query results, under bag, set or list semantics."""

from __future__ import annotations

import z3

from backend.domain.equivalence.encoder import Encoder, EncodingTooLarge, Relation, Row
from backend.domain.equivalence.values import FALSE

SEMANTICS = ("bag", "set", "list")
MAX_COMPARED_PAIRS = 40_000


def _count(row: Row, relation: Relation) -> z3.ArithRef:
    return z3.Sum(
        *[z3.If(z3.And(other.present, Encoder.rows_equal(row, other)), 1, 0) for other in relation.rows]
    )


def _contained(row: Row, relation: Relation) -> z3.BoolRef:
    return z3.Or(*[z3.And(other.present, Encoder.rows_equal(row, other)) for other in relation.rows])


def results_differ(a: Relation, b: Relation, semantics: str) -> z3.BoolRef:
    if len(a.rows) * len(b.rows) > MAX_COMPARED_PAIRS:
        raise EncodingTooLarge(f"comparing {len(a.rows)} x {len(b.rows)} candidate rows")
    return _results_differ(a, b, semantics)


def _results_differ(a: Relation, b: Relation, semantics: str) -> z3.BoolRef:
    """True exactly when the two results are different under `semantics`."""
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}")
    if len(a.cols) != len(b.cols):
        # Different widths differ as soon as either result has a row.
        return z3.Or(*[row.present for row in a.rows + b.rows])
    if not a.rows or not b.rows:
        return z3.Or(*[row.present for row in a.rows + b.rows], FALSE)
    if semantics == "list" and a.ranks is not None and b.ranks is not None:
        return _lists_differ(a, b)
    if semantics == "set":
        missing_in_b = [z3.And(row.present, z3.Not(_contained(row, b))) for row in a.rows]
        missing_in_a = [z3.And(row.present, z3.Not(_contained(row, a))) for row in b.rows]
        return z3.Or(*missing_in_b, *missing_in_a)
    unequal = [z3.And(row.present, _count(row, a) != _count(row, b)) for row in a.rows + b.rows]
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
