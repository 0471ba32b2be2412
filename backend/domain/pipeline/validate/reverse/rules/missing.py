"""Is a qualifying stock missing from the answer? Only when the question is read completely: every
stock meeting all its conditions must be returned."""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.empty_result import NOTHING_QUALIFIES
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, broken, holds
from backend.domain.pipeline.validate.reverse.subject import Subject, code_list

SHOWN = 5


def _decide(r0: ResultRows, own: ResultRows) -> Judgement:
    if not own.rows:
        return holds("no stock meeting every condition is missing")
    shown = ", ".join(str(row[0]) for row in own.rows[:SHOWN])
    return broken(f"stock(s) meeting every condition but not returned: {shown}")


def build(subject: Subject) -> list[ReverseCheck]:
    reading, codes = subject.reading, subject.codes
    if (
        not reading.complete
        or reading.when is None
        or codes is None
        or not reading.filters  # a scope alone leaves open which of its stocks count (listed? traded?)
        or not subject.lists_stocks
        or reading.ranking is not None
    ):
        return []
    conditions = subject.universe(reading.when)
    if conditions is None:
        return []
    returned = f" AND ts_code NOT IN {code_list(sorted(set(codes)))}" if codes else ""
    sql = (
        f"SELECT ts_code FROM {subject.table('stock_basic')} WHERE {' AND '.join(conditions)}"
        f"{returned} ORDER BY ts_code LIMIT {SHOWN}"
    )
    return [
        ReverseCheck(
            rule="missing",
            text=subject.says(
                f"有没有满足全部条件（{reading.when.describe(True)}）却没有返回的股票？",
                f"Is a stock meeting every condition ({reading.when.describe(False)}) "
                "missing from the answer?",
            ),
            sql=sql,
            criterion=subject.says("反查结果为空", "the reverse query returns no row"),
            attribution=Attribution.CONDITION,
            decide=_decide,
            # on an empty answer, nothing found missing is a reading that nothing qualifies
            point=None if subject.result.rows else NOTHING_QUALIFIES,
        )
    ]
