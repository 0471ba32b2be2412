"""How a group's average is taken, said after the comparison with it:
市值高于所在行业平均市值的创业板股票（行业均值按全市场算）. A stock's own group average is taken over every
stock of that group in the market, whatever the question's other scopes (the compiler's `VersusGroup`
with a dimension and nothing it is taken within), so the words only restate it; said of an average
over the question's own stocks (no group), or of another group than the one compared, they would
change it, and are left to refuse."""

from __future__ import annotations

from backend.domain.language.ir import VersusGroup
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel


def whole_market_basis(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[group] [均值] 按全市场算 → dropped, when the question compares a stock with its own group's average
    (of that group, when one is said) taken over the whole market."""
    if kind_at(tokens, i) != "dim" and kind_at(tokens, i - 1) == "dim":
        return None  # the group said before was not the one compared (read at its own index)
    dimension = str(tokens[i].value) if kind_at(tokens, i) == "dim" else None
    j = i + (dimension is not None)
    j += kind_at(tokens, j) == "agg" and tokens[j].value == "avg"
    if kind_at(tokens, j) != "whole_market_basis":
        return None
    compared = [t.value for t in tokens if t.kind == "cond" and isinstance(t.value, VersusGroup)]
    if len(compared) != 1 or compared[0].dimension is None or compared[0].within:
        return None
    if dimension is not None and dimension != compared[0].dimension:
        return None
    return j + 1 - i, []
