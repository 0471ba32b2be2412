"""Is there a better candidate outside a top k? The answer may hold at most k stocks, and no stock in
the question's scope and filters may rank strictly better than the worst one returned (ties are not
held against it); with fewer than k returned, no qualifying stock may be left out at all."""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.reverse.model import Decide, Judgement, ReverseCheck, broken, holds
from backend.domain.pipeline.validate.reverse.reading import PERIOD_TABLES
from backend.domain.pipeline.validate.reverse.subject import Subject, code_column, code_list

SHOWN = 5


def _decider(k: int) -> Decide:
    def decide(r0: ResultRows, own: ResultRows) -> Judgement:
        index = code_column(r0)
        returned = {row[index] for row in r0.rows} if index is not None else set()
        if len(returned) > k:
            return broken(f"{len(returned)} stocks returned, the question asks for {k}")
        if own.rows:
            shown = ", ".join(f"{row[0]} ({row[1]})" for row in own.rows[:SHOWN])
            return broken(f"better candidate(s) not returned: {shown}")
        return holds(f"no stock outside the answer ranks better than the {len(returned)} returned")

    return decide


def build(subject: Subject) -> list[ReverseCheck]:
    reading, codes = subject.reading, subject.codes
    ranking, when = reading.ranking, reading.when
    if not reading.complete or when is None or ranking is None or codes is None or not subject.lists_stocks:
        return []
    if (ranking.table in PERIOD_TABLES) != when.period:
        return []
    conditions = subject.universe(when, column="t.ts_code")
    if conditions is None:
        return []
    table = subject.table(ranking.table)
    date_column = "end_date" if when.period else "trade_date"
    day = when.trade_day_sql(subject.database)
    column = ranking.column
    returned = sorted(set(codes))
    where = [f"t.{date_column} = {day}", f"t.{column} IS NOT NULL", *conditions]
    if returned:
        where.append(f"t.ts_code NOT IN {code_list(returned)}")
    if len(returned) >= ranking.k:
        edge = "min" if ranking.descending else "max"
        better = ">" if ranking.descending else "<"
        where.append(
            f"t.{column} {better} (SELECT {edge}(e.{column}) FROM {table} AS e "
            f"WHERE e.{date_column} = {day} AND e.ts_code IN {code_list(returned)})"
        )
    direction = "DESC" if ranking.descending else "ASC"
    sql = (
        f"SELECT t.ts_code, t.{column} FROM {table} AS t WHERE {' AND '.join(where)} "
        f"ORDER BY t.{column} {direction}, t.ts_code LIMIT {SHOWN}"
    )
    side = subject.says("更高" if ranking.descending else "更低", "higher" if ranking.descending else "lower")
    return [
        ReverseCheck(
            rule="top_k",
            text=subject.says(
                f"前{ranking.k}名之外，有没有 {column} {side}的符合条件的股票？（{when.describe(True)}）",
                f"Outside the top {ranking.k}, is there a qualifying stock with a {side} {column} "
                f"({when.describe(False)})?",
            ),
            sql=sql,
            criterion=subject.says(
                f"至多返回 {ranking.k} 只股票，且反查结果为空",
                f"at most {ranking.k} stocks are returned and the reverse query returns no row",
            ),
            attribution=Attribution.TOP_K,
            decide=_decider(ranking.k),
        )
    ]
