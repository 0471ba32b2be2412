"""Order of the answer: 从高到低 / descending / from worst to best, and 排名 / rank … by → the final ORDER BY.

The outermost SELECT must order its rows; with a direction, its ranking key (the metric named near
the cue, else the first key that is not a group column or a ts_code tie-break) must run that way.
"From worst to best" ranks performance (pct_chg) when no metric is named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    OrderKey,
    Sql,
    columns_of,
    direction,
    first_argument,
    function_name,
    is_date_column,
    number_value,
    price_end,
    strip,
)

_DESCENDING = re.compile(
    r"从高到低|由高到低|从大到小|由大到小|降序|倒序"
    r"|\b(?:from (?:the )?highest to (?:the )?lowest|from high to low|from largest to smallest"
    r"|from best to worst|in descending order|descending|highest first|largest first)\b"
)
_ASCENDING = re.compile(
    r"从低到高|由低到高|从小到大|由小到大|升序|正序"
    r"|\b(?:from (?:the )?lowest to (?:the )?highest|from low to high|from smallest to largest"
    r"|from worst to best|in ascending order|ascending|lowest first|smallest first)\b"
)
# Time order of the rows: the key is a date, whatever metric is named.
_LATER_FIRST = re.compile(
    r"从近到远|由近及远|从晚到早|由晚到早|最新的在前|日期降序|时间倒序"
    r"|\b(?:newest first|latest first|most recent first|in reverse chronological order)\b"
)
_EARLIER_FIRST = re.compile(
    r"从早到晚|由早到晚|从远到近|由远及近|按时间顺序|按日期顺序|日期升序|时间顺序|时间正序"
    r"|\b(?:oldest first|earliest first|in chronological order|chronologically)\b"
)
# "X first": a superlative before "first" / 排(在)前面 says which end of the ranking leads the rows.
_FIRST_DESCENDING = re.compile(
    r"(?:最高|最大|最多|最强|最快|最好)的?(?:排|放|列)在?最?前(?:面|头)?"
    r"|\b(?:highest|largest|biggest|greatest|best|strongest|fastest|top)(?: [a-z/\-]+){0,3}? first\b"
)
_FIRST_ASCENDING = re.compile(
    r"(?:最低|最小|最少|最弱|最慢|最差)的?(?:排|放|列)在?最?前(?:面|头)?"
    r"|\b(?:lowest|smallest|least|weakest|slowest|worst|cheapest)(?: [a-z/\-]+){0,3}? first\b"
)
# A fall ranked (跌得最多的排前面, biggest losers first): which way its key runs is not read here.
_FALL = re.compile(r"跌|降|亏|下滑|回撤|\b(?:loss|losses|losers?|drops?|falls?|declines?|decliners?)\b")
_RANKED = re.compile(r"排名|排序|排行|排列|\b(?:rank|ranked|ranking|sort|sorted|order by|ordered by)\b")
_PERFORMANCE = re.compile(r"worst|best")
# A code or a name as what the rows are sorted by (按代码排序, alphabetically, by ticker).
_BY_CODE = re.compile(
    r"代码|名称|名字|拼音|字母"
    r"|\b(?:codes?|tickers?|symbols?|alphabetical(?:ly)?|by (?:their )?names?)\b",
    re.IGNORECASE,
)
_SAME_WAY = {"round", "avg", "sum", "max", "min", "median", "quantile", "any", "anylast", "tofloat64"}
_TIE_BREAKS = {"ts_code", "name", "symbol", "con_code"}
_RANK_FUNCTIONS = (exp.RowNumber, exp.Rank, exp.DenseRank)


@dataclass(frozen=True)
class OrderDetail:
    kind: ClassVar[Kind] = Kind.ORDER
    descending: bool | None  # of the metric; None when the question only asks for an order
    columns: frozenset[str]  # the metric ordered by; empty when none is named
    by_date: bool = False  # a time order (oldest first): the key is a date column
    # A ranking asked with no code or name word (sorted by that growth, 按涨幅排序): a figure leads the
    # order, so rows ordered by the code alone are not the ranking asked.
    by_figure: bool = False

    def check(self, sql: Sql) -> Finding:
        tree = sql.tree
        if not isinstance(tree, exp.Select):
            return undecided("the order of a combined query is not read")
        order = tree.args.get("order")
        if not isinstance(order, exp.Order):
            if any(isinstance(w.this, _RANK_FUNCTIONS) for w in tree.find_all(exp.Window)):
                return undecided("the rows carry a rank but are not ordered by it")
            # A subquery's ORDER BY … LIMIT is a cut; one without LIMIT may be the order meant.
            if any(select.args.get("order") and not select.args.get("limit") for select in sql.selects):
                return undecided("only a subquery is ordered; whether the order survives is not read")
            return failed(Attribution.INTENT, "the question asks for an order, the result is not ordered")
        if self.descending is None:
            if self.by_figure and _only_tie_breaks(sql, tree, order):
                ranked = any(isinstance(w.this, _RANK_FUNCTIONS) for w in tree.find_all(exp.Window))
                if ranked or any(_ranks(sql, select) for select in sql.selects if select is not tree):
                    return undecided("a rank or a subquery orders by a figure; the result, by the code")
                return failed(Attribution.INTENT, "the result is ordered by the code alone, not by a figure")
            return passed("the result is ordered")
        key = self._key(sql, tree, order)
        if key is None:
            return undecided("the ordering key cannot be related to what the question ranks")
        columns = self.columns or frozenset(columns_of(key.expression) - _TIE_BREAKS)
        moves = 1 if self.by_date else direction(key.expression, columns, gain="pct_chg" in columns)
        if moves is None and not self.columns:
            moves = _figure_sign(key.expression)
        if moves is None:
            return undecided("which way the ordering key moves is not read")
        descending = key.descending if moves > 0 else not key.descending
        if descending == self.descending:
            return passed(f"the result is ordered {'descending' if descending else 'ascending'}")
        wanted = "descending" if self.descending else "ascending"
        return failed(Attribution.INTENT, f"the result is ordered the other way (the question asks {wanted})")

    def _key(self, sql: Sql, tree: exp.Select, order: exp.Order) -> OrderKey | None:
        grouped = set()
        for clause in (tree.args.get("group"), tree.args.get("limit")):
            for item in clause.expressions if isinstance(clause, exp.Group | exp.Limit) else []:
                grouped |= columns_of(sql.resolve(item, tree))
        keys = sql.order_keys(order, tree)
        if self.by_date:
            dated = (key for key in keys if any(map(is_date_column, columns_of(key.expression))))
            return next(dated, None)
        if self.columns:
            return next((key for key in keys if self.columns & columns_of(key.expression)), None)
        for key in keys:
            columns = columns_of(key.expression)
            if columns and not columns <= (grouped | _TIE_BREAKS):
                return key
        return None


def _ranks(sql: Sql, select: exp.Select) -> bool:
    """Whether the SELECT orders its rows by something other than a code or a name."""
    order = select.args.get("order")
    return isinstance(order, exp.Order) and not _only_tie_breaks(sql, select, order)


def _only_tie_breaks(sql: Sql, select: exp.Select, order: exp.Order) -> bool:
    return all(columns_of(key.expression) <= _TIE_BREAKS for key in sql.order_keys(order, select))


def _figure_sign(node: exp.Expr) -> int | None:
    """With no metric named the key is the figure ranked: a ratio of two columns (a multiple, a gain
    written c1 / c0 - 1) runs with itself; signs and constant offsets or factors are still read."""
    node = strip(node)
    if isinstance(node, exp.Column):
        return 1
    if isinstance(node, exp.Window) or function_name(node) in _SAME_WAY:
        first = node.this if isinstance(node, exp.Window) else first_argument(node)
        return None if first is None else _figure_sign(first)
    if isinstance(node, exp.Neg):
        inner = _figure_sign(node.this)
        return None if inner is None else -inner
    if not isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div):
        return None
    left, right = number_value(node.this), number_value(node.expression)
    if left is None and right is None:
        # two figures: a ratio is the figure itself (a multiple); a gain's ends, the later over the earlier
        if not isinstance(node, exp.Div):
            return None
        ends = (price_end(node.this), price_end(node.expression))
        return -1 if ends == ("first", "last") else 1
    if right is not None:
        inner = _figure_sign(node.this)
        flip = isinstance(node, exp.Mul | exp.Div) and right < 0
    else:
        inner = _figure_sign(node.expression)
        flip = isinstance(node, exp.Sub) or (isinstance(node, exp.Mul) and left is not None and left < 0)
        if isinstance(node, exp.Div):
            return None  # a constant over the figure runs the other way only where it keeps its sign
    return None if inner is None else (-inner if flip else inner)


def _clause_before(text: str, end: int) -> str:
    """The clause that ends at `end`: from the last comma or full stop before it."""
    start = max(text.rfind(mark, 0, end) for mark in "，,；;。？?！!")
    return text[start + 1 : end]


def _time_order(question: Question) -> Constraint | None:
    for pattern, descending in ((_LATER_FIRST, True), (_EARLIER_FIRST, False)):
        cue = question.first_cue(pattern)
        if cue is not None:
            span = question.span(cue.start(), cue.end())
            way = ("日期降序", "latest first") if descending else ("日期升序", "earliest first")
            text = question.says(f"“{span.text}”：结果按{way[0]}排列", f"“{span.text}”: rows {way[1]}")
            return Constraint(span, text, question.lang, OrderDetail(descending, frozenset(), by_date=True))
    return None


def extract(question: Question) -> list[Constraint]:
    in_time = _time_order(question)
    if in_time is not None:
        return [in_time]
    patterns = (
        (_DESCENDING, True),
        (_ASCENDING, False),
        (_FIRST_DESCENDING, True),
        (_FIRST_ASCENDING, False),
        (_RANKED, None),
    )
    for pattern, descending in patterns:
        cue = question.first_cue(pattern)
        if cue is None:
            continue
        leads = pattern in (_FIRST_DESCENDING, _FIRST_ASCENDING)
        if leads and _FALL.search(_clause_before(question.text, cue.end())):
            continue
        columns: frozenset[str] = frozenset()
        if descending is not None:
            reach = 12 if question.lang is Lang.ZH else 30
            inside = question.metric_after(cue.start(), reach) if leads else None
            bound = (
                inside
                if inside and inside[0].end <= cue.end()
                else question.metric_before(cue.start(), reach)
            )
            if bound is not None:
                columns = bound[1].columns
                descending = descending != bound[1].negated
            elif not leads and _PERFORMANCE.search(cue.group()):
                columns = frozenset({"pct_chg"})
        span = question.span(cue.start(), cue.end())
        way = {True: ("降序", "descending"), False: ("升序", "ascending"), None: ("有序", "ordered")}[
            descending
        ]
        text = question.says(f"“{span.text}”：结果{way[0]}排列", f"“{span.text}”: rows {way[1]}")
        by_figure = pattern is _RANKED and not _BY_CODE.search(question.text)
        detail = OrderDetail(descending, columns, by_figure=by_figure)
        return [Constraint(span, text, question.lang, detail)]
    return []
