"""A question about one named stock on one day or report period: does the answer speak of that stock
only (at most one row), or of many (a lost stock or date condition)? And are the values it shows
those stored for that stock and day (a wrong column or day shows here)?"""

from __future__ import annotations

import math

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, broken, holds, unknown
from backend.domain.pipeline.validate.reverse.reading import PERIOD_TABLES
from backend.domain.pipeline.validate.reverse.subject import Subject, code_list, number_of


def _decide(r0: ResultRows, own: ResultRows) -> Judgement:
    found = number_of(own.rows[0][0]) if own.rows else None
    if not found:
        return unknown("the named stock is not in stock_basic")
    if len(r0.rows) > found:
        return broken(f"{len(r0.rows)} rows for one stock on one day")
    return holds(f"{len(r0.rows)} row(s) for the one stock named")


def build(subject: Subject) -> list[ReverseCheck]:
    reading = subject.reading
    named = [s for s in reading.scopes if s.column in ("symbol", "ts_code") and not s.negated]
    if (
        not reading.clean
        or not reading.one_day
        or len(named) != 1
        or len(named[0].values) != 1
        or reading.group is not None
        or reading.ranking is not None
    ):
        return []
    scope = named[0]
    basic = subject.table("stock_basic")
    sql = f"SELECT count() FROM {basic} WHERE {scope.column} IN {code_list(scope.values)}"
    return [
        ReverseCheck(
            rule="lookup",
            text=subject.says(
                f"答案是否只关于“{scope.text}”这一只股票（一天一行）？",
                f"Is the answer about “{scope.text}” only (one row for its one day)?",
            ),
            sql=sql,
            criterion=subject.says("答案行数不超过反查到的股票数（1）", "no more rows than stocks found (1)"),
            attribution=Attribution.ENTITY_MAPPING,
            decide=_decide,
        )
    ]


def _shown(expected: float, row: tuple[object, ...] | list[object]) -> bool:
    """The value, in the stored unit or scaled by a power of ten (亿, 万, billion…), is in the row."""
    if expected == 0:
        return any(number_of(cell) == 0 for cell in row)
    for cell in row:
        value = number_of(cell)
        if value is not None and value != 0:
            ratio = math.log10(abs(value / expected))
            if value * expected > 0 and abs(ratio - round(ratio)) < 1e-6:
                return True
    return False


def _decide_values(r0: ResultRows, own: ResultRows) -> Judgement:
    if not own.rows:
        if r0.rows:
            return broken("the data holds no row for that stock on that day; the answer shows one")
        return holds("neither the data nor the answer has a row for that stock on that day")
    if not r0.rows:
        return broken("the answer has no row; the data holds one for that stock on that day")
    if len(r0.rows) != 1:
        return unknown(f"{len(r0.rows)} rows: the lookup check reads one")
    shown = list(r0.rows[0])
    expected = [(column, number_of(value)) for column, value in zip(own.columns, own.rows[0], strict=True)]
    missing = [column for column, value in expected if value is not None and not _shown(value, shown)]
    if missing:
        return broken(f"the answer does not show {', '.join(missing)} as stored for that stock and day")
    return holds(f"the answer shows {', '.join(column for column, _ in expected)} as stored")


def build_values(subject: Subject) -> list[ReverseCheck]:
    """The values asked of one named stock, read back from raw rows."""
    reading = subject.reading
    named = [s for s in reading.scopes if s.column in ("symbol", "ts_code") and not s.negated]
    tables = {table for _, table in reading.asked}
    when = reading.when
    if (
        not reading.clean
        or not reading.one_day
        or when is None
        or len(named) != 1
        or len(named[0].values) != 1
        or len(tables) != 1
        or reading.aggregate is not None
        or reading.count
        or reading.ranking is not None
    ):
        return []
    table = tables.pop()
    if (table in PERIOD_TABLES) != when.period:
        return []
    condition = subject.scope_condition(named[0], when, "t.ts_code")
    date_column = "end_date" if when.period else "trade_date"
    columns = ", ".join(f"t.{column} AS {column}" for column, _ in reading.asked)
    sql = (
        f"SELECT {columns} FROM {subject.table(table)} AS t "
        f"WHERE t.{date_column} = {when.trade_day_sql(subject.database)} AND {condition}"
    )
    asked = ", ".join(column for column, _ in reading.asked)
    return [
        ReverseCheck(
            rule="lookup_values",
            text=subject.says(
                f"从原始行读回“{named[0].text}”的 {asked}（{when.describe(True)}），答案是否一致？",
                f"Read back from raw rows, does the answer show {asked} of “{named[0].text}” "
                f"({when.describe(False)})?",
            ),
            sql=sql,
            criterion=subject.says(
                "答案那一行含有每个读回的数值（按存储单位或按 10 的幂换算）",
                "the answer's row holds every value read back (stored unit or scaled by a power of ten)",
            ),
            attribution=Attribution.CONDITION,
            decide=_decide_values,
        )
    ]
