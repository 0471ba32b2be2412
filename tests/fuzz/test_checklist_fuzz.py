"""The checklist under hostile input: reading constraints from any text and checking them on any SQL
never raises; every check ends in a verdict, the syntax verdict first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.domain.pipeline.validate.checklist import (
    Level,
    Verdict,
    check_sql,
    default_vocabulary,
    extract_constraints,
)
from tests.fuzz.conftest import FUZZ
from tests.fuzz.question_grammar import questions
from tests.fuzz.sql_grammar import attack, safe_query

pytestmark = pytest.mark.fuzz

VOCABULARY = default_vocabulary()
# Mixtures are left to the guard's fuzzer: generating them costs more than checking them here.
sql_texts = st.one_of(safe_query(), attack(), st.text(max_size=200))


@FUZZ
@given(questions, sql_texts)
def test_constraints_from_any_text_checked_on_any_sql_never_raise(question: str, sql: str) -> None:
    constraints = extract_constraints(question, VOCABULARY)
    verdicts = check_sql(constraints, sql)
    assert len(verdicts) == len(constraints) + 1
    assert all(isinstance(verdict, Verdict) for verdict in verdicts)
    assert verdicts[0].level == Level.SYNTAX
