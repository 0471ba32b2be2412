"""A loss maker said beside a P/E (各行业平均市盈率（剔除亏损股）, average PE ex loss-makers) is a company
whose P/E has no value because of a loss: the static P/E divides by the last annual profit, the TTM
P/E by the trailing four quarters' (a negative P/E, which the data never stores, is that loss too).
With no period of its own, the loss (or profit) is read on the earnings that P/E uses — not on the
latest report period, which a P/E never reads. Run by the assembly after the times are placed."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import (
    REPORT_TIME_LABELS,
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    Not,
    Screen,
    TimeSpec,
)
from backend.domain.language.parser.time_placement import compares_in

PROFIT = "n_income_attr_p"
# the earnings each P/E is computed on: the latest annual report, or the trailing four quarters
EARNINGS_OF = {"pe": (TimeSpec("annual"), None), "pe_ttm": (None, "ttm")}


def _metrics_read(screen: Screen) -> set[str]:
    """The measures the question shows, ranks or filters on (a group's aggregate of them too)."""
    read = {aggregate.metric for aggregate in screen.aggregates if aggregate.metric}
    read |= {compare.metric for compare in compares_in(screen.where)}
    if screen.order is not None:
        read.add(screen.order.metric.rsplit(":", 1)[-1])
    return read | set(screen.outputs)


def _is_bare_loss(condition: Compare) -> bool:
    """亏损 / 盈利 with no period nor window of its own: the sign of the net profit."""
    return (
        condition.metric == PROFIT
        and condition.op in {"<", ">"}
        and condition.value == 0
        and condition.other is None
        and condition.time is None
        and condition.agg is None
    )


def _dated(condition: Condition, time: TimeSpec | None, agg: str | None) -> Condition:
    if isinstance(condition, Compare) and _is_bare_loss(condition):
        return replace(condition, time=time, agg=agg)
    if isinstance(condition, BoolOp):
        return BoolOp(condition.op, tuple(_dated(item, time, agg) for item in condition.items))
    if isinstance(condition, Not):
        return Not(_dated(condition.item, time, agg))
    return condition


def _negative_pe_as_loss(condition: Condition) -> Condition:
    """市盈率为负 / negative P/E: the data stores no negative P/E (a loss leaves it empty), so the
    question asks for a loss on the earnings that P/E divides by (pe < 0 would answer nothing)."""
    if (
        isinstance(condition, Compare)
        and condition.metric in EARNINGS_OF
        and condition.other is None
        and condition.agg is None
        and condition.op in {"<", "<="}
        and condition.value == 0
    ):
        time, agg = EARNINGS_OF[condition.metric]
        return Compare(PROFIT, "<", 0.0, time=time, agg=agg, text=condition.text)
    if isinstance(condition, BoolOp):
        return BoolOp(condition.op, tuple(_negative_pe_as_loss(item) for item in condition.items))
    if isinstance(condition, Not):
        return Not(_negative_pe_as_loss(condition.item))
    return condition


def date_losses_by_valuation(screen: Screen) -> None:
    """A bare loss beside exactly one kind of P/E reads that P/E's earnings; the question's own report
    period, when it names one, is left alone (the loss already has it). A loss that restricts one
    aggregate of a P/E only (平均PE TTM（剔除亏损股）和平均市净率) reads that P/E's earnings."""
    screen.where = [_negative_pe_as_loss(condition) for condition in screen.where]
    if screen.time.label not in REPORT_TIME_LABELS:
        screen.aggregates = [_own_loss_dated(aggregate) for aggregate in screen.aggregates]
    valuations = [key for key in EARNINGS_OF if key in _metrics_read(screen)]
    if len(valuations) != 1 or screen.time.label in REPORT_TIME_LABELS:
        return
    time, agg = EARNINGS_OF[valuations[0]]
    screen.where = [_dated(condition, time, agg) for condition in screen.where]


def _own_loss_dated(aggregate: Aggregate) -> Aggregate:
    if aggregate.where is None or aggregate.metric not in EARNINGS_OF:
        return aggregate
    time, agg = EARNINGS_OF[aggregate.metric]
    return replace(aggregate, where=_dated(_negative_pe_as_loss(aggregate.where), time, agg))
