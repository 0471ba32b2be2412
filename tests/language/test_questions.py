"""Fixture questions → expected QST fragments and SQL properties; every compiled SQL runs on the demo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.market.guard import check_read_only
from backend.domain.market.store import MarketStore

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "questions.yaml").read_text()
)


def _labels(node: dict[str, Any]) -> list[str]:
    found = [node["label"]]
    for child in node.get("children", []):
        found.extend(_labels(child))
    return found


def _values(node: dict[str, Any]) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    if "value" in node:
        found.setdefault(node["label"], []).append(node["value"])
    for child in node.get("children", []):
        for label, values in _values(child).items():
            found.setdefault(label, []).extend(values)
    return found


@pytest.mark.parametrize("case", CASES, ids=[case["question"][:40] for case in CASES])
def test_fixture_question(
    case: dict[str, Any], language_context: LanguageContext, demo_store: MarketStore
) -> None:
    translation = translate_question(case["question"], language_context)
    if case.get("not_understood"):
        assert translation.status == "not_understood"
        assert translation.sql is None
        assert case.get("message_has", "") in translation.message
        return
    assert translation.status == "ok", translation.message
    assert translation.qst is not None and translation.sql is not None
    labels = _labels(translation.qst)
    for label in case.get("labels", []):
        assert label in labels, f"{label} missing from {labels}"
    values = _values(translation.qst)
    for label, value in case.get("values", {}).items():
        assert value in values.get(label, []), f"{label}={value!r} missing from {values}"
    flat_sql = " ".join(translation.sql.split()).replace("( ", "(").replace(" )", ")")
    for fragment in case.get("sql_has", []):
        assert fragment in flat_sql, f"{fragment!r} not in {flat_sql}"
    for fragment in case.get("sql_lacks", []):  # what another reading would have written
        assert fragment not in flat_sql, f"{fragment!r} in {flat_sql}"
    check_read_only(translation.sql)
    demo_store.query(translation.sql)  # runs on the real engine without error
