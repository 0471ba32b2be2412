"""Is each returned stock inside the scope the question names (industry, exchange, board, index on
that date, ST, a named stock) — or outside the one it excludes? A scope is a necessary condition
whatever else the question asks (a window, a moving average…), unless the question offers
alternatives or compares with the entity instead of keeping to it (reading.scope_clean)."""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, broken, holds
from backend.domain.pipeline.validate.reverse.subject import Subject, code_list

SHOWN = 5


def _decide(r0: ResultRows, own: ResultRows) -> Judgement:
    if not own.rows:
        return holds("no returned stock lies outside the scope")
    outside = ", ".join(str(row[0]) for row in own.rows[:SHOWN])
    return broken(f"{len(own.rows)} returned stock(s) outside the scope: {outside}")


def build(subject: Subject) -> list[ReverseCheck]:
    reading, codes = subject.reading, subject.codes
    if not reading.scope_clean or not codes:
        return []
    checks = []
    for scope in reading.scopes:
        condition = subject.scope_condition(scope, reading.when)
        if condition is None:
            continue
        sql = (
            f"SELECT DISTINCT ts_code FROM {subject.table('stock_basic')} "
            f"WHERE ts_code IN {code_list(sorted(set(codes)))} AND NOT {condition} ORDER BY ts_code"
        )
        on = (
            reading.when.describe(subject.zh)
            if reading.when is not None
            else subject.says("所问时间", "the time asked")
        )
        if scope.negated:
            text = subject.says(
                f"返回的股票中有没有属于“{scope.text}”的（{on}）？",
                f"Does any returned stock belong to “{scope.text}” ({on})?",
            )
        else:
            text = subject.says(
                f"有没有返回的股票不属于“{scope.text}”（{on}）？",
                f"Is any returned stock outside “{scope.text}” ({on})?",
            )
        checks.append(
            ReverseCheck(
                rule="scope",
                text=text,
                sql=sql,
                criterion=subject.says("反查结果为空", "the reverse query returns no row"),
                attribution=Attribution.ENTITY_MAPPING,
                decide=_decide,
            )
        )
    return checks
