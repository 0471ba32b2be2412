"""What every grammar pass shares: the pass signature, the rewrite loop and small token tests.

A pass looks at the token at one index and either declines (None) or says how many tokens it used
and which tokens replace them, usually one synthetic token carrying the recognised meaning.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from backend.domain.language.lexicon import Token
from backend.domain.language.semantic import SemanticModel

Match = tuple[int, list[Token]]  # (tokens used from the index on, their replacement)
GrammarPass = Callable[[SemanticModel, list[Token], int], Match | None]


def synthetic(kind: str, value: Any, source: list[Token], **extra: Any) -> Token:
    """A token standing for the phrase `source`, whose words it keeps for messages."""
    text = " ".join(token.text for token in source)
    return Token(kind, value, text, source[0].start if source else 0, dict(extra))


def rewrite(model: SemanticModel, tokens: list[Token], grammar_pass: GrammarPass) -> list[Token]:
    """Run one pass left to right; a pass may look back at earlier tokens but replaces only forward."""
    result: list[Token] = []
    index = 0
    while index < len(tokens):
        matched = grammar_pass(model, tokens, index)
        if matched is None:
            result.append(tokens[index])
            index += 1
            continue
        consumed, replacement = matched
        result.extend(replacement)
        index += consumed
    return result


def kind_at(tokens: list[Token], index: int) -> str:
    """The kind of the token at `index`, or "" past either end (so patterns need no bounds checks)."""
    return tokens[index].kind if 0 <= index < len(tokens) else ""


def says_window(tokens: list[Token]) -> bool:
    """A window of days is said (今年以来, since a day, the last 20 days): the base a move over it is
    measured from, as 翻倍 / 腰斩 / 涨了5倍 need one (over one day they would be misread)."""
    return any(token.kind == "timespec" and not token.value.is_single_day for token in tokens)


def is_plain_number(token: Token) -> bool:
    """A bare count such as 5 or 三, not 5% or 5亿."""
    return token.kind == "number" and not token.extra.get("unit") and not token.extra.get("scaled")


def metric_of(token: Token) -> str:
    """The metric a metric word names; a bare change word (涨幅, change) is the day's pct_chg."""
    return "pct_chg" if token.kind == "change_word" else str(token.value)


def period_bounds(token: Token) -> tuple[date, date]:
    """First and last day of a date, month or year token."""
    if token.kind == "date":
        return token.value, token.value
    if token.kind == "month":
        year, month = token.value["year"], token.value["month"]
        next_first = date(year + (month == 12), month % 12 + 1, 1)
        return date(year, month, 1), date.fromordinal(next_first.toordinal() - 1)
    year = int(token.value)
    return date(year, 1, 1), date(year, 12, 31)
