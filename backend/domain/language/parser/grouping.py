"""Grouping: 各行业 / in each industry / 每只股票 → `groupby`; 超过10只的行业 → a `having` on the count."""

from __future__ import annotations

from backend.domain.language.ir import Compare
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel


def group(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind == "per" and kind_at(tokens, i + 1) == "dim":
        return 2, [synthetic("groupby", tokens[i + 1].value, tokens[i : i + 2])]
    if token.kind == "per" and kind_at(tokens, i + 1) == "cond" and kind_at(tokens, i + 2) == "dim":
        # in each new-energy industry: the scope stays, the grouping is by industry
        return 3, [tokens[i + 1], synthetic("groupby", tokens[i + 2].value, tokens[i : i + 3])]
    count_filter = kind_at(tokens, i + 1) == "number" and kind_at(tokens, i + 2) == "count_unit"
    if token.kind == "cmp" and count_filter and not tokens[i + 1].extra.get("unit"):
        # "only industries with more than 10 such stocks": a filter on the group's count
        condition = Compare("stock_count", token.value, float(tokens[i + 1].value), agg="count")
        return 3, [synthetic("having", condition, tokens[i : i + 3])]
    if token.kind == "each_stock":
        return 1, [synthetic("groupby", "ts_code", [token])]
    return None
