"""CTE names that sqlglot's ClickHouse tokenizer reads as keywords, read as the names they are.

ClickHouse takes most keywords as identifiers where a name is expected: `WITH then AS (SELECT …)
SELECT … FROM then` runs there, while sqlglot tokenizes `then` as THEN and cannot parse the CTE, so
the guard refused a read the store would have run. Here such a name becomes a plain name token
(VAR) where it is defined and where it is read, and nowhere else:

- defined: a keyword token right after WITH, or after a comma of the same WITH clause (same
  parenthesis depth, before its SELECT), and followed by `AS (` — a keyword there is no keyword use
  ClickHouse could make of it;
- read: a token with the same text right after FROM or a JOIN, or right before a `.` (then.x).

A name token is weaker than any keyword: it can only name a table, column or alias, which every tree
rule still judges (a table function, a system database, a nested write are refused as before). The
other tokens are kept as they are, so `CASE WHEN … THEN` is still THEN.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlglot.tokens import Token, TokenType

_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME_TYPES = {TokenType.VAR, TokenType.IDENTIFIER}
_READ_AFTER = {TokenType.FROM, TokenType.JOIN}


def _is_keyword_word(token: Token) -> bool:
    return token.token_type not in _NAME_TYPES and bool(_WORD.match(token.text))


def _defined_positions(tokens: Sequence[Token]) -> list[int]:
    """Indexes of keyword tokens standing as CTE names (`WITH kw AS (`, `, kw AS (` in the clause)."""
    positions: list[int] = []
    depth = 0
    open_with: set[int] = set()  # depths whose WITH clause has not reached its SELECT yet
    for index, token in enumerate(tokens):
        kind = token.token_type
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            open_with.discard(depth)
            depth -= 1
        elif kind == TokenType.WITH:
            open_with.add(depth)
        elif kind == TokenType.SELECT:
            open_with.discard(depth)
        opens_name = kind == TokenType.WITH or (kind == TokenType.COMMA and depth in open_with)
        if opens_name and index + 3 < len(tokens):
            name, alias, paren = tokens[index + 1], tokens[index + 2], tokens[index + 3]
            as_query = alias.token_type == TokenType.ALIAS and paren.token_type == TokenType.L_PAREN
            if _is_keyword_word(name) and as_query:
                positions.append(index + 1)
    return positions


def _as_name(token: Token) -> Token:
    return Token(TokenType.VAR, token.text, token.line, token.col, token.start, token.end, token.comments)


def keyword_cte_names(tokens: Sequence[Token]) -> list[Token]:
    """The tokens, with keyword-named CTEs read as names where defined and where read."""
    defined = _defined_positions(tokens)
    if not defined:
        return list(tokens)
    names = {tokens[index].text for index in defined}
    renamed = set(defined)
    for index, token in enumerate(tokens):
        if token.text not in names or not _is_keyword_word(token):
            continue
        after_source = index > 0 and tokens[index - 1].token_type in _READ_AFTER
        before_dot = index + 1 < len(tokens) and tokens[index + 1].token_type == TokenType.DOT
        if after_source or before_dot:
            renamed.add(index)
    return [_as_name(token) if index in renamed else token for index, token in enumerate(tokens)]
