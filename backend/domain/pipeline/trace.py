"""The pipeline's one event vocabulary, and the recorder that numbers and emits the events.

Everything a question goes through is one of the events below, in the order it happened. The web
platform persists and streams exactly these dictionaries (design §1 "Trace"); the `ask` answer carries
them as its `trace`. `Trace.record` is the only place that numbers an event and hands it to the sink,
so `seq` is strictly increasing and nothing reaches a sink unnumbered — also when reverse checks
finish on several threads at once.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, ClassVar, Literal, get_args

if TYPE_CHECKING:
    from backend.domain.pipeline.ports import EventSink

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]

StepName = Literal["probe", "generate", "execute", "checklist", "reverse_checks", "correct", "paradigm"]
STEP_NAMES: tuple[StepName, ...] = (
    "probe",
    "generate",
    "execute",
    "checklist",
    "reverse_checks",
    "correct",
    "paradigm",
)
StepOutcome = Literal["ok", "failed", "skipped"]
STEP_OUTCOMES: tuple[StepOutcome, ...] = get_args(StepOutcome)
CheckVerdictValue = Literal["pass", "fail", "undecidable"]
CheckStage = Literal["checklist", "reverse"]
ParadigmOutcome = Literal["hit", "adapted", "miss", "learned"]
PARADIGM_OUTCOMES: tuple[ParadigmOutcome, ...] = get_args(ParadigmOutcome)
FinalStatus = Literal["verified", "corrected", "unverified", "not_understood", "error"]
FINAL_STATUSES: tuple[FinalStatus, ...] = ("verified", "corrected", "unverified", "not_understood", "error")


def _json(value: object) -> JsonValue:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, tuple | list):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json(item) for key, item in value.items()}
    raise TypeError(f"a trace event holds only JSON values, not {type(value).__name__}")


@dataclass(frozen=True)
class _Event:
    type: ClassVar[str]

    def payload(self) -> dict[str, JsonValue]:
        return {field.name: _json(getattr(self, field.name)) for field in fields(self)}


@dataclass(frozen=True)
class RunStarted(_Event):
    type: ClassVar[str] = "run_started"
    question: str
    lang: str  # zh | en: the language of every readable text in this run
    engine: str
    candidate_sql: str | None  # `validate --sql`: an external candidate replaces sql0
    max_rounds: int


@dataclass(frozen=True)
class StepStarted(_Event):
    type: ClassVar[str] = "step_started"
    step: StepName
    round: int  # 0 for the first candidate, n for correction round n


@dataclass(frozen=True)
class StepFinished(_Event):
    type: ClassVar[str] = "step_finished"
    step: StepName
    round: int
    outcome: StepOutcome
    ms: float
    summary: str
    sql: str | None = None


@dataclass(frozen=True)
class ProbeFinding(_Event):
    """What one probe found in the data for a mention of the question (evidence for the generator)."""

    type: ClassVar[str] = "probe_finding"
    probe_round: int
    mention: str
    kind: str
    value: str
    sql: str
    ms: float


@dataclass(frozen=True)
class CheckVerdict(_Event):
    type: ClassVar[str] = "check_verdict"
    round: int
    check_id: str
    stage: CheckStage
    kind: str
    text: str  # readable, in the question's language
    sql: str | None  # the reverse SQL (None for a checklist check, which reads the SQL tree)
    criterion: str
    verdict: CheckVerdictValue
    attribution: str | None  # set on a failure only
    reason: str
    ms: float


@dataclass(frozen=True)
class CorrectionRound(_Event):
    type: ClassVar[str] = "correction_round"
    round: int
    guidance: str
    failed_checks: tuple[str, ...]
    sql: str | None  # the regenerated candidate; None when the generator had nothing else


@dataclass(frozen=True)
class ParadigmEvent(_Event):
    """The library on the question or on one reverse query: `hit` (nearest paradigm, id and
    distance), `adapted` (its SQL adapted stands for sql0, or for the reverse query's SQL; detail says
    how), `miss`, `learned` (new id). `query` is `question` or the reverse check's id, `round` the
    candidate's round the reverse check belongs to (0 for the question)."""

    type: ClassVar[str] = "paradigm"
    outcome: ParadigmOutcome
    paradigm_id: str | None
    distance: float | None
    detail: str
    query: str = "question"
    round: int = 0


@dataclass(frozen=True)
class RunFinished(_Event):
    type: ClassVar[str] = "run_finished"
    status: FinalStatus
    round: int | None  # the correction round that was verified (status `corrected`)
    warnings: tuple[str, ...]
    ms: float


Event = (
    RunStarted
    | StepStarted
    | StepFinished
    | ProbeFinding
    | CheckVerdict
    | CorrectionRound
    | ParadigmEvent
    | RunFinished
)
EVENT_TYPES: tuple[type[_Event], ...] = (
    RunStarted,
    StepStarted,
    StepFinished,
    ProbeFinding,
    CheckVerdict,
    CorrectionRound,
    ParadigmEvent,
    RunFinished,
)


@dataclass(frozen=True)
class RecordedEvent:
    """An event as stored and streamed: its number in the run, when, and what."""

    seq: int
    at_ms: float  # since the run started
    event: Event

    def to_dict(self) -> dict[str, JsonValue]:
        return {"seq": self.seq, "at_ms": self.at_ms, "type": self.event.type, **self.event.payload()}


class Trace:
    """Records one run's events in order and emits each to the sink as it happens."""

    def __init__(self, sink: EventSink | None = None) -> None:
        self._sink = sink
        self._lock = threading.Lock()
        self._events: list[RecordedEvent] = []
        self._started = time.perf_counter()

    def record(self, event: Event) -> RecordedEvent:
        # Numbering and emitting under one lock: a sink sees the events in `seq` order.
        with self._lock:
            recorded = RecordedEvent(
                seq=len(self._events) + 1,
                at_ms=round((time.perf_counter() - self._started) * 1000, 3),
                event=event,
            )
            recorded.to_dict()  # refuse a non-JSON value here, not later in a sink or a stream
            self._events.append(recorded)
            if self._sink is not None:
                self._sink.emit(recorded)
        return recorded

    @property
    def events(self) -> list[RecordedEvent]:
        with self._lock:
            return list(self._events)

    def to_list(self) -> list[dict[str, JsonValue]]:
        return [event.to_dict() for event in self.events]
