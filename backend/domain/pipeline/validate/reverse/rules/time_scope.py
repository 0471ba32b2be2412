"""Is the time scope of the answer the one asked? Every trade_date (end_date for a report period) the
answer shows must be the day the question names, or the latest trading day when it names none."""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.reverse.model import (
    Decide,
    Judgement,
    ReverseCheck,
    broken,
    holds,
    unknown,
)
from backend.domain.pipeline.validate.reverse.subject import Subject, day_of


def _decider(column: str) -> Decide:
    def decide(r0: ResultRows, own: ResultRows) -> Judgement:
        asked = day_of(own.rows[0][0]) if own.rows else None
        if asked is None:
            return unknown("the day asked could not be read from the data")
        index = r0.columns.index(column)
        shown = {day_of(row[index]) for row in r0.rows}
        other = sorted(str(day) for day in shown if day != asked)
        if other:
            return broken(f"the answer shows {column} {', '.join(other[:3])}, the question asks {asked}")
        return holds(f"every {column} shown is {asked}")

    return decide


def build(subject: Subject) -> list[ReverseCheck]:
    reading, result = subject.reading, subject.result
    when = reading.when
    if not reading.clean or when is None or not result.rows:
        return []
    column = "end_date" if when.period else "trade_date"
    if column not in result.columns:
        return []
    sql = (
        f"SELECT max(trade_date) FROM {subject.table('daily')}"
        if when.day is None
        else f"SELECT toDate('{when.day.isoformat()}')"
    )
    return [
        ReverseCheck(
            rule="time_scope",
            text=subject.says(
                f"答案中的 {column} 是否都是{when.describe(True)}？",
                f"Is every {column} in the answer {when.describe(False)}?",
            ),
            sql=sql,
            criterion=subject.says(
                f"答案每一行的 {column} 都等于反查得到的日期",
                f"every row's {column} equals the day the reverse query gives",
            ),
            attribution=Attribution.TIME_SCOPE,
            decide=_decider(column),
        )
    ]
