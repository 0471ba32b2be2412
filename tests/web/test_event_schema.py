"""The pipeline's events in the OpenAPI schema: derived from the event classes, matching what a real
answer carries, and the committed schema (from which the TypeScript types are generated) up to date."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from backend.apps.screening.event_serializers import PIPELINE_EVENT_SERIALIZERS, field_for
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.trace import EVENT_TYPES

COMMITTED_SCHEMA = Path(__file__).resolve().parents[2] / "frontend" / "src" / "lib" / "api-schema.yaml"


def test_the_committed_schema_is_what_the_server_generates(tmp_path: Path) -> None:
    generated = tmp_path / "api-schema.yaml"
    call_command("spectacular", "--file", str(generated))
    assert generated.read_text(encoding="utf-8") == COMMITTED_SCHEMA.read_text(encoding="utf-8"), (
        "the API changed: regenerate with `npm --workspace frontend run gen:schema` and `… run gen:api`"
    )


def test_every_event_class_has_its_schema_with_exactly_its_fields() -> None:
    for event_class in EVENT_TYPES:
        serializer = PIPELINE_EVENT_SERIALIZERS[event_class.type]
        own = set(event_class.__dataclass_fields__) - {"type"}
        assert set(serializer().fields) == own | {"seq", "at_ms", "type"}


def test_an_annotation_without_a_json_shape_fails_loudly() -> None:
    with pytest.raises(TypeError, match="no OpenAPI shape"):
        field_for(dict[str, int])


@pytest.mark.django_db
@pytest.mark.filterwarnings("ignore:No directory at:UserWarning")
def test_every_event_of_a_real_answer_is_valid_against_its_schema(demo_store: MarketStore) -> None:
    body = (
        APIClient()
        .post("/api/ask/", {"question": "2025年9月8日收盘价最高的上交所股票"}, format="json")
        .json()
    )

    assert {event["type"] for event in body["trace"]} >= {"run_started", "check_verdict", "run_finished"}
    for event in body["trace"]:
        serializer = PIPELINE_EVENT_SERIALIZERS[event["type"]](data=event)
        assert serializer.is_valid(), (event["type"], serializer.errors)
        assert set(event) == set(serializer.fields), event["type"]
