"""A unit said after the question word (PE多少倍, 收盘价是多少元): the unit the figure is in, so it only
restates the figure asked; after a figure in another unit (营收是净利润的多少倍: a ratio of two figures)
it is left for the leftovers to refuse, naming it."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, metric_of
from backend.domain.language.semantic import SemanticModel


def asked_unit(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """metric [是] 多少<unit> → the same words with the bare question word 多少, when the metric is in
    that unit."""
    said_is = kind_at(tokens, i + 1) == "cmp" and tokens[i + 1].text == "是"
    j = i + 1 + said_is
    if tokens[i].kind != "metric" or kind_at(tokens, j) != "asked_unit":
        return None
    metric = model.metrics.get(metric_of(tokens[i]))
    if metric is None or str(tokens[j].value) not in {metric.stored_unit.name, metric.input_unit.name}:
        return None
    return j + 1 - i, [*tokens[i:j], Token("agg", "count", "多少", tokens[j].start)]
