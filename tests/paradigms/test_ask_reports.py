"""`manage.py ask --json` reports the paradigm library under `paradigms` (issue 10 item 8): a miss then
the new id learned; asked again, the hit (id, distance) and its adaptation — the trace's events."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from backend.domain.market.store import MarketStore
from paradigms.models import Paradigm

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
    [paradigm] = Paradigm.objects.all()
    learned = str(paradigm.pk)
    assert first["paradigms"] == [
        {"query": "question", "outcome": "miss", "paradigm_id": None, "distance": None, "detail": ""},
        {"query": "question", "outcome": "learned", "paradigm_id": learned, "distance": None, "detail": ""},
    ]
    assert _trace_paradigms(first) == [("miss", None), ("learned", learned)]

    second = _ask_json(capsys, QUESTION)
    assert second["status"] == "verified" and second["sql"] == first["sql"]
    reported = second["paradigms"]
    assert isinstance(reported, list)
    assert [(item["outcome"], item["paradigm_id"], item["distance"]) for item in reported] == [
        ("hit", learned, 0.0),
        ("adapted", learned, 0.0),
    ]
    assert reported[1]["detail"] == "filled"
    assert _trace_paradigms(second) == [("hit", learned), ("adapted", learned)]
    assert Paradigm.objects.count() == 1  # the same QST is not stored twice
