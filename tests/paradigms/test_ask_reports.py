"""`manage.py ask --json` reports the paradigm library under `paradigms` (issue 10 items 5 and 8), for the
question and for every reverse query: a miss then the new id learned; asked again, the hit (id,
distance) — for the question with its adaptation — the trace's events."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from backend.domain.market.store import MarketStore
from paradigms.models import Kind, Paradigm

pytestmark = pytest.mark.django_db

QUESTION = "总市值超过1000亿的股票"


def _ask_json(capsys: pytest.CaptureFixture[str], question: str) -> dict[str, object]:
    call_command("ask", question, "--json")
    answer: dict[str, object] = json.loads(capsys.readouterr().out)
    return answer


def _trace_paradigms(answer: dict[str, object]) -> list[tuple[object, object]]:
    trace = answer["trace"]
    assert isinstance(trace, list)
    return [(event["outcome"], event["paradigm_id"]) for event in trace if event["type"] == "paradigm"]


def test_ask_reports_miss_learned_then_hit_adapted(
    demo_store: MarketStore, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _ask_json(capsys, QUESTION)
    assert first["status"] == "verified"
    [paradigm] = Paradigm.objects.filter(kind=Kind.QUESTION)
    learned = str(paradigm.pk)
    reported = first["paradigms"]
    assert isinstance(reported, list)
    on_question = [item for item in reported if item["query"] == "question"]
    assert on_question == [
        {
            "query": "question",
            "round": 0,
            "outcome": "miss",
            "paradigm_id": None,
            "distance": None,
            "detail": "",
        },
        {
            "query": "question",
            "round": 0,
            "outcome": "learned",
            "paradigm_id": learned,
            "distance": None,
            "detail": "",
        },
    ]
    # Every reverse query is reported too: a miss, then the reverse paradigm learned from it.
    reverse_ids = [check["id"] for check in first["checks"] if check["stage"] == "reverse"]  # type: ignore[index]
    assert reverse_ids
    for check_id in reverse_ids:
        outcomes = [item["outcome"] for item in reported if item["query"] == check_id]
        assert outcomes == ["miss", "learned"], check_id
    reverse_learned = {
        item["paradigm_id"]
        for item in reported
        if item["query"] != "question" and item["outcome"] == "learned"
    }
    assert reverse_learned == {
        str(pk) for pk in Paradigm.objects.filter(kind=Kind.REVERSE).values_list("pk", flat=True)
    }
    assert len(_trace_paradigms(first)) == len(reported)

    second = _ask_json(capsys, QUESTION)
    assert second["status"] == "verified" and second["sql"] == first["sql"]
    reported = second["paradigms"]
    assert isinstance(reported, list)
    assert [
        (item["outcome"], item["paradigm_id"], item["distance"])
        for item in reported
        if item["query"] == "question"
    ] == [("hit", learned, 0.0), ("adapted", learned, 0.0)]
    assert reported[1]["detail"] == "filled"
    for check_id in reverse_ids:
        outcomes = [(item["outcome"], item["distance"]) for item in reported if item["query"] == check_id]
        assert outcomes == [("hit", 0.0)], check_id  # recorded: the rule's SQL ran
    assert len(_trace_paradigms(second)) == len(reported)
    assert Paradigm.objects.filter(kind=Kind.QUESTION).count() == 1  # the same QST is not stored twice
    assert Paradigm.objects.filter(kind=Kind.REVERSE).count() == len(reverse_ids)
