"""A move by a part of the figure (净利润下滑超过一半, fell by more than half): the part as a percent
change (more than 50% down). A part said elsewhere (超过一半的股票上涨: a share of the stocks;
低于行业平均的一半: a part of an average) is left to the rules that read it."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

MOVES = {"up", "down"}


def move_by_fraction(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """up/down + cmp + 一半 / a third of → the move, the comparison and the part in percent."""
    if tokens[i].kind not in MOVES or kind_at(tokens, i + 1) != "cmp" or kind_at(tokens, i + 2) != "fraction":
        return None
    if kind_at(tokens, i + 3) in {"count_unit", "cond"}:  # 下跌超过一半的股票…: the stocks' share, not a size
        return None
    part = tokens[i + 2]
    percent = Token("number", round(float(part.value) * 100, 6), part.text, part.start, {"unit": "percent"})
    return 3, [tokens[i], tokens[i + 1], percent]
