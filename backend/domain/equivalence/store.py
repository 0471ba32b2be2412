"""Counterexample reuse (SpotIt+): confirmed counterexample databases kept per reference query.

Candidates for the same reference (gold) query often share mistakes, so a database that separated
one candidate from the reference is tried on the next candidates — by execution, before the solver.
"""

from __future__ import annotations

import threading

import sqlglot
from sqlglot.errors import ParseError, TokenError

from backend.domain.equivalence.counterexample import Counterexample


def reference_key(sql: str, dialect: str) -> str:
    """Formatting-insensitive key of a query: sqlglot's canonical rendering, else the stripped text."""
    try:
        return sqlglot.parse_one(sql, read=dialect).sql(dialect=dialect, normalize=True)
    except (ParseError, TokenError, ValueError):
        return " ".join(sql.split())


class CounterexampleStore:
    """In-memory, thread-safe; at most `per_reference` databases per reference query (oldest dropped)."""

    def __init__(self, per_reference: int = 20) -> None:
        self._by_reference: dict[str, list[Counterexample]] = {}
        self._per_reference = per_reference
        self._lock = threading.Lock()

    def counterexamples(self, reference_sql: str, dialect: str) -> list[Counterexample]:
        with self._lock:
            return list(self._by_reference.get(reference_key(reference_sql, dialect), []))

    def add(self, reference_sql: str, dialect: str, counterexample: Counterexample) -> None:
        key = reference_key(reference_sql, dialect)
        with self._lock:
            kept = self._by_reference.setdefault(key, [])
            kept.append(counterexample)
            del kept[: max(0, len(kept) - self._per_reference)]

    def __len__(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._by_reference.values())
