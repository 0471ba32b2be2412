"""Long lists of plain string literals after IN, shortened in the text before it is tokenized.

`tokens.short_literal_lists` already parses `x IN ('a', 'b', …)` as `x IN ('a')`, but only after
sqlglot's tokenizer, pure Python under the GIL, has read every literal: on a reverse check listing an
answer's 1,400 stock codes that was most of the guard's time. Here the text itself is shortened, and
the shortened text is tokenized instead, when it can be shown to give the parser the same tokens:

- a region is `, 'literal'` repeated, then `)`, after a first `'literal'`; a literal holds no quote,
  backslash or line break and the separators are spaces, so read from a token boundary it can only be
  COMMA and STRING tokens, whatever the tokenizer's state (no comment, keyword or escape can start
  inside it);
- the text before each region is the same in both texts, so the tokenizer reaches the first literal in
  the same state in both; the shortened text's tokens confirm that it is one STRING token, right after
  `IN (` and right before `)` (`confirmed`) — a region the tokenizer reads otherwise (inside a string
  or a comment) is not confirmed, and the whole text is tokenized as before.

So the shortened text's tokens are the whole text's without the COMMA and STRING tokens that
`short_literal_lists` drops anyway, and the rules judge the same statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot.tokens import Token, TokenType

MIN_MEMBERS = 16  # shorter lists cost little to tokenize: they are read whole

_LITERAL = r"'[^'\\\n]+'"
# A run of literals joined by commas, taken whole (possessive): each character is read once, so a
# text of many literals that never close a list costs linear time, not a rescan from every literal.
_RUN = re.compile(rf"{_LITERAL}(?:[ ]*,[ ]*{_LITERAL})*+")
_CLOSED = re.compile(r"[ ]*\)")


@dataclass(frozen=True)
class ShortenedText:
    text: str
    first_literals: tuple[tuple[int, int], ...]  # (start, end) of each kept first literal in `text`


def shorten(sql: str) -> ShortenedText | None:
    """The text with each long list cut to its first literal, or None when there is none."""
    pieces: list[str] = []
    kept: list[tuple[int, int]] = []
    length = cursor = 0
    for run in _RUN.finditer(sql):
        members = run.group().count("'") // 2  # a literal holds no quote but its own two
        if members < MIN_MEMBERS or not _CLOSED.match(sql, run.end()):
            continue
        before = sql[cursor : run.start()]
        first = run.group()[: run.group().index("'", 1) + 1]
        start = length + len(before)
        kept.append((start, start + len(first) - 1))
        pieces += [before, first]
        length = start + len(first)
        cursor = run.end()
    if not kept:
        return None
    pieces.append(sql[cursor:])
    return ShortenedText("".join(pieces), tuple(kept))


def confirmed(shortened: ShortenedText, tokens: Sequence[Token]) -> bool:
    """Each kept first literal is one STRING token between `IN (` and `)` in the shortened text."""
    positions = {(token.start, token.end): index for index, token in enumerate(tokens)}
    for span in shortened.first_literals:
        index = positions.get(span)
        if index is None or index < 2 or index + 1 >= len(tokens):
            return False
        around = (tokens[index - 2], tokens[index - 1], tokens[index], tokens[index + 1])
        expected = (TokenType.IN, TokenType.L_PAREN, TokenType.STRING, TokenType.R_PAREN)
        if tuple(token.token_type for token in around) != expected:
            return False
    return True
