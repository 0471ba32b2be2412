"""What the pipeline needs from the world, as protocols: market data, a generator, a paradigm library
and a place to send its events. The Django shell (backend/apps/screening/services.py) builds them;
tests pass small fakes.

The generator port is `backend.domain.language.translation.Generator` (the translator contract, widened
with evidence and guidance); it is re-exported here so that the pipeline's needs read in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from backend.domain.language.translation import Generator

if TYPE_CHECKING:
    from backend.domain.pipeline.trace import RecordedEvent

__all__ = [
    "EventSink",
    "Generator",
    "MarketReader",
    "NoParadigmLibrary",
    "ParadigmHit",
    "ParadigmLibrary",
    "QstTree",
    "ResultRows",
]

QstTree = Mapping[str, object]


class ResultRows(Protocol):
    """The rows of one query (backend.domain.market.store.QueryResult satisfies it)."""

    @property
    def columns(self) -> list[str]: ...

    @property
    def column_types(self) -> list[str]: ...

    @property
    def rows(self) -> Sequence[Sequence[object]]: ...


class MarketReader(Protocol):
    """Guarded, read-only SQL (MarketStore satisfies it). Every SQL the pipeline runs — the candidate,
    probes, reverse checks — goes through `query`, hence through the store's guard and limits."""

    def query(self, sql: str) -> ResultRows: ...


@dataclass(frozen=True)
class ParadigmHit:
    """A stored, verified paradigm near the question (tree edit distance within τ)."""

    paradigm_id: str
    question: str
    sql: str
    distance: float


class ParadigmLibrary(Protocol):
    def lookup(self, question: str, qst: QstTree) -> ParadigmHit | None: ...

    def learn(self, question: str, qst: QstTree, sql: str) -> str | None:
        """Store a verified (question, QST, SQL) triple; its id, or None when it was not stored."""
        ...


class NoParadigmLibrary:
    """The default when no library is wired: nothing is ever found, nothing is stored."""

    def lookup(self, question: str, qst: QstTree) -> ParadigmHit | None:
        return None

    def learn(self, question: str, qst: QstTree, sql: str) -> str | None:
        return None


class EventSink(Protocol):
    """Receives every trace event once, in `seq` order, as it happens (trace.Trace.record calls it)."""

    def emit(self, event: RecordedEvent) -> None: ...
