"""Long lists of plain strings are shortened in the text before tokenizing only where the parser then
gets the same tokens; anywhere else (inside a string, a comment, a function call) the whole text is
tokenized, and the verdict is always the whole text's."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import check_read_only, forget_passed, require_read_only
from backend.domain.market.guard_rules.plain_lists import MIN_MEMBERS, confirmed, shorten
from backend.domain.market.guard_rules.tokens import short_literal_lists

CODES = [f"'{600000 + number}.SH'" for number in range(MIN_MEMBERS + 4)]
LIST = ", ".join(CODES)
ESCAPED_LIST = LIST.replace("'", "''")


def _tokens(sql: str) -> list[tuple[TokenType, str]]:
    """What the parser gets on the store's path."""
    tokens = list(Dialect.get_or_raise("clickhouse").tokenize(sql))
    return [(token.token_type, token.text) for token in short_literal_lists(tokens)]


def _is_confirmed(sql: str) -> bool:
    shortened = shorten(sql)
    if shortened is None:
        return False
    try:
        tokens = list(Dialect.get_or_raise("clickhouse").tokenize(shortened.text))
    except Exception:  # unreadable: the guard reads the whole text
        return False
    return confirmed(shortened, tokens)


def test_a_long_list_after_in_is_tokenized_as_its_first_literal(tokenized: list[str]) -> None:
    sql = f"SELECT ts_code FROM market.daily WHERE ts_code NOT IN ({LIST}) AND close > 1"
    require_read_only(sql)
    assert tokenized == [f"SELECT ts_code FROM market.daily WHERE ts_code NOT IN ({CODES[0]}) AND close > 1"]
    assert _tokens(tokenized[0]) == _tokens(sql)


def test_a_short_list_is_read_whole(tokenized: list[str]) -> None:
    sql = f"SELECT 1 FROM market.daily WHERE ts_code IN ({', '.join(CODES[: MIN_MEMBERS - 1])})"
    require_read_only(sql)
    assert tokenized == [sql]


@pytest.mark.parametrize(
    "sql",
    [
        f"SELECT 'x IN ({LIST})'",  # the list straddles a string
        f"SELECT 'x IN ({ESCAPED_LIST})'",  # inside a string
        f"SELECT 1 -- IN ({LIST})",  # inside a comment
        f"SELECT 1 /* IN ({LIST}) */",
        f"SELECT concat({LIST})",  # not after IN
        f"SELECT 1 WHERE (a, b) IN (({LIST}))",
    ],
)
def test_a_list_the_tokenizer_reads_otherwise_is_not_shortened(sql: str, tokenized: list[str]) -> None:
    assert not _is_confirmed(sql)
    stored = _verdict(require_read_only, sql)
    assert tokenized[-1] == sql  # the shortened text was tried, then the whole text read
    assert stored == _verdict(check_read_only, sql)


def test_many_literals_that_close_no_list_are_read_in_one_pass() -> None:
    """Each literal is read once: a text of 8,000 literals never closing a list (the first regular
    expression rescanned from every literal: 11 s) costs a few milliseconds."""
    sql = "SELECT 1 WHERE a IN (" + ", ".join(f"'{n:05d}'" for n in range(8000)) + ", 1)"
    started = time.perf_counter()
    assert shorten(sql) is None
    assert time.perf_counter() - started < 0.5


def test_a_refusal_is_given_on_the_whole_text(tokenized: list[str]) -> None:
    sql = f"SELECT ts_code FROM market.daily WHERE ts_code IN ({LIST}) AND file('x') = ''"
    with pytest.raises(QueryRejected) as shortened:
        require_read_only(sql)
    with pytest.raises(QueryRejected) as whole:
        check_read_only(sql)
    assert str(shortened.value) == str(whole.value) and tokenized[-1] == sql


_BEFORE = [
    "SELECT ts_code FROM market.daily WHERE ts_code IN (",
    "SELECT 1 WHERE a NOT IN (",
    "SELECT 'x IN (",
    "SELECT 1 -- IN (",
    "SELECT 1 /* IN (",
    "SELECT f(",
    "SELECT $$ IN (",
    "SELECT `IN (",
    'SELECT "IN (',
    "SELECT 1 WHERE a IN (n",
    "SELECT 1 WHERE a IN ('''",
    "SELECT 1 WHERE a IN (1, ",
]
_AFTER = [
    ")",
    ")'",
    ") */",
    ") ; DROP TABLE market.daily",
    ")\n; DROP TABLE market.daily",
    ") INTO OUTFILE 'x'",
    ") AND b IN ('a', 'b')",
    ")$$",
    ")`",
    ')"',
    "), 'x')",
    ") OR file('x') = ''",
]
_PLAIN = st.lists(
    st.sampled_from(["600519.SH", "000001.SZ", "AAPL.US", "银行", "a b"]),
    min_size=MIN_MEMBERS,
    max_size=MIN_MEMBERS + 3,
)
_ODD = st.one_of(
    st.sampled_from(["it''s", "a\\'b", "x') OR (1=1", "--", "*/", "", "line\nbreak"]),
    st.text(alphabet="ab'\\,)( \n-/*$`\"", max_size=4),
)


@st.composite
def _members(draw: st.DrawFn) -> list[str]:
    """Plain members, and often one odd member somewhere among them."""
    members = draw(_PLAIN)
    if draw(st.booleans()):
        members.insert(draw(st.integers(0, len(members))), draw(_ODD))
    return members


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(_BEFORE), _members(), st.sampled_from([", ", ",", " , "]), st.sampled_from(_AFTER))
def test_the_store_s_verdict_is_the_whole_text_s(
    before: str, members: list[str], comma: str, after: str
) -> None:
    sql = before + comma.join(f"'{member}'" for member in members) + after
    if _is_confirmed(sql):
        shortened = shorten(sql)
        assert shortened is not None and _tokens(shortened.text) == _tokens(sql)
    assert (_verdict(require_read_only, sql) is None) == (_verdict(check_read_only, sql) is None)


def _verdict(judge: Callable[[str], object], sql: str) -> str | None:
    """None when `judge` passes the text from an empty memory, else its reason."""
    forget_passed()
    try:
        judge(sql)
    except QueryRejected as refusal:
        return str(refusal)
    finally:
        forget_passed()
    return None
