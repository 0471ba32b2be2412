"""Bounded SQL equivalence with an SMT solver (SpotIt, docs/design.md §1 step 6).

Both queries and the condition "their results differ" are encoded into one z3 formula over a
symbolic database of at most k rows per table, for k = 1..K. `unsat` at every k means the queries
are *equivalent within K*; `sat` gives a small counterexample database, which is then re-executed on
a real engine (chdb for ClickHouse SQL, SQLite for SQLite SQL). Only a counterexample on which the
engine really returns different results is reported (`confirmed=True`, verdict `not_equivalent`);
one that does not separate the queries is listed as spurious and never becomes a verdict.

Public API::

    from backend.domain.equivalence import Schema, check_equivalence, CounterexampleStore

    result = check_equivalence(pred_sql, gold_sql, schema=Schema.market())
    result.verdict         # "equivalent" | "not_equivalent" | "unsupported" | "unknown"
    result.counterexample  # {"daily": {"columns": [...], "rows": [[...], ...]}, ...} when not_equivalent
    result.results         # {"a": rows of sql_a, "b": rows of sql_b} on that database
    result.reason          # e.g. "unsupported: window function"

See README.md in this folder for the uses (correction loop, paradigm merging, UI, EX-SpotIt).
"""

from backend.domain.equivalence.checker import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    UNKNOWN,
    UNSUPPORTED,
    EquivalenceResult,
    check_equivalence,
)
from backend.domain.equivalence.counterexample import Counterexample
from backend.domain.equivalence.schema import Schema
from backend.domain.equivalence.store import CounterexampleStore
from backend.domain.equivalence.validate import (
    ChdbValidator,
    CounterexampleValidator,
    SqliteValidator,
    ValidationFailed,
)

__all__ = [
    "EQUIVALENT",
    "NOT_EQUIVALENT",
    "UNKNOWN",
    "UNSUPPORTED",
    "ChdbValidator",
    "Counterexample",
    "CounterexampleStore",
    "CounterexampleValidator",
    "EquivalenceResult",
    "Schema",
    "SqliteValidator",
    "ValidationFailed",
    "check_equivalence",
]
