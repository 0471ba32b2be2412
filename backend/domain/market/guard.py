"""SQL guard: exactly one read statement, checked on the sqlglot tree (DESIGN.md §4).

Generated SQL is untrusted. `check_read_only` refuses, with a reason an analyst can act on, anything
that is not a single read of market data: several statements, writes or DDL at any depth, table
functions that reach files/network/other databases/programs, ClickHouse's internal databases,
functions revealing the server, `INTO OUTFILE`, `FORMAT` and `SETTINGS` clauses, invisible
characters, and whatever sqlglot cannot parse. The rules live in `guard_rules`, one function each.
A CTE named with a word sqlglot tokenizes as a keyword (`WITH then AS (…)`), which ClickHouse runs,
is read as the name it is (guard_rules/keyword_names.py).
The store still runs every query with `readonly=1` and limits — but measured on chdb 26.9, readonly=1
does NOT stop the scalar `file()` function or reads of `system.*` (tests/market/test_guard.py runs
them), nor `INTO OUTFILE`, which wrote a file into the working directory: for those the guard is the
wall.

Decisions: the table functions numbers(), numbers_mt(), zeros(), zeros_mt() and generate_series()
are allowed (they only generate numbers; limits bound their cost), every other table function is
refused. FINAL and SAMPLE are reads and pass (ClickHouse itself refuses them on tables without a
Replacing engine or a sampling key). `{name:Type}` parameters pass except type Identifier, which
can name any table. FORMAT is refused because the driver chooses the wire format. Refused functions
and why: guard_rules/functions.py.

The store asks through `require_read_only`, which parses long literal lists as one literal (no rule
reads a literal's value), tokenizes long lists of plain strings as their first one (guard_rules/
plain_lists.py: the parser gets the same tokens) and remembers the texts the guard passed (exact text,
bounded by total length): the rules are pure functions of the text, so the same text cannot be judged
differently, and the engine's SQL guarded when it is compiled, a question asked again or a reverse
check seen before is not parsed twice. Refusals are never remembered: they are judged every time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import Token

from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard_rules import TREE_RULES, plain_lists, text, tokens
from backend.domain.market.guard_rules.keyword_names import keyword_cte_names
from backend.domain.market.guard_rules.parsed import ParsedStatement

DIALECT = "clickhouse"  # the store's SQL, for every parse and every text written in this code base
MAX_SQL_CHARS = 100_000
REMEMBERED_CHARS = 4_000_000  # passed texts kept: 4 MB of ASCII SQL (2 bytes a CJK character)


class PassedTexts:
    """Texts the guard passed, least recently used first out once their total length is over
    `max_chars` (a text longer than that alone is not kept). Safe to share between threads."""

    def __init__(self, max_chars: int) -> None:
        self._max_chars = max_chars
        self._texts: OrderedDict[str, None] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def __contains__(self, sql: str) -> bool:
        with self._lock:
            if sql not in self._texts:
                return False
            self._texts.move_to_end(sql)
            return True

    def add(self, sql: str) -> None:
        with self._lock:
            if sql in self._texts or len(sql) > self._max_chars:
                return
            self._texts[sql] = None
            self._chars += len(sql)
            while self._chars > self._max_chars:
                oldest, _ = self._texts.popitem(last=False)
                self._chars -= len(oldest)

    def clear(self) -> None:
        with self._lock:
            self._texts.clear()
            self._chars = 0


_passed = PassedTexts(REMEMBERED_CHARS)


def _refuse_if(reason: str | None) -> None:
    if reason is not None:
        raise QueryRejected(reason)


def _unreadable(error: BaseException) -> QueryRejected:
    if isinstance(error, RecursionError):
        return QueryRejected("the SQL is nested too deeply to be checked")
    first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return QueryRejected(f"the SQL could not be parsed as ClickHouse SQL: {first_line}")


# sqlglot signals most malformed input with SqlglotError, but some shapes of garbage surface as plain
# Python errors (RecursionError on deep nesting, ValueError…) from inside the tokenizer or parser;
# any failure to read the SQL is a refusal, never a crash.
def _tokenize(sql: str) -> list[Token]:
    try:
        return list(Dialect.get_or_raise(DIALECT).tokenize(sql))
    except Exception as error:
        raise _unreadable(error) from error


def _parse(sql: str, sql_tokens: list[Token]) -> exp.Expr:
    # The tokens the token rules read are the ones parsed: the text is tokenized once (the tokenizer
    # was half of the guard's time on the reverse checks' long IN lists).
    try:
        parsed = Dialect.get_or_raise(DIALECT).parser().parse(sql_tokens, sql)
    except Exception as error:
        raise _unreadable(error) from error
    # A comment after the final `;` comes back as a Semicolon node carrying it: not a statement.
    statements = [node for node in parsed if node is not None and not isinstance(node, exp.Semicolon)]
    if len(statements) != 1:
        raise QueryRejected(f"exactly one statement is allowed, got {len(statements)}")
    return statements[0]


def _judge(sql: str, *, whole_tree: bool, shorten_lists: bool = False) -> exp.Query:
    _refuse_if(text.empty_text(sql))
    _refuse_if(text.oversized_text(sql, MAX_SQL_CHARS))
    _refuse_if(text.invisible_characters(sql))
    read, sql_tokens = _read(sql) if shorten_lists else (sql, _tokenize(sql))
    _refuse_if(tokens.statement_count(sql_tokens))
    _refuse_if(tokens.leading_keyword(sql_tokens))
    _refuse_if(tokens.into_outfile(sql_tokens))
    parsed_tokens = keyword_cte_names(sql_tokens if whole_tree else tokens.short_literal_lists(sql_tokens))
    tree = _parse(read, parsed_tokens)
    statement = ParsedStatement.of(tree)
    for rule in TREE_RULES:
        _refuse_if(rule(statement))
    assert isinstance(tree, exp.Query)  # statement_kind has refused everything else
    _passed.add(sql)
    return tree


def _read(sql: str) -> tuple[str, list[Token]]:
    """The text to tokenize and its tokens: the text with its long lists of plain string literals
    shortened when its tokens confirm that the parser gets the same tokens (plain_lists.py), else the
    whole text."""
    shortened = plain_lists.shorten(sql)
    if shortened is not None:
        try:
            short_tokens = _tokenize(shortened.text)
        except QueryRejected:
            short_tokens = []
        if short_tokens and plain_lists.confirmed(shortened, short_tokens):
            return shortened.text, short_tokens
    return sql, _tokenize(sql)


def check_read_only(sql: str) -> exp.Query:
    """Return the parsed statement, or raise QueryRejected saying why it is refused. A text that
    passes is remembered for `require_read_only`."""
    return _judge(sql, whole_tree=True)


def require_read_only(sql: str) -> None:
    """Raise QueryRejected as `check_read_only` would; a text it passed before is not parsed again.
    No tree is returned, so long literal lists are parsed as one literal (tokens.short_literal_lists),
    and long lists of plain strings are not even tokenized (guard_rules/plain_lists.py)."""
    if sql in _passed:
        return
    try:
        _judge(sql, whole_tree=False, shorten_lists=True)
    except QueryRejected:
        if plain_lists.shorten(sql) is None:
            raise
        # Judged again on the whole text: a refusal's reason (a parse error's line and column) is
        # then about the text that was sent, never about its shortened form.
        _judge(sql, whole_tree=False)


def forget_passed() -> None:
    """Judge every text afresh from now on (benchmarks timing a first ask; tests)."""
    _passed.clear()
