"""A move said at the day's extreme (up more than 5% at the day's high, 盘中最高时涨幅超过5%): the
high (low) against the previous close, read by `compare` as the high's (low's) move, `high_pct`
(`low_pct`). Only up at the high or down at the low: down at the high names no price and is left to
refuse, as is an extreme with no move beside it."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

# the direction a move at each extreme is said in
DIRECTION_AT = {"high": "up", "low": "down"}
# the words of a move: up / down, 涨幅 (a rise), 跌幅 (a fall)
SAID_MOVES = {
    ("up", "up"): "up", ("down", "down"): "down", ("metric", "pct_chg"): "up", ("change_word", "gain"): "up",
    ("metric", "decline"): "down",
}  # fmt: skip


def move_at_extreme(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """up cmp N% at the high / at the low (up more than 5% at the day's high), or the extreme said
    first (盘中最高时涨幅超过5%): the extreme's price, then the move, for `compare`."""
    if kind_at(tokens, i) == "at_extreme" and _move_at(tokens, i + 1, str(tokens[i].value)):
        # 最高时 + 涨幅 / 上涨 + cmp N%: the move said after its extreme
        extreme, move = tokens[i], tokens[i + 1]
        return 2, [_price(extreme), _direction(extreme, move)]
    end = i + 3
    if kind_at(tokens, end) != "at_extreme" or not _move_at(tokens, i, str(tokens[end].value)):
        return None
    extreme = tokens[end]
    return end + 1 - i, [_price(extreme), _direction(extreme, tokens[i]), *tokens[i + 1 : end]]


def _move_at(tokens: list[Token], j: int, extreme: str) -> bool:
    """A move (up / down / 涨幅) then cmp N%, in the direction the extreme is said in."""
    said = _said_direction(tokens[j]) if j < len(tokens) else None
    percent = kind_at(tokens, j + 2) == "number" and tokens[j + 2].extra.get("unit") == "percent"
    return said == DIRECTION_AT[extreme] and kind_at(tokens, j + 1) == "cmp" and percent


def _said_direction(token: Token) -> str | None:
    said = (token.kind, str(token.value))  # a token's value may be a mapping: compared as text
    return SAID_MOVES.get(said)


def _price(extreme: Token) -> Token:
    return Token("metric", extreme.value, extreme.text, extreme.start)


def _direction(extreme: Token, move: Token) -> Token:
    direction = DIRECTION_AT[str(extreme.value)]
    return Token(direction, direction, move.text, move.start)
