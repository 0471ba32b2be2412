"""The concept catalogue (issue 8 item 2): every entry loads with words in both languages and a
valid QST building block; a supported entry's examples are answered with that block in their QST and
SQL that runs on the demo; a planned entry's examples are refused, never answered half-read."""

from __future__ import annotations

from typing import Any

import pytest

from backend.domain.language.api import translate_question
from backend.domain.language.catalogue import FAMILIES, Concept, default_catalogue
from backend.domain.language.context import LanguageContext
from backend.domain.language.semantic import default_model
from backend.domain.market.store import MarketStore

CATALOGUE = default_catalogue()
CATALOGUE_METRICS = default_model().metrics
EXAMPLES = [(concept, question) for concept in CATALOGUE.concepts for question in concept.examples]


def _labels(node: dict[str, Any]) -> set[str]:
    found = {str(node["label"])}
    for child in node.get("children", []):
        found |= _labels(child)
    return found


def _block(concept: Concept) -> set[str]:
    """What an example must contain: the block's own label and the attributes it reads (operators,
    times and literals vary with the wording; 跌幅 is read as the signed pct_chg)."""
    definition = concept.definition
    attributes = {c["label"] for c in definition.get("children", []) if c["label"].startswith("attribute:")}
    labels = {str(definition["label"]), *attributes}
    metric = CATALOGUE_METRICS.get(str(definition["label"]).removeprefix("attribute:"))
    if metric is not None and metric.negated:
        labels = {f"attribute:{metric.column}"}
    return labels


def test_every_family_has_concepts_and_every_concept_words_in_both_languages() -> None:
    assert {concept.family for concept in CATALOGUE.concepts} == set(FAMILIES)
    for concept in CATALOGUE.concepts:
        assert concept.words_zh and concept.words_en and concept.examples, concept.key


def test_the_catalogue_serialises_for_the_api() -> None:
    served = CATALOGUE.as_dicts()
    assert len(served) == len(CATALOGUE.concepts)
    below_book = next(item for item in served if item["key"] == "below_book")
    assert below_book["words"]["zh"][0] == "破净" and below_book["units"] == "倍"
    assert below_book["definition"]["label"] == "condition:compare"


@pytest.mark.parametrize(("concept", "question"), EXAMPLES, ids=[q for _c, q in EXAMPLES])
def test_examples(
    concept: Concept, question: str, language_context: LanguageContext, demo_store: MarketStore
) -> None:
    translation = translate_question(question, language_context)
    if concept.status == "planned":
        assert translation.status == "not_understood", translation.sql
        return
    assert translation.status == "ok", translation.message
    assert translation.qst is not None and translation.sql is not None
    assert _block(concept) <= _labels(translation.qst), translation.qst
    demo_store.query(translation.sql)
