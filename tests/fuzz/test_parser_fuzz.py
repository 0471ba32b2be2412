"""The built-in parser under hostile questions: it never raises, answers ok / not_understood / error,
and any SQL it writes passes the guard — SQL, comment markers and prompt-injection phrasing included."""

from __future__ import annotations

import pytest
from hypothesis import given

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.market.guard import check_read_only
from tests.fuzz.conftest import FUZZ
from tests.fuzz.question_grammar import questions

pytestmark = pytest.mark.fuzz

TRANSLATOR = BuiltinTranslator()


def _check(question: str, context: LanguageContext) -> None:
    translation = translate_question(question, context, TRANSLATOR)
    assert translation.status in {"ok", "not_understood", "error"}, translation.status
    if translation.status == "ok":
        assert translation.sql is not None
        check_read_only(translation.sql)  # raises QueryRejected: the test fails
    else:
        assert translation.sql is None and translation.message


@FUZZ
@given(questions)
def test_questions_never_raise_and_any_sql_passes_the_guard(
    language_context: LanguageContext, text: str
) -> None:
    _check(text, language_context)
