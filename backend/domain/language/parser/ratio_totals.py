"""A total across stocks of a figure that does not add up (which industries had the highest ROE in total,
银行股的市盈率合计, 各行业换手率加起来): a ratio, a rate, a multiple or a price summed over companies is no
figure of the group, so the question is refused naming the words — never answered with sum(roe). Only
what the catalogue marks additive (`Metric.additive`: money, shares, an index's weights) has a total.
A stock's own figure summed over its days (近一个月累计换手: its cumulative turnover) is no such total.
"""

from __future__ import annotations

from backend.domain.language.ir import Aggregate, Compare, Order, Screen
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.semantic import SemanticModel

GROUP_ORDER_PREFIX = "agg:sum:"  # groups ranked by their total (Order.metric "agg:sum:<metric>")


def refuse_totals_of_ratios(model: SemanticModel, tokens: list[Token], screen: Screen) -> None:
    """Refuse a sum over stocks of a figure the catalogue does not mark additive."""
    summed = {metric for metric in _summed_over_stocks(screen) if not _adds_up(model, metric)}
    if not summed:
        return
    phrases = [token.text for token in tokens if _sums(token) & summed] or [
        token.text for token in tokens if token.kind == "all_of"
    ]
    names = ", ".join(sorted(summed))
    said = ", ".join(f"'{word}'" for phrase in phrases for word in phrase.split()) or names
    raise NotUnderstood(
        f"could not place: {said} (a total of {names} over stocks: a ratio, rate or price does not add up "
        "— say average, median, highest or lowest)"
    )


def _adds_up(model: SemanticModel, metric: str) -> bool:
    return metric not in model.metrics or model.metrics[metric].additive


def _summed_over_stocks(screen: Screen) -> set[str]:
    """The metrics summed over several stocks: a whole set's or a group's aggregate, groups ranked or
    filtered by their total (grouped by stock, a sum runs over the stock's own days)."""
    if screen.group_by == "ts_code":
        return set()
    summed = {str(a.metric) for a in screen.aggregates if a.fn == "sum" and a.metric}
    summed |= {c.metric for c in screen.having if isinstance(c, Compare) and c.agg == "sum"}
    if screen.order is not None and screen.order.metric.startswith(GROUP_ORDER_PREFIX):
        summed.add(screen.order.metric.removeprefix(GROUP_ORDER_PREFIX))
    return summed


def _sums(token: Token) -> set[str]:
    """The metrics a token sums: an aggregate, a ranking or a comparison of a total."""
    value = token.value
    if token.kind == "aggmetric" and isinstance(value, tuple) and value[0] == "sum":
        return {str(value[1])}
    if isinstance(value, Aggregate) and value.fn == "sum" and value.metric:
        return {value.metric}
    if isinstance(value, Order) and value.metric.startswith(GROUP_ORDER_PREFIX):
        return {value.metric.removeprefix(GROUP_ORDER_PREFIX)}
    if isinstance(value, Order) and value.agg == "sum":
        return {value.metric}
    if isinstance(value, Compare) and value.agg == "sum":
        return {value.metric}
    return set()
