"""EX-SpotIt: the bounded-equivalence verdict of predicted versus gold SQL, beside EX.

The equivalence package is optional for the benchmark: when it cannot be imported the runner still
measures EX and says why the SpotIt column is missing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from backend.domain.market.store import MarketStore

VERDICTS: tuple[str, ...] = ("equivalent", "not_equivalent", "unsupported", "unknown")


@dataclass(frozen=True)
class SpotItVerdict:
    verdict: str
    reason: str = ""
    seconds: float = 0.0


# (predicted SQL, gold SQL, whether row order matters) -> verdict
EquivalenceCheck = Callable[[str, str, bool], SpotItVerdict]


def spotit_checker(
    store: MarketStore, *, bound: int = 3, timeout_s: float = 20.0
) -> tuple[EquivalenceCheck | None, str]:
    """A checker (pred_sql, gold_sql, ordered) -> verdict, or None and the reason it is unavailable.

    Counterexamples are re-executed through the store's guarded queries, in a scratch database of its
    embedded server: chdb allows one data directory per process, so the checker must not open a second.
    """
    try:
        equivalence = importlib.import_module("backend.domain.equivalence")
    except ImportError as error:
        return None, f"SpotIt unavailable: {error}"
    schema = equivalence.Schema.market()
    validator = equivalence.ChdbValidator(store) if store.config.is_embedded else None

    def check(pred_sql: str, gold_sql: str, ordered: bool) -> SpotItVerdict:
        try:
            result = equivalence.check_equivalence(
                pred_sql,
                gold_sql,
                schema=schema,
                bound=bound,
                semantics="list" if ordered else "bag",
                timeout_s=timeout_s,
                validator=validator,
            )
        except Exception as error:  # a checker failure is an "unknown" verdict, never a crash of the run
            return SpotItVerdict("unknown", f"{type(error).__name__}: {error}")
        return SpotItVerdict(str(result.verdict), str(result.reason), round(float(result.seconds), 3))

    return check, ""
