"""Nothing silently ignored (issue 8 item 4): every question of fixtures/refusals.yaml is refused,
and the message names the words that could change its meaning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext

REFUSALS: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "refusals.yaml").read_text(encoding="utf-8")
)


def test_the_fixtures_cover_both_languages() -> None:
    chinese = [case for case in REFUSALS if not case["question"].isascii()]
    assert len(REFUSALS) >= 40 and 15 <= len(chinese) <= len(REFUSALS) - 15


@pytest.mark.parametrize("case", REFUSALS, ids=[case["question"] for case in REFUSALS])
def test_refused_with_the_words_named(case: dict[str, Any], language_context: LanguageContext) -> None:
    translation = translate_question(case["question"], language_context)
    assert translation.status == "not_understood", translation.sql
    assert translation.sql is None
    for word in case["words"]:
        assert f"'{word}'" in translation.message, translation.message
