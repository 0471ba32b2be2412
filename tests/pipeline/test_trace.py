"""The trace: one closed event vocabulary, JSON dictionaries numbered in order, emitted once each."""

from __future__ import annotations

import json
import threading

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.ports import MarketReader, NoParadigmLibrary
from backend.domain.pipeline.trace import (
    EVENT_TYPES,
    CheckVerdict,
    RecordedEvent,
    RunFinished,
    RunStarted,
    StepFinished,
    StepStarted,
    Trace,
)


class ListSink:
    def __init__(self) -> None:
        self.events: list[RecordedEvent] = []

    def emit(self, event: RecordedEvent) -> None:
        self.events.append(event)


def _verdict(number: int) -> CheckVerdict:
    return CheckVerdict(
        round=0,
        check_id=f"c{number}",
        stage="reverse",
        kind="filter_violation",
        text="有没有返回的股票市盈率不低于15？",
        sql="SELECT 1",
        criterion="0 rows",
        verdict="pass",
        attribution=None,
        reason="0 rows",
        ms=1.5,
    )


def test_events_serialise_to_json_with_type_and_seq() -> None:
    sink = ListSink()
    trace = Trace(sink)
    trace.record(RunStarted(question="q", lang="zh", engine="builtin", candidate_sql=None, max_rounds=3))
    trace.record(StepStarted(step="generate", round=0))
    trace.record(StepFinished(step="generate", round=0, outcome="ok", ms=2.0, summary="sql0", sql="SELECT 1"))
    trace.record(_verdict(1))
    trace.record(RunFinished(status="unverified", round=None, warnings=("w",), ms=9.0))
    dumped = json.loads(json.dumps(trace.to_list(), ensure_ascii=False))
    assert [item["seq"] for item in dumped] == [1, 2, 3, 4, 5]
    assert [item["type"] for item in dumped] == [
        "run_started",
        "step_started",
        "step_finished",
        "check_verdict",
        "run_finished",
    ]
    assert dumped[3]["verdict"] == "pass" and dumped[3]["text"].startswith("有没有")
    assert dumped[4]["warnings"] == ["w"]
    assert [event.seq for event in sink.events] == [1, 2, 3, 4, 5]


def test_event_types_are_a_closed_set_with_distinct_names() -> None:
    names = [event_type.type for event_type in EVENT_TYPES]
    assert len(set(names)) == len(names) == 8


def test_concurrent_records_are_numbered_and_emitted_in_order() -> None:
    sink = ListSink()
    trace = Trace(sink)
    threads = [
        threading.Thread(target=lambda n=n: [trace.record(_verdict(n * 100 + k)) for k in range(50)])
        for n in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [event.seq for event in sink.events] == list(range(1, 401))
    assert [event.seq for event in trace.events] == list(range(1, 401))


def test_an_event_refuses_a_value_that_is_not_json() -> None:
    event = StepFinished(step="probe", round=0, outcome="ok", ms=1.0, summary=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Trace().record(event)


def test_the_store_is_a_market_reader_and_no_library_finds_nothing(demo_store: MarketStore) -> None:
    reader: MarketReader = demo_store
    assert reader.query("SELECT 1 AS one").rows == [(1,)]
    assert NoParadigmLibrary().lookup("q", {"label": "select"}) is None
    assert NoParadigmLibrary().learn("q", {"label": "select"}, "SELECT 1") is None
