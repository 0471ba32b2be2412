"""A count over named stocks or groups answered with no rows (主板、创业板、科创板、北交所各有多少只涨停).
A count of nothing is 0 — one row, or a row of 0 per named group — so an empty answer shows no number
for what the question names. It may still be right when a grouped count leaves out groups with
nothing in them, so it is undecidable — unless what is named holds no stock. A count naming nothing
(per industry, only industries with more than 10) may rightly keep no group: not judged."""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.empty_result import NOTHING_QUALIFIES
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, holds, unknown
from backend.domain.pipeline.validate.reverse.subject import Subject, number_of


def _decide(r0: ResultRows, own: ResultRows) -> Judgement:
    stocks = number_of(own.rows[0][0]) if own.rows else None
    if stocks is None:
        return unknown("the named stocks could not be counted")
    if stocks == 0:
        return holds("the stocks named hold none: there is nothing to count")
    return unknown(
        f"the stocks named hold {stocks:g}, the count asked of them shows no row "
        "(a count of nothing is 0, not no rows)"
    )


def build(subject: Subject) -> list[ReverseCheck]:
    reading = subject.reading
    if not reading.count or subject.result.rows:
        return []
    # Any one of the named groups has something to count.
    named = [subject.scope_condition(scope, reading.when) for scope in reading.scopes if not scope.negated]
    if not named or None in named:
        return []
    where = " OR ".join(str(condition) for condition in named)
    return [
        ReverseCheck(
            rule="empty_count",
            text=subject.says(
                "答案没有行：问题所说的股票里是否有可数的？",
                "The answer has no rows: do the stocks the question names hold anything to count?",
            ),
            sql=f"SELECT count() FROM {subject.table('stock_basic')} WHERE {where}",
            criterion=subject.says(
                "问题所说的股票为空（计数为 0 时也应显示 0）",
                "the stocks named are none (a count of 0 is still shown as 0)",
            ),
            attribution=Attribution.AGGREGATION,
            decide=_decide,
            point=NOTHING_QUALIFIES,  # the stocks named holding none is a reading that nothing qualifies
        )
    ]
