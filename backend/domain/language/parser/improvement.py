"""Improvers / improved / 改善 said of a report figure that is better when higher (gross margin
improvers from Q3'24 to Q3'25, ROE improved): the figure rose, read as `up` by every rule reading a
rise. Of a figure that is better when lower (a debt ratio improves by falling), or with no figure beside
it, the word is left to refuse: which way it moved is not said."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

# report figures that improve by falling
BETTER_WHEN_LOWER = {"debt_to_assets"}


def improvement(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """improve word right after or right before a report figure better when higher → `up`."""
    if tokens[i].kind != "improve":
        return None
    beside = [tokens[k] for k in (i - 1, i + 1) if kind_at(tokens, k) == "metric"]
    if len(beside) != 1 or not _better_when_higher(model, str(beside[0].value)):
        return None
    return 1, [Token("up", "up", tokens[i].text, tokens[i].start)]


def _better_when_higher(model: SemanticModel, metric: str) -> bool:
    known = model.metrics.get(metric)
    return known is not None and known.kind == "report" and metric not in BETTER_WHEN_LOWER
