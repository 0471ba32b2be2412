"""Grouping: 各行业 / in each industry / 每只股票 → `groupby`; 超过10只的行业 → a `having` on the count."""

from __future__ import annotations

from backend.domain.language.ir import Compare
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel


def group(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind == "per" and kind_at(tokens, i + 1) == "timespec" and not tokens[i + 1].value.is_single_day:
        # for each of the last five trading days: one row per day of the window
        return 2, [tokens[i + 1], synthetic("groupby", "trade_date", [token])]
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
    having = _groups_counting(tokens, i)
    if having is not None:
        return having
    if token.kind == "each_stock":
        return 1, [synthetic("groupby", "ts_code", [token])]
    return None


def _groups_counting(tokens: list[Token], i: int) -> Match | None:
    """[only] industries with at least 10 [listed companies]: a filter on the group's count of stocks
    (the dimension word stays, to name the grouping)."""
    j = i + (kind_at(tokens, i) in {"only", "among"})
    if kind_at(tokens, j) != "dim":
        return None
    k = j + 1 + (kind_at(tokens, j + 1) == "and")  # with
    if (
        kind_at(tokens, k) != "cmp"
        or kind_at(tokens, k + 1) != "number"
        or not is_plain_number(tokens[k + 1])
    ):
        return None
    end = k + 2
    while kind_at(tokens, end) in {"listed", "count_unit"}:
        end += 1
    if end == k + 2 and end < len(tokens):
        return None  # a bare number with words after it may be anything: only a count said as such
    condition = Compare("stock_count", tokens[k].value, float(tokens[k + 1].value), agg="count")
    return end - i, [tokens[j], synthetic("having", condition, tokens[i:end])]
