"""A named stock's daily figure over a window of days (茅台最近10个交易日每天的收盘价, Moutai's close
each day over the last 10 sessions) is listed one row per day already: 每天 / each day beside the
figure restates that, and is dropped. Only with a stock named, a window of days and nothing else
screened, ranked or aggregated; a change (每天的涨幅) or a figure that is not a day's bar value is left
to the passes that read it (a per-day grouping) or to refuse."""

from __future__ import annotations

from backend.domain.language.ir import Scope, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

# the day's change is a window's gain when listed (each day's change is a grouping per day)
CHANGES = {"pct_chg", "change"}
# what else in the question would make the rows something other than the stock's days
OTHER_SHAPES = {"agg", "aggmetric", "super", "order", "top", "count_unit", "dim"}


def named_stock_days(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    if kind_at(tokens, i) != "per_day":
        return None
    figures = [k for k in (i - 1, i + 1) if kind_at(tokens, k) == "metric"]
    if not figures or not all(_daily_value(model, tokens[k]) for k in figures):
        return None
    named = any(_names_stock(token) for token in tokens)
    window = any(
        token.kind == "timespec" and isinstance(token.value, TimeSpec) and not token.value.is_single_day
        for token in tokens
    )
    screened = any(token.kind == "cond" and not _names_stock(token) for token in tokens)
    shaped = any(token.kind in OTHER_SHAPES for token in tokens)
    return (1, []) if named and window and not screened and not shaped else None


def _daily_value(model: SemanticModel, token: Token) -> bool:
    metric = model.metrics.get(str(token.value))
    return metric is not None and metric.kind == "daily" and metric.key not in CHANGES


def _names_stock(token: Token) -> bool:
    return token.kind == "cond" and isinstance(token.value, Scope) and token.value.kind == "stock"
