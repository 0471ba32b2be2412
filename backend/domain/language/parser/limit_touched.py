"""A limit touched intraday, then not held (hit limit-up intraday but failed to close there, 盘中触及涨停
但收盘没封住): the close short of the limit the question has just named, Not(closed at that limit).
'Failed to close there' names no price of its own: said with no touched limit before it, it is left to
refuse naming it."""

from __future__ import annotations

from backend.domain.language.ir import Not, Technical
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, synthetic
from backend.domain.language.semantic import SemanticModel

# the limit a close is held at, by the limit touched
HELD_AT = {"limit_up_touched": "limit_up", "limit_down_touched": "limit_down"}


def limit_not_held(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """missed_limit after a touched limit: the close not at that limit."""
    if tokens[i].kind != "missed_limit":
        return None
    touched = next((token.value for token in reversed(tokens[:i]) if _touched(token)), None)
    if not isinstance(touched, Technical):
        return None
    held = Technical(HELD_AT[touched.kind], 1, time=touched.time)
    return 1, [synthetic("cond", Not(held), tokens[i : i + 1])]


def _touched(token: Token) -> bool:
    return token.kind == "cond" and isinstance(token.value, Technical) and token.value.kind in HELD_AT
