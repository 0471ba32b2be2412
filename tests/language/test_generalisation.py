"""New phrasings per kind (dates, verbs of movement, benchmarks, distances from a stock's own level):
each answered the same as its hand-written reference SQL on the demo store, or refused naming the
words (fixtures/generalisation.yaml)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.language_bench.compare import ResultTable, compare_results
from backend.domain.market.store import MarketStore

FIXTURES: dict[str, list[dict[str, Any]]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "generalisation.yaml").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", FIXTURES["answered"], ids=[case["id"] for case in FIXTURES["answered"]])
def test_answered_as_the_reference(
    case: dict[str, Any], language_context: LanguageContext, demo_store: MarketStore
) -> None:
    translation = translate_question(case["question"], language_context)
    assert translation.status == "ok", translation.message
    assert translation.sql is not None
    reference = demo_store.query(case["reference_sql"])
    answer = demo_store.query(translation.sql)
    assert reference.rows, "an empty reference matches an empty answer whatever the question"
    comparison = compare_results(
        ResultTable(reference.columns, reference.rows),
        ResultTable(answer.columns, answer.rows),
        order_matters=bool(case.get("order_matters", False)),
    )
    assert comparison.match, (
        f"{comparison.reason}; only in the reference {comparison.only_in_gold}, "
        f"only in the answer {comparison.only_in_pred}\n{translation.sql}"
    )


@pytest.mark.parametrize("case", FIXTURES["refused"], ids=[case["question"] for case in FIXTURES["refused"]])
def test_refused_naming_the_words(case: dict[str, Any], language_context: LanguageContext) -> None:
    translation = translate_question(case["question"], language_context)
    assert translation.status == "not_understood", translation.sql
    for word in case["words"]:
        assert word in translation.message, translation.message
