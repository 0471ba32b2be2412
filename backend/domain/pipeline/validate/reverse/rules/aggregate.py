"""Recompute an aggregate from raw rows — the whole set's, or a sample of groups' — and compare it
with the answer (in the stored unit, or in the unit the question asks for)."""

from __future__ import annotations

from backend.domain.language.semantic import default_model
from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.kinds.aggregate import Function
from backend.domain.pipeline.validate.reverse.model import (
    Decide,
    Judgement,
    ReverseCheck,
    broken,
    holds,
    unknown,
)
from backend.domain.pipeline.validate.reverse.reading import PERIOD_TABLES
from backend.domain.pipeline.validate.reverse.subject import Subject, close_to, code_list, number_of

SAMPLE = 3  # groups recomputed: the first, middle and last of the answer


def _factor(column: str, scale: float | None) -> float:
    """Shown value per stored value: 1, or e.g. 1e4 / 1e8 for total_mv (万元) asked in 亿元."""
    if scale is None:
        return 1.0
    stored = next(
        (
            m.stored_unit.factor
            for m in default_model().metrics.values()
            if m.column == column and not m.expression
        ),
        1.0,
    )
    return stored / scale


def _matches(row: tuple[object, ...] | list[object], expected: float) -> bool:
    return any(value is not None and close_to(value, expected) for value in (number_of(c) for c in row))


def _whole(factor: float) -> Decide:
    def decide(r0: ResultRows, own: ResultRows) -> Judgement:
        value = number_of(own.rows[0][0]) if own.rows else None
        if value is None:
            return unknown("the recomputation gave no number")
        expected = value * factor
        if len(r0.rows) == 1 and _matches(list(r0.rows[0]), expected):
            return holds(f"the answer shows the recomputed {expected:.6g}")
        return broken(f"the recomputation gives {expected:.6g}; the answer does not show it")

    return decide


def _groups(column: int, factor: float) -> Decide:
    def decide(r0: ResultRows, own: ResultRows) -> Judgement:
        judged, wrong = 0, []
        for group, value in own.rows:
            number = number_of(value)
            if number is None:
                continue
            rows = [row for row in r0.rows if row[column] == group]
            judged += 1
            if len(rows) != 1 or not _matches(list(rows[0]), number * factor):
                wrong.append(f"{group}: {number * factor:.6g}")
        if not judged:
            return unknown("no sampled group has a value to recompute")
        if wrong:
            return broken(f"recomputed values the answer does not show: {'; '.join(wrong)}")
        return holds(f"{judged} sampled group(s) match the recomputation")

    return decide


def build(subject: Subject) -> list[ReverseCheck]:
    reading, result = subject.reading, subject.result
    when, aggregate = reading.when, reading.aggregate
    if not reading.complete or when is None or aggregate is None or reading.count:
        return []
    if (aggregate.table in PERIOD_TABLES) != when.period or not result.rows:
        return []
    conditions = subject.universe(when, column="t.ts_code")
    if conditions is None:
        return []
    function = "avg" if aggregate.function is Function.AVERAGE else "sum"
    table = subject.table(aggregate.table)
    date_column = "end_date" if when.period else "trade_date"
    where = [f"t.{date_column} = {when.trade_day_sql(subject.database)}", *conditions]
    factor = _factor(aggregate.column, reading.output_scale)
    what = f"{function}({aggregate.column})"
    if reading.group is None:
        if len(result.rows) != 1:
            return []  # several rows for one aggregate: the answer reads the question another way
        sql = f"SELECT {function}(t.{aggregate.column}) FROM {table} AS t WHERE {' AND '.join(where)}"
        text = subject.says(
            f"从原始行重新计算 {what}（{when.describe(True)}），是否与答案一致？",
            f"Recomputed from raw rows, does {what} ({when.describe(False)}) match the answer?",
        )
        decide = _whole(factor)
    else:
        if reading.group not in result.columns:
            return []
        column = result.columns.index(reading.group)
        values = sorted({str(row[column]) for row in result.rows if isinstance(row[column], str)})
        if not values:
            return []
        sample = sorted({values[0], values[len(values) // 2], values[-1]})[:SAMPLE]
        basic = subject.table("stock_basic")
        where.append(f"s.{reading.group} IN {code_list(sample)}")
        sql = (
            f"SELECT s.{reading.group} AS g, {function}(t.{aggregate.column}) AS v FROM {table} AS t "
            f"INNER JOIN {basic} AS s ON s.ts_code = t.ts_code WHERE {' AND '.join(where)} "
            "GROUP BY g ORDER BY g"
        )
        text = subject.says(
            f"抽查 {'、'.join(sample)}：从原始行重新计算 {what}（{when.describe(True)}），是否与答案一致？",
            f"For {', '.join(sample)}: recomputed from raw rows, does {what} ({when.describe(False)}) "
            "match the answer?",
        )
        decide = _groups(column, factor)
    return [
        ReverseCheck(
            rule="aggregate",
            text=text,
            sql=sql,
            criterion=subject.says(
                "答案显示的数值与重新计算的结果相同（相对误差 1e-6）",
                "the answer shows the recomputed value (relative tolerance 1e-6)",
            ),
            attribution=Attribution.AGGREGATION,
            decide=decide,
        )
    ]
