"""Bounded equivalence search (SpotIt, Alg. 1) with real-engine confirmation and counterexample reuse."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import sqlglot
import z3
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from backend.domain.equivalence.compare import SEMANTICS, results_differ
from backend.domain.equivalence.counterexample import Counterexample, blocking_clause, extract_counterexample
from backend.domain.equivalence.dialects import dialect_named
from backend.domain.equivalence.encoder import Encoder, EncodingTooLarge, UnresolvedColumn
from backend.domain.equivalence.errors import Unsupported
from backend.domain.equivalence.schema import Schema
from backend.domain.equivalence.store import CounterexampleStore
from backend.domain.equivalence.validate import (
    CounterexampleValidator,
    ValidationFailed,
    default_validator,
    rows_differ,
)
from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import check_read_only

EQUIVALENT, NOT_EQUIVALENT, UNSUPPORTED, UNKNOWN = "equivalent", "not_equivalent", "unsupported", "unknown"
SPURIOUS_RETRIES = 2  # other models tried at the same bound after a spurious one
REUSED_REASON = "a stored counterexample of the reference query separates them"
# Python's recursion limit bounds how deeply nested a query sqlglot and the encoder can follow.
NESTED_TOO_DEEPLY = "the SQL is nested too deeply to be checked"


@dataclass
class EquivalenceResult:
    """Outcome of one check.

    verdict: "equivalent" (no differing database with at most `bound` rows per table),
    "not_equivalent" (a counterexample confirmed on the real engine), "unsupported" (a construct the
    encoding does not model; `reason` names it) or "unknown" (solver timeout, or only spurious or
    unverifiable counterexamples).
    """

    verdict: str
    bound: int
    semantics: str
    reason: str = ""
    counterexample: dict[str, dict[str, list[Any]]] | None = None
    confirmed: bool = False
    found_at_k: int | None = None
    reused: bool = False
    results: dict[str, list[list[Any]]] | None = None
    spurious: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def equivalent(self) -> bool:
        return self.verdict == EQUIVALENT

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _parse(sql: str, dialect: str) -> sqlglot.exp.Expr:
    try:
        statements = [s for s in sqlglot.parse(sql.strip().rstrip(";"), read=dialect) if s is not None]
    except RecursionError as error:
        raise Unsupported(NESTED_TOO_DEEPLY) from error
    if len(statements) != 1:
        raise Unsupported("exactly one SQL statement expected")
    return statements[0]


def _rows_json(rows: list[tuple[Any, ...]]) -> list[list[Any]]:
    return [[v.isoformat() if hasattr(v, "isoformat") else v for v in row] for row in rows]


@dataclass
class _Confirmation:
    differ: bool
    results: dict[str, list[list[Any]]]


def _confirm(
    sql_a: str,
    sql_b: str,
    database: Counterexample,
    validator: CounterexampleValidator,
    semantics: str,
    ordered: bool,
) -> _Confirmation:
    try:
        rows_a, rows_b = validator.execute([sql_a, sql_b], database)
    except RecursionError as error:
        raise ValidationFailed(NESTED_TOO_DEEPLY) from error
    return _Confirmation(
        rows_differ(rows_a, rows_b, semantics, ordered=ordered),
        {"a": _rows_json(rows_a), "b": _rows_json(rows_b)},
    )


def check_equivalence(
    sql_a: str,
    sql_b: str,
    *,
    schema: Schema,
    bound: int = 5,
    semantics: str = "bag",
    dialect: str = "clickhouse",
    timeout_s: float = 20.0,
    validator: CounterexampleValidator | None = None,
    counterexample_store: CounterexampleStore | None = None,
) -> EquivalenceResult:
    """Bounded equivalence of two queries over `schema` (see the package docstring)."""
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}")
    started = time.monotonic()
    rules = dialect_named(dialect)
    validator = validator or default_validator(rules.name)

    def finish(result: EquivalenceResult) -> EquivalenceResult:
        result.seconds = round(time.monotonic() - started, 4)
        return result

    if rules.name == "clickhouse":
        # The same guard as every other ClickHouse path: nothing it refuses is encoded or executed.
        try:
            check_read_only(sql_a)
            check_read_only(sql_b)
        except QueryRejected as error:
            return finish(EquivalenceResult(UNSUPPORTED, 0, semantics, f"refused by the SQL guard: {error}"))
    try:
        tree_a, tree_b = _parse(sql_a, rules.name), _parse(sql_b, rules.name)
    except (ParseError, TokenError) as error:
        return finish(
            EquivalenceResult(UNSUPPORTED, 0, semantics, f"unsupported: SQL does not parse ({error})")
        )
    except Unsupported as error:
        return finish(EquivalenceResult(UNSUPPORTED, 0, semantics, f"unsupported: {error.construct}"))
    # List semantics compares row order only when both queries fix it.
    ordered = tree_a.args.get("order") is not None and tree_b.args.get("order") is not None

    if counterexample_store is not None:
        for database in counterexample_store.counterexamples(sql_a, rules.name):
            try:
                confirmation = _confirm(sql_a, sql_b, database, validator, semantics, ordered)
            except ValidationFailed:
                continue
            if confirmation.differ:
                return finish(
                    EquivalenceResult(
                        NOT_EQUIVALENT, 0, semantics, REUSED_REASON,
                        database.to_dict(), True, None, True, confirmation.results,
                    )
                )  # fmt: skip

    literals = _string_literals(tree_a, tree_b)
    spurious: list[dict[str, Any]] = []
    unverifiable = ""
    for k in range(1, bound + 1):
        remaining = timeout_s - (time.monotonic() - started)
        if remaining <= 0:
            return finish(
                EquivalenceResult(UNKNOWN, k - 1, semantics, f"timeout before bound {k}", spurious=spurious)
            )
        encoder = Encoder(schema, rules, k, deadline=started + timeout_s, literals=literals)
        try:
            result_a, result_b = encoder.query(tree_a), encoder.query(tree_b)
            differ = results_differ(result_a, result_b, semantics, encoder.check_deadline)
        except Unsupported as error:
            return finish(EquivalenceResult(UNSUPPORTED, 0, semantics, f"unsupported: {error.construct}"))
        except UnresolvedColumn as error:
            return finish(
                EquivalenceResult(UNSUPPORTED, 0, semantics, f"unsupported: unknown column {error}")
            )
        except RecursionError:
            return finish(EquivalenceResult(UNSUPPORTED, 0, semantics, f"unsupported: {NESTED_TOO_DEEPLY}"))
        except EncodingTooLarge as error:
            reason = f"encoding too large at bound {k}: {error}"
            return finish(EquivalenceResult(UNKNOWN, k - 1, semantics, reason, spurious=spurious))
        except (ValueError, TypeError, IndexError, KeyError, AttributeError, z3.Z3Exception) as error:
            # An encoder defect must never turn into a verdict.
            reason = f"encoder error: {type(error).__name__}: {error}"[:300]
            return finish(EquivalenceResult(UNKNOWN, 0, semantics, reason, spurious=spurious))
        solver = z3.Solver()
        solver.set(timeout=max(1, int(remaining * 1000)))
        solver.add(*encoder.constraints)
        solver.add(differ)
        for _attempt in range(SPURIOUS_RETRIES + 1):
            outcome = solver.check()
            if outcome == z3.unsat:
                break
            if outcome == z3.unknown:
                reason = f"solver gave up at bound {k} ({solver.reason_unknown()})"
                return finish(EquivalenceResult(UNKNOWN, k - 1, semantics, reason, spurious=spurious))
            model = solver.model()
            database = extract_counterexample(encoder, model)
            try:
                confirmation = _confirm(sql_a, sql_b, database, validator, semantics, ordered)
            except ValidationFailed as error:
                unverifiable = str(error)
                break
            if confirmation.differ:
                if counterexample_store is not None:
                    counterexample_store.add(sql_a, rules.name, database)
                return finish(
                    EquivalenceResult(
                        NOT_EQUIVALENT, k, semantics, f"counterexample with at most {k} rows per table",
                        database.to_dict(), True, k, False, confirmation.results, spurious,
                    )
                )  # fmt: skip
            spurious.append({"k": k, "counterexample": database.to_dict(), "results": confirmation.results})
            solver.add(blocking_clause(encoder, model))
        else:
            continue
        if unverifiable:
            break
    if unverifiable:
        return finish(
            EquivalenceResult(
                UNKNOWN, 0, semantics, f"counterexample not verifiable: {unverifiable}", spurious=spurious
            )
        )
    if spurious:
        reason = f"{len(spurious)} spurious counterexample(s): the encoding and the engine disagree"
        return finish(EquivalenceResult(UNKNOWN, 0, semantics, reason, spurious=spurious))
    return finish(
        EquivalenceResult(
            EQUIVALENT, bound, semantics, f"no differing database with at most {bound} rows per table"
        )
    )


def _string_literals(*trees: exp.Expr) -> list[str]:
    return [node.this for tree in trees for node in tree.find_all(exp.Literal) if node.is_string]
