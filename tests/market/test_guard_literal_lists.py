"""The store's judge parses a long literal list as its first literal: only lists of plain literals
after IN are shortened, nothing else is."""

from __future__ import annotations

import pytest
from sqlglot.dialects.dialect import Dialect

from backend.domain.market.guard_rules.tokens import short_literal_lists


def _shortened(sql: str) -> str:
    tokens = list(Dialect.get_or_raise("clickhouse").tokenize(sql))
    return " ".join(token.text for token in short_literal_lists(tokens))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1 WHERE c IN ('a', 'b', 'c')", "SELECT 1 WHERE c IN ( a )"),
        ("SELECT 1 WHERE c NOT IN (1, 2.5, 3)", "SELECT 1 WHERE c NOT IN ( 1 )"),
        ("SELECT 1 WHERE c IN ('a') AND d IN ('x', 'y')", "SELECT 1 WHERE c IN ( a ) AND d IN ( x )"),
        # Anything but plain literals in the list, or no list at all: the tokens are kept whole.
        ("SELECT 1 WHERE c IN ('a', lower('b'))", "SELECT 1 WHERE c IN ( a , lower ( b ) )"),
        ("SELECT 1 WHERE c IN ('a', -1)", "SELECT 1 WHERE c IN ( a , - 1 )"),
        ("SELECT 1 WHERE c IN (SELECT 'a')", "SELECT 1 WHERE c IN ( SELECT a )"),
        ("SELECT f('a', 'b', 'c')", "SELECT f ( a , b , c )"),
        ("SELECT 1 WHERE c IN ('a', 'b'", "SELECT 1 WHERE c IN ( a , b"),
        ("SELECT ('a', 'b') IN (('a', 'b'))", "SELECT ( a , b ) IN ( ( a , b ) )"),
    ],
)
def test_only_plain_literal_lists_after_in_are_shortened(sql: str, expected: str) -> None:
    assert _shortened(sql) == expected
