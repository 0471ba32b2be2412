"""SQL guard: exactly one read statement, checked on the sqlglot tree (DESIGN.md §4).

Generated SQL is untrusted. `check_read_only` refuses, with a reason an analyst can act on, anything
that is not a single read of market data: several statements, writes or DDL at any depth, table
functions that reach files/network/other databases/programs, ClickHouse's internal databases,
functions revealing the server, `INTO OUTFILE`, `FORMAT` and `SETTINGS` clauses, invisible
characters, and whatever sqlglot cannot parse. The rules live in `guard_rules`, one function each.
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
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import Token

from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard_rules import TREE_RULES, text, tokens
from backend.domain.market.guard_rules.parsed import ParsedStatement

DIALECT = "clickhouse"
MAX_SQL_CHARS = 100_000


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


def check_read_only(sql: str) -> exp.Query:
    """Return the parsed statement, or raise QueryRejected saying why it is refused."""
    _refuse_if(text.empty_text(sql))
    _refuse_if(text.oversized_text(sql, MAX_SQL_CHARS))
    _refuse_if(text.invisible_characters(sql))
    sql_tokens = _tokenize(sql)
    _refuse_if(tokens.statement_count(sql_tokens))
    _refuse_if(tokens.leading_keyword(sql_tokens))
    _refuse_if(tokens.into_outfile(sql_tokens))
    tree = _parse(sql, sql_tokens)
    statement = ParsedStatement.of(tree)
    for rule in TREE_RULES:
        _refuse_if(rule(statement))
    assert isinstance(tree, exp.Query)  # statement_kind has refused everything else
    return tree
