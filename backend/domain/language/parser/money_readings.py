"""A word that names a ratio and a money figure alike, read by the unit asked for: "market turnover in
billion yuan" is the traded value (amount), not the turnover rate — a rate has no yuan."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match
from backend.domain.language.semantic import SemanticModel

# (metric the word reads by default, the word) → the money metric it means with a money unit
MONEY_READINGS = {("turnover_rate", "turnover"): "amount"}


def money_reading(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind != "metric" or not any(other.kind == "out_unit" for other in tokens):
        return None
    reading = MONEY_READINGS.get((str(token.value), token.text.lower()))
    if reading is None or model.metrics[reading].unit_kind != "money":
        return None
    return 1, [Token("metric", reading, token.text, token.start, dict(token.extra))]
