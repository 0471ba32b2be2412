"""A loss maker said beside a P/E (各行业平均市盈率（剔除亏损股）, average PE ex loss-makers) is a company
whose P/E has no value because of a loss: the static P/E divides by the last annual profit, the TTM
P/E by the trailing four quarters'. With no period of its own, the loss (or profit) is read as that
P/E's emptiness on the P/E's own day (pe IS NULL; a profit: a P/E at all) — never the latest report
period, which a P/E never reads, and never a report the question did not name. A negative P/E, which
the data never stores, is that loss too. Run by the assembly after the times are placed."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import (
    REPORT_TIME_LABELS,
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    Not,
    Order,
    Screen,
    Sustained,
    TopSubset,
    VersusGroup,
)

PROFIT = "n_income_attr_p"
VALUATIONS = ("pe", "pe_ttm")  # the P/Es a loss leaves empty: static (annual profit) and TTM


def _ranked_metric(order: Order) -> str:
    return order.metric.rsplit(":", 1)[-1]  # a group ordering's "agg:avg:pe" ranks by pe


def _condition_metrics(condition: Condition) -> set[str]:
    """The measures a condition tests: a comparison's, one against its group's average (市盈率低于行业
    平均), the ranking a top subset is cut from, inside and/or/not and a sustained test too."""
    if isinstance(condition, Compare | VersusGroup):
        return {condition.metric}
    if isinstance(condition, TopSubset):
        within = {metric for item in condition.within for metric in _condition_metrics(item)}
        return {_ranked_metric(condition.order)} | within
    if isinstance(condition, Sustained):
        return {condition.compare.metric}
    if isinstance(condition, BoolOp):
        return {metric for item in condition.items for metric in _condition_metrics(item)}
    if isinstance(condition, Not):
        return _condition_metrics(condition.item)
    return set()


def _metrics_read(screen: Screen) -> set[str]:
    """The measures the question shows, ranks or filters on (a group's aggregate of them too)."""
    read = {aggregate.metric for aggregate in screen.aggregates if aggregate.metric}
    conditions = [*screen.where, *screen.having]
    read |= {metric for condition in conditions for metric in _condition_metrics(condition)}
    if screen.order is not None:
        read.add(_ranked_metric(screen.order))
    return read | set(screen.outputs)


def _is_bare_sign(condition: Compare) -> bool:
    """亏损 / 盈利 with no period nor window of its own: the sign of the net profit."""
    return (
        condition.metric == PROFIT
        and condition.op in {"<", ">"}
        and condition.value == 0
        and condition.other is None
        and condition.time is None
        and condition.agg is None
    )


def _is_negative_valuation(condition: Compare) -> bool:
    """市盈率为负 / negative P/E: the data stores no negative P/E (a loss leaves it empty)."""
    return (
        condition.metric in VALUATIONS
        and condition.other is None
        and condition.agg is None
        and condition.op in {"<", "<="}
        and condition.value == 0
    )


def _valuation_sign(metric: str, loss: bool, compare: Compare) -> Condition:
    has = Compare(metric, "has", 0.0, time=compare.time, text=compare.text)
    return Not(has) if loss else has


def _as_emptiness(condition: Condition, valuation: str | None) -> Condition:
    """A negative P/E as its emptiness; with `valuation`, a bare loss or profit as that P/E's."""
    if isinstance(condition, Compare) and _is_negative_valuation(condition):
        return _valuation_sign(condition.metric, True, condition)
    if isinstance(condition, Compare) and valuation is not None and _is_bare_sign(condition):
        return _valuation_sign(valuation, condition.op == "<", condition)
    if isinstance(condition, BoolOp):
        return BoolOp(condition.op, tuple(_as_emptiness(item, valuation) for item in condition.items))
    if isinstance(condition, TopSubset | VersusGroup):  # the stocks ranked (averaged) over: theirs too
        within = tuple(_as_emptiness(item, valuation) for item in condition.within)
        return replace(condition, within=within)
    if isinstance(condition, Not):  # 剔除亏损股: not without a P/E, i.e. with one
        item = _as_emptiness(condition.item, valuation)
        return item.item if isinstance(item, Not) else Not(item)
    return condition


def read_losses_by_valuation(screen: Screen) -> None:
    """A bare loss beside exactly one kind of P/E is that P/E's emptiness; the question's own report
    period, when it names one, is left alone (the loss already has it). A loss that restricts one
    aggregate of a P/E only (平均PE TTM（剔除亏损股）和平均市净率) is that P/E's emptiness."""
    named_period = screen.time.label in REPORT_TIME_LABELS
    if not named_period:
        screen.aggregates = [_own_loss_read(aggregate) for aggregate in screen.aggregates]
    valuations = [key for key in VALUATIONS if key in _metrics_read(screen)]
    valuation = valuations[0] if len(valuations) == 1 and not named_period else None
    screen.where = [_as_emptiness(condition, valuation) for condition in screen.where]


def _own_loss_read(aggregate: Aggregate) -> Aggregate:
    if aggregate.where is None or aggregate.metric not in VALUATIONS:
        return aggregate
    return replace(aggregate, where=_as_emptiness(aggregate.where, aggregate.metric))
