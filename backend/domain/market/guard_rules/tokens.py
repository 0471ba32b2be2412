"""Rules on sqlglot's ClickHouse tokens: statement count and the leading keyword; and the shortening
of long literal lists that `require_read_only` parses instead of the whole text.

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


# Only plain literals are collapsed: a token of these kinds is data, whatever its text.
_LIST_LITERALS = {TokenType.STRING, TokenType.NUMBER}


def _literal_list_end(tokens: Sequence[Token], start: int) -> int | None:
    """The index of the `)` closing `literal (, literal)*` that begins at `start`, else None."""
    index = start
    if index >= len(tokens) or tokens[index].token_type not in _LIST_LITERALS:
        return None
    index += 1
    while (
        index + 1 < len(tokens)
        and tokens[index].token_type == TokenType.COMMA
        and tokens[index + 1].token_type in _LIST_LITERALS
    ):
        index += 2
    if index < len(tokens) and tokens[index].token_type == TokenType.R_PAREN:
        return index
    return None


def short_literal_lists(tokens: Sequence[Token]) -> list[Token]:
    """`x IN ('a', 'b', …)` keeps only its first literal. The guard's rules judge statements,
    functions, sources and clauses; no rule reads a literal's value, and a string or number token is
    a value whatever its text, so the shortened statement gets the verdict of the whole one. Parsing
    an answer's list of 1,400 stock codes was most of the guard's time on the reverse checks, and the
    guard runs under the GIL, so it is what the checks' threads wait for."""
    kept: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kept.append(token)
        index += 1
        opens_list = index < len(tokens) and tokens[index].token_type == TokenType.L_PAREN
        if token.token_type == TokenType.IN and opens_list:
            end = _literal_list_end(tokens, index + 1)
            if end is not None:
                kept.extend((tokens[index], tokens[index + 1], tokens[end]))
                index = end + 1
    return kept
