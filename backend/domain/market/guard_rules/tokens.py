"""Rules on sqlglot's ClickHouse tokens: statement count and the leading keyword.

Tokens already skip comments and keep string literals whole, so `SELECT 'a;b' -- ; DROP` is one
statement here, while `SELECT 1 /* */; DROP TABLE t` is two.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from sqlglot.tokens import Token, TokenType

# A read starts with SELECT, WITH, a parenthesised query, or ClickHouse's `FROM t SELECT …`.
_QUERY_STARTS = {TokenType.SELECT, TokenType.WITH, TokenType.L_PAREN, TokenType.FROM}


def _statements(tokens: Sequence[Token]) -> list[list[Token]]:
    statements: list[list[Token]] = [[]]
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            statements.append([])
        else:
            statements[-1].append(token)
    return [statement for statement in statements if statement]


def statement_count(tokens: Sequence[Token]) -> str | None:
    count = len(_statements(tokens))
    if count == 0:
        return "empty SQL: there is nothing to run (only comments or semicolons)"
    if count > 1:
        return f"exactly one statement is allowed, got {count} (separated by ';')"
    return None


def leading_keyword(tokens: Sequence[Token]) -> str | None:
    first = next((token for token in tokens if token.token_type != TokenType.SEMICOLON), None)
    if first is not None and first.token_type not in _QUERY_STARTS:
        return f"only SELECT/WITH queries are allowed, got {first.text.upper()}"
    return None


def into_outfile(tokens: Sequence[Token]) -> str | None:
    for current, following in pairwise(tokens):
        if current.token_type == TokenType.INTO and following.text.upper() == "OUTFILE":
            return "INTO OUTFILE is not allowed: query results are never written to server files"
    return None
