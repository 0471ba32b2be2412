"""What the pipeline needs from the world, as protocols: market data, a generator, a paradigm library
and a place to send its events. The Django shell (backend/apps/screening/services.py) builds them;
tests pass small fakes.

The generator port is `backend.domain.language.translation.Generator` (the translator contract, widened
with evidence and guidance); it is re-exported here so that the pipeline's needs read in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from backend.domain.language.translation import Generator, LlmCall, OnFailure

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
    "RecordedCheck",
    "ResultRows",
    "ReverseRun",
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
    """A stored, verified paradigm near the question (tree edit distance within τ), or near an LLM
    reverse check's tree (then always adapted, by slot filling; `spec` holds the stored check's
    criterion, point and the size of the set it was written in).

    `adapted`: `sql` is the paradigm's SQL adapted to this question (slots filled, or rewritten by the
    adapter role); it replaces sql0 and is validated like any generated SQL. Otherwise `sql` is the
    paradigm's own SQL, given to the generator as an example.

    `adapter_failure`: the adapter role failed on this paradigm (its calls are in `llm_calls`), and
    `adapter_on_failure` (LLM_PARADIGM_ADAPTER_ON_FAILURE) says what that leaves: `builtin` — the
    generator answers, with a warning; `fail` — the answer is an error naming the adapter."""

    paradigm_id: str
    question: str
    sql: str
    distance: float
    adapted: bool = False
    how: str = ""  # how it was adapted: "filled" (slot filling) or "llm" (the adapter role)
    llm_calls: tuple[LlmCall, ...] = ()  # the adapter role's calls
    adapter_failure: str = ""
    adapter_on_failure: OnFailure = "builtin"
    spec: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ReverseRun:
    """A reverse check that ran, for the library's record after the final status.

    `matched`: a rule-written check — the library looks for the stored paradigm that holds it (its
    template fills to exactly this SQL) and counts a use of it, or a miss. An LLM-written check is not
    matched: its lookup happened before the writer was asked. `learn`: store it when no paradigm holds
    it (it passed in the answer of a verified or corrected run). `spec`: an LLM check's criterion,
    point and set size, stored with it."""

    text: str
    tree: QstTree
    sql: str
    matched: bool = True
    learn: bool = False
    spec: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class RecordedCheck:
    """What the record did for one ReverseRun: the paradigm holding it (id, distance), and the id
    it was stored under when it was learned."""

    holder: tuple[str, float] | None = None
    learned: str | None = None


class ParadigmLibrary(Protocol):
    def structure(self, question: str) -> QstTree | None:
        """The question's QST as the library matches it (None: the library cannot read it), computed
        before any generation so that a hit can stand in for the generator."""
        ...

    def lookup(self, question: str, qst: QstTree) -> ParadigmHit | None: ...

    def learn(self, question: str, qst: QstTree, sql: str, *, status: str = "verified") -> str | None:
        """Store a validated (question, QST, SQL) triple — `status` verified or corrected; its new id,
        or None when it was not stored (already there, or refused)."""
        ...

    def lookup_reverse(self, trees: Sequence[QstTree]) -> list[ParadigmHit | None]:
        """For each tree of a reverse check to be written (validate/reverse/llm_description.py), in
        order: the stored reverse check nearest it whose SQL template fills from it and passes the guard
        (an adapted hit), or None. Nothing is counted here: `record_reverse` counts. Reverse paradigms
        never match questions, nor questions reverse ones."""
        ...

    def record_reverse(
        self, runs: Sequence[ReverseRun], *, used: Sequence[str], misses: int, status: str
    ) -> list[RecordedCheck]:
        """The library's record of an answer's reverse checks, after its final status: for each run,
        in order, the paradigm holding it (a use) or none (a miss), and its new id when learned;
        `used` — paradigms whose SQL LLM checks ran (a use each), `misses` — LLM lookups that found
        nothing. `status` is the run's final status (learning needs verified or corrected)."""
        ...


class NoParadigmLibrary:
    """The default when no library is wired: nothing is ever found, nothing is stored."""

    def structure(self, question: str) -> QstTree | None:
        return None

    def lookup(self, question: str, qst: QstTree) -> ParadigmHit | None:
        return None

    def learn(self, question: str, qst: QstTree, sql: str, *, status: str = "verified") -> str | None:
        return None

    def lookup_reverse(self, trees: Sequence[QstTree]) -> list[ParadigmHit | None]:
        return [None for _ in trees]

    def record_reverse(
        self, runs: Sequence[ReverseRun], *, used: Sequence[str], misses: int, status: str
    ) -> list[RecordedCheck]:
        return [RecordedCheck() for _ in runs]


class EventSink(Protocol):
    """Receives every trace event once, in `seq` order, as it happens (trace.Trace.record calls it)."""

    def emit(self, event: RecordedEvent) -> None: ...
