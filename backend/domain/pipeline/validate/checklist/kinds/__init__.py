"""One module per constraint kind, each with `extract(question) -> list[Constraint]` and a detail
dataclass whose `check(sql)` judges a candidate (sqlglot optimizer style: one small rule per module)."""

from __future__ import annotations

from collections.abc import Callable

from backend.domain.pipeline.validate.checklist.kinds import (
    additive,
    aggregate,
    annual_report,
    bar_relation,
    closing_high,
    column,
    conjunction,
    count,
    crossing,
    date,
    day_count,
    day_move,
    distinct,
    each_step,
    entity,
    every_period,
    group_subject,
    majority,
    month,
    negation,
    number,
    open_range,
    order,
    per_group,
    per_period,
    percentage,
    period_return,
    price_order,
    profit_sign,
    single_quarter,
    top_k,
    whole_list,
    whole_set,
    window,
)
from backend.domain.pipeline.validate.checklist.model import Constraint
from backend.domain.pipeline.validate.checklist.question import Question

Extractor = Callable[[Question], list[Constraint]]

EXTRACTORS: tuple[Extractor, ...] = (
    number.extract,
    date.extract,
    open_range.extract,
    window.extract,
    per_group.extract,
    per_period.extract,
    top_k.extract,
    aggregate.extract,
    distinct.extract,
    count.extract,
    percentage.extract,
    order.extract,
    every_period.extract,
    negation.extract,
    entity.extract,
    period_return.extract,
    annual_report.extract,
    bar_relation.extract,
    crossing.extract,
    column.extract,
    day_move.extract,
    additive.extract,
    closing_high.extract,
    whole_set.extract,
    conjunction.extract,
    single_quarter.extract,
    profit_sign.extract,
    majority.extract,
    whole_list.extract,
    day_count.extract,
    each_step.extract,
    month.extract,
    group_subject.extract,
    price_order.extract,
)
