"""Output column names of aggregates: stock_count, up_count, avg_pe, stock_count_limit_up, …"""

from __future__ import annotations

from backend.domain.language.ir import Aggregate, Compare, Condition, Technical

BREADTH_NAMES = {
    "count_up": "up_count", "count_down": "down_count", "up_down_ratio": "up_down_ratio",
    "net_up": "net_up_count",
}  # fmt: skip
OP_WORDS = {
    ">": "gt", ">=": "ge", "<": "lt", "<=": "le", "=": "eq", "!=": "ne", "between": "between", "has": "has",
}  # fmt: skip


def aggregate_name(aggregate: Aggregate) -> str:
    """The output column of an aggregate: stock_count, up_count, avg_pe, share_pct_chg_gt_0, …"""
    if aggregate.fn in {"trading_days", "stock_days"}:
        counted = aggregate.where is not None
        return f"{aggregate.fn}_{condition_slug(aggregate.where)}" if counted else aggregate.fn
    if aggregate.fn == "share":
        return f"share_{condition_slug(aggregate.where)}"
    if aggregate.fn == "count" or aggregate.metric is None:
        base = "stock_count"
    elif aggregate.fn in BREADTH_NAMES:
        base = BREADTH_NAMES[aggregate.fn]
    else:
        base = f"{aggregate.fn}_{aggregate.metric}"
    return base if aggregate.where is None else f"{base}_{condition_slug(aggregate.where)}"


def condition_slug(condition: Condition | None) -> str:
    """A column-name suffix saying which condition an aggregate is restricted to (涨停 → limit_up)."""
    if isinstance(condition, Technical):
        return condition.kind
    if isinstance(condition, Compare):
        number = f"{condition.value:g}".replace("-", "minus").replace(".", "_")
        return f"{condition.metric}_{OP_WORDS.get(condition.op, 'cmp')}_{number}"
    return type(condition).__name__.lower()
