"""Does a returned stock violate a threshold the question sets (on the day or report period asked)?

Equality is never held against the answer: 不低于 and 超过 read the same here, so a stock exactly on
the threshold is not a violation.
"""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, broken, holds
from backend.domain.pipeline.validate.reverse.reading import PERIOD_TABLES
from backend.domain.pipeline.validate.reverse.subject import Subject, code_list

SHOWN = 5


def _decide(r0: ResultRows, own: ResultRows) -> Judgement:
    if not own.rows:
        return holds("every returned stock meets the threshold")
    shown = ", ".join(f"{row[0]} ({row[1]})" for row in own.rows[:SHOWN])
    return broken(f"{len(own.rows)} returned stock(s) violate it: {shown}")


def build(subject: Subject) -> list[ReverseCheck]:
    reading, codes = subject.reading, subject.codes
    if not reading.clean or reading.when is None or not codes or not subject.lists_stocks:
        return []
    when = reading.when
    checks = []
    for item in reading.filters:
        date_column = "end_date" if item.table in PERIOD_TABLES else "trade_date"
        sql = (
            f"SELECT ts_code, {item.column} FROM {subject.table(item.table)} AS f "
            f"WHERE f.{date_column} = {when.trade_day_sql(subject.database)} "
            f"AND f.ts_code IN {code_list(sorted(set(codes)))} AND {item.broken('f')} ORDER BY ts_code"
        )
        on = when.describe(subject.zh)
        checks.append(
            ReverseCheck(
                rule="filter_violation",
                text=subject.says(
                    f"有没有返回的股票在{on}不满足“{item.text}”？",
                    f"Does any returned stock fail “{item.text}” on {on}?",
                ),
                sql=sql,
                criterion=subject.says("反查结果为空", "the reverse query returns no row"),
                attribution=Attribution.CONDITION,
                decide=_decide,
            )
        )
    return checks
