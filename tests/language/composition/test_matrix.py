"""Composition matrix (issue 8 item 3): every generated question, in both languages, gives the same
result on the demo store as its reference SQL, built independently of the compiler (reference.py).
"""

from __future__ import annotations

from collections import Counter

import pytest

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.language_bench.compare import ResultTable, compare_results
from backend.domain.market.store import MarketStore
from tests.language.composition.matrix import FAMILIES, Case, cases

CASES = cases()


def test_every_family_asks_in_both_languages() -> None:
    for family in FAMILIES:
        languages = Counter(case.lang for case in family())
        assert languages["zh"] == languages["en"] > 0, family.__name__
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_composed_question_matches_reference(
    case: Case, language_context: LanguageContext, demo_store: MarketStore
) -> None:
    translation = translate_question(case.question, language_context)
    assert translation.status == "ok", f"refused: {translation.message}"
    assert translation.sql is not None
    gold = demo_store.query(case.reference_sql)
    predicted = demo_store.query(translation.sql)
    comparison = compare_results(
        ResultTable(gold.columns, gold.rows),
        ResultTable(predicted.columns, predicted.rows),
        order_matters=case.order_matters,
    )
    assert comparison.match, (
        f"{comparison.reason}; only in reference {comparison.only_in_gold}, "
        f"only in the answer {comparison.only_in_pred}\n{translation.sql}"
    )


def test_most_references_are_not_empty(demo_store: MarketStore) -> None:
    """An empty reference matches an empty answer whatever the question: keep them rare."""
    empty = [case.question for case in CASES if not demo_store.query(case.reference_sql).rows]
    assert len(empty) <= len(CASES) // 20, empty
