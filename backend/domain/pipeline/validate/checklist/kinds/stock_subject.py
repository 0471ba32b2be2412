"""A question whose subject is stocks (哪些股票, 哪只, …的股票有哪些, which stocks, stocks that …, list the
companies …) asks for the stocks themselves: the answer's own SELECT shows a stock (its code or name).
Rows keyed by something else — one per day (GROUP BY trade_date: how many rose each day, when the stocks
that rose on every one of the days were asked), one per group, or a bare aggregate row (a count) —
answer another question, and fail.

Precision first: a question asking a figure (多少, how many, average, total, percent, share …), one whose
subject is a group or a day (group_subject's reading), or one naming no stocks as its subject is not
read; an answer that shows no stock but is neither grouped nor aggregated (a column of another kind, a
UNION, SELECT *) is undecidable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import group_subject, per_group
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name

_STOCK_NOUNS_EN = r"stocks|companies|names|shares|tickers|counters|equities"
_SUBJECT = re.compile(
    r"哪些(?:股票|公司|个股|标的)|哪(?:只|支)"
    # 哪些券商股, 哪些白酒股: stocks of a kind (never 哪些板块个股, whose subject is boards; nor 股价, 股息)
    r"|哪些(?:(?!行业|板块|交易所|地区|省|指数)[\u4e00-\u9fff]){1,6}?股(?![价息本权东])"
    r"|(?:的|之)[\u4e00-\u9fff]{0,4}?(?:股票|个股|股|公司|标的)(?:有哪些|是哪些|都有哪些|有什么)?\s*[？?。！!]*\s*$"
    rf"|^\s*(?:which|what)\s+(?:{_STOCK_NOUNS_EN})\b"
    rf"|^\s*(?:list|show|find|give|name|screen)\b(?:\s+(?:me|all|the|out|for))*\s+(?:{_STOCK_NOUNS_EN})\b"
    rf"|^\s*(?:{_STOCK_NOUNS_EN})\s+(?:that|which|whose|with|where)\b"
)
# a figure asked of the stocks (how many, their average, a share of them) or of their groups: not read
_FIGURE_ASKED = re.compile(
    r"多少|几只|几家|几个|数量|家数|个数|平均|均值|合计|总和|总计|总额|占比|比例|比重|分布|中位数|各行业|每个行业|按行业"
    r"|\b(?:how many|how much|number of|count|average|avg|mean|median|total|sum|percent|percentage"
    r"|share of|proportion|fraction|ratio|distribution|breakdown|tally)\b"
)
_STOCK_COLUMNS = frozenset({"ts_code", "con_code", "name", "symbol", "fullname", "code"})
_COUNTING = ("count", "uniq", "approxdistinct")


def _counted(column: exp.Column) -> bool:
    """The stock column is only counted (count(DISTINCT ts_code)): no stock is shown by it. Under any
    other aggregate (argMax(name, …), groupArray(ts_code)) a stock is still returned."""
    aggregate = column.find_ancestor(exp.AggFunc)
    return aggregate is not None and (
        isinstance(aggregate, (exp.Count, exp.CountIf)) or function_name(aggregate).startswith(_COUNTING)
    )


def _shows_stock(sql: Sql, select: exp.Select) -> bool:
    keys = set().union(*(columns_of(key) for key in per_group.group_keys(sql, select)))
    if keys & _STOCK_COLUMNS:
        return True  # one row per stock
    return any(
        column.name.lower() in _STOCK_COLUMNS and not _counted(column)
        for projection in select.expressions
        for column in sql.resolve(projection, select).find_all(exp.Column)
    )


@dataclass(frozen=True)
class StockSubjectDetail:
    kind: ClassVar[Kind] = Kind.STOCK_SUBJECT

    def check(self, sql: Sql) -> Finding:
        if not isinstance(sql.tree, exp.Select):
            return undecided("the SQL combines several queries; what each returns is not read")
        select = sql.tree
        if any(isinstance(projection, exp.Star) for projection in select.expressions):
            return undecided("the answer selects every column; whether a stock is among them is not read")
        if _shows_stock(sql, select):
            return passed("the answer shows the stocks")
        keys = set().union(*(columns_of(key) for key in per_group.group_keys(sql, select)))
        if keys:
            return failed(
                Attribution.GROUPING,
                f"the answer's rows are keyed by {', '.join(sorted(keys))}, not stocks; the question asks "
                "which stocks",
            )
        if select.expressions and all(projection.find(exp.AggFunc) for projection in select.expressions):
            return failed(
                Attribution.AGGREGATION,
                "the answer is one aggregate row and shows no stock; the question asks which stocks",
            )
        return undecided("the answer shows no stock column, but is neither grouped nor aggregated")


def extract(question: Question) -> list[Constraint]:
    match = _SUBJECT.search(question.text)
    if match is None or _FIGURE_ASKED.search(question.text) or group_subject.extract(question):
        return []
    span = question.span(*match.span())
    text = question.says(
        f"{span.text}：答案是股票本身（代码或名称）", f"{span.text}: the answer is the stocks themselves"
    )
    return [Constraint(span, text, question.lang, StockSubjectDetail())]
