"""Does the answer list each stock once, and only stocks that exist? A question that asks which stocks
— not a series per day, per group or of a named stock — lists each once: a stock listed twice means
a join that repeats it or a lost date condition; a code that is no stock, a join on the wrong table.
The rest of the question need not be read."""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, broken, holds
from backend.domain.pipeline.validate.reverse.subject import Subject, code_column, code_list


def _decide(r0: ResultRows, own: ResultRows) -> Judgement:
    index = code_column(r0)
    codes = [str(row[index]) for row in r0.rows] if index is not None else []
    distinct = set(codes)
    if len(codes) != len(distinct):
        return broken(f"{len(codes)} rows for {len(distinct)} stocks: some stocks are listed twice")
    known = {str(row[0]) for row in own.rows}
    unknown = sorted(distinct - known)
    if unknown:
        return broken(f"code(s) that are no stock in stock_basic: {', '.join(unknown[:5])}")
    return holds(f"{len(codes)} rows, {len(distinct)} different known stocks")


def build(subject: Subject) -> list[ReverseCheck]:
    reading, codes = subject.reading, subject.codes
    if reading.series or not codes or not subject.lists_stocks:
        return []
    sql = (
        f"SELECT ts_code FROM {subject.table('stock_basic')} "
        f"WHERE ts_code IN {code_list(sorted(set(codes)))} ORDER BY ts_code"
    )
    return [
        ReverseCheck(
            rule="duplicates",
            text=subject.says(
                "返回的每一行是否是不同的、存在的股票？",
                "Is each returned row a different stock that exists?",
            ),
            sql=sql,
            criterion=subject.says(
                "行数 = 不同代码数 = 在 stock_basic 中找到的代码数",
                "rows = distinct codes = codes found in stock_basic",
            ),
            attribution=Attribution.CONDITION,
            decide=_decide,
        )
    ]
