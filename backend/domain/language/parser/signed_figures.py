"""Negative / positive right before a figure (negative net profit growth, positive ROE): the figure
below / above zero. Said before a figure, the sign is the figure's, never the price move of the
question's window (which "negative" alone, as a direction, reads)."""

from __future__ import annotations

from backend.domain.language.ir import Compare
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

SIGNS = {"negative": "<", "positive": ">"}


def signed_figure(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """negative / positive + figure → the figure compared with zero."""
    op = SIGNS.get(tokens[i].text)
    if op is None or kind_at(tokens, i + 1) != "metric" or tokens[i + 1].value not in model.metrics:
        return None
    figure = tokens[i + 1]
    condition = Compare(str(figure.value), op, 0.0, text="0")
    return 2, [synthetic("cond", condition, tokens[i : i + 2])]
