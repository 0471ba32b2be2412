"""The hand-written mutant set: its shape is validated with the item and field named, and the
benchmark measures it in a section of its own (detection per type, false alarms on the golds)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

from backend.domain.language.context import LanguageContext
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.bench.mutant_set import MutantSetError, load_mutant_set, parse_mutant_set
from backend.domain.pipeline.bench.runner import format_report, measure_mutant_set
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.run import Ports
from backend.domain.pipeline.validate.checklist import default_vocabulary

TINY = Path(__file__).parent / "fixtures" / "mutant_set" / "tiny.yaml"


def _document() -> dict[str, Any]:
    document = yaml.safe_load(TINY.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def test_the_fixture_loads() -> None:
    items = load_mutant_set(TINY)
    assert [entry.item.id for entry in items] == ["tiny-001", "tiny-002"]
    assert [m.error_type for m in items[0].mutants] == ["dropped_filter", "wrong_column", "distinct"]
    assert items[1].mutants[0].note == "1000亿 written as 1000"


def _broken(edit: str) -> dict[str, Any]:
    document = _document()
    first = document["items"][0]
    if edit == "version":
        document["version"] = 2
    elif edit == "extra top-level":
        document["authors"] = ["x"]
    elif edit == "no mutants":
        del first["mutants"]
    elif edit == "empty mutants":
        first["mutants"] = []
    elif edit == "unknown type":
        first["mutants"][1]["type"] = "typo"
    elif edit == "mutant lacks sql":
        del first["mutants"][0]["sql"]
    elif edit == "mutant extra field":
        first["mutants"][0]["why"] = "x"
    elif edit == "item lacks gold":
        del first["gold_sql"]
    elif edit == "bad lang":
        first["lang"] = "fr"
    return document


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("version", "version must be 1"),
        ("extra top-level", "unknown top-level fields authors"),
        ("no mutants", "item tiny-001: mutants must be a non-empty list"),
        ("empty mutants", "item tiny-001: mutants must be a non-empty list"),
        ("unknown type", "item tiny-001 mutant #2: type must be one of"),
        ("mutant lacks sql", "item tiny-001 mutant #1 lacks sql"),
        ("mutant extra field", "item tiny-001 mutant #1 has unknown fields why"),
        ("item lacks gold", "item tiny-001 lacks gold_sql"),
        ("bad lang", "item tiny-001: lang must be one of"),
    ],
)
def test_a_malformed_set_names_the_item_and_the_field(edit: str, message: str) -> None:
    with pytest.raises(MutantSetError, match=message):
        parse_mutant_set(_broken(edit))


def test_the_set_is_measured_per_type_with_false_alarms(demo_store: MarketStore) -> None:
    ports = Ports(
        demo_store, BuiltinGenerator(LanguageContext.from_store(demo_store)), default_vocabulary(), "market"
    )
    report = measure_mutant_set(ports, demo_store, load_mutant_set(TINY), str(TINY), lambda line: None)
    assert (report["mutants_written"], report["mutants"]) == (5, 3)
    assert {(entry["item"], entry["why"]) for entry in report["left_out"]} == {
        ("tiny-001", "gives the gold's result"),
        ("tiny-002", "does not run"),
    }
    detection = report["detection"]
    assert set(detection) == {"dropped_filter", "wrong_column", "unit", "all"}
    assert detection["all"]["total"] == 3 and detection["all"]["not_verified"] == 3
    assert report["gold"]["total"] == 2 and report["gold"]["failing"] == 0
    text = format_report({"data": {}, "mutant_set": report})
    assert "== hand-written mutant set" in text and "unit" in text


def test_the_command_measures_only_the_set(
    demo_store: MarketStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench.json"
    call_command("validation_bench", "--mutant-set", str(TINY), "--mutant-set-only", "--json-out", str(out))
    assert "== hand-written mutant set" in capsys.readouterr().out
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) == {"data", "mutant_set"} and report["mutant_set"]["mutants"] == 3
