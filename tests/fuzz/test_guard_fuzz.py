"""The SQL guard under hostile input: it never fails with anything but QueryRejected, refuses every
attack the grammar builds, accepts the reads it builds, and lets nothing through that an independent
reading does not see as one read-only SELECT over allowed tables."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import check_read_only, require_read_only
from tests.fuzz.conftest import FUZZ
from tests.fuzz.oracle import assert_single_read
from tests.fuzz.sql_grammar import attack, mixture, safe_query

pytestmark = pytest.mark.fuzz


def _accepted(sql: str) -> bool:
    try:
        check_read_only(sql)
    except QueryRejected:
        return False
    return True


@FUZZ
@given(st.one_of(safe_query().map(lambda sql: (sql, True)), attack().map(lambda sql: (sql, False))))
def test_grammar_reads_pass_and_attacks_are_refused(case: tuple[str, bool]) -> None:
    sql, is_read = case
    assert _accepted(sql) is is_read, f"{'refused a read' if is_read else 'accepted an attack'}: {sql!r}"
    if is_read:
        assert_single_read(sql)


@FUZZ
@given(mixture())
def test_mixtures_are_refused_or_are_one_read(sql: str) -> None:
    if _accepted(sql):
        assert_single_read(sql, tables="market database")


@FUZZ
@given(st.one_of(st.text(max_size=300), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_arbitrary_text_only_ever_raises_query_rejected(text: str) -> None:
    if _accepted(text):
        assert_single_read(text, tables="any database but the internal ones")


def _verdict(check: Callable[[str], object], sql: str) -> str | None:
    try:
        check(sql)
    except QueryRejected as refusal:
        return str(refusal)
    return None


@FUZZ
@given(st.one_of(safe_query(), attack(), mixture()))
def test_the_remembered_verdict_is_the_full_checks(sql: str) -> None:
    """The store's guard (require_read_only: passed texts are remembered) says what the full check
    says, the first time and again from memory."""
    full = _verdict(check_read_only, sql)
    assert _verdict(require_read_only, sql) == full
    assert _verdict(require_read_only, sql) == full
