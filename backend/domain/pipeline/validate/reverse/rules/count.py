"""Recompute a count from raw rows: how many stocks meet every condition of a completely read question."""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, broken, holds, unknown
from backend.domain.pipeline.validate.reverse.subject import Subject, close_to, number_of


def _decide(r0: ResultRows, own: ResultRows) -> Judgement:
    expected = number_of(own.rows[0][0]) if own.rows else None
    if expected is None:
        return unknown("the recount gave no number")
    if len(r0.rows) != 1:
        return broken(f"the answer has {len(r0.rows)} rows, one count of {expected:g} was expected")
    shown = [value for value in (number_of(cell) for cell in r0.rows[0]) if value is not None]
    if any(close_to(value, expected) for value in shown):
        return holds(f"the answer shows the recounted {expected:g}")
    written = ", ".join(f"{value:g}" for value in shown) or "no number"
    return broken(f"the recount gives {expected:g}, the answer shows {written}")


def build(subject: Subject) -> list[ReverseCheck]:
    reading = subject.reading
    when = reading.when
    if (
        not reading.complete
        or when is None
        or not reading.count
        or not reading.filters  # a scope alone leaves open which of its stocks count (listed? traded?)
        or reading.group is not None
        or reading.aggregate is not None
    ):
        return []
    conditions = subject.universe(when)
    if conditions is None:
        return []
    sql = f"SELECT count() FROM {subject.table('stock_basic')} WHERE {' AND '.join(conditions)}"
    return [
        ReverseCheck(
            rule="count",
            text=subject.says(
                f"从原始数据重新数一遍：满足全部条件的股票有几只（{when.describe(True)}）？",
                f"Recounted from raw rows: how many stocks meet every condition ({when.describe(False)})?",
            ),
            sql=sql,
            criterion=subject.says(
                "答案显示的数量等于重新数出的数量", "the answer shows the recounted number"
            ),
            attribution=Attribution.AGGREGATION,
            decide=_decide,
        )
    ]
