"""A day's rise or fall (上涨/下跌, rose/fell, closed higher than the day before) is measured against the
previous close, not against the day's open.

close > open is a candle's colour (收阳, closed above the open): a stock can open high, close below
its open and still be up on the day. When the question names neither the open nor a candle, a SQL
that compares the close with the open — and reads no move against the previous close (pct_chg,
change, pre_close) — answers another question. Comparisons the tree does not read as close-vs-open
pass; this kind judges that confusion, and a move asked of the price that nothing tests: no
comparison, ranking, aggregate or computed move reads the close or a change (they are only shown).
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
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, enclosing_select, number_value
from backend.domain.pipeline.validate.checklist.vocabulary import Category

_MOVE = re.compile(
    r"上涨|下跌|收涨|收跌|涨|跌"
    r"|\b(?:rose|rise|rises|risen|fell|fall|falls|fallen|gained|declined|advanced"
    r"|clos(?:e|ed|es|ing) (?:higher|lower|up|down)"
    r"|(?:higher|lower) than (?:the )?(?:day before|previous day)|(?:up|down) (?:days?|sessions?))\b",
    re.IGNORECASE,
)
_CANDLE = re.compile(r"阳线|阴线|收阳|收阴|红盘|绿盘|实体|\b(?:candle|candlestick|body|bullish|bearish)\b")
_AGAINST_PREVIOUS = {"pct_chg", "change", "pre_close"}
_PRICE_MEASURES = {"close", "pct_chg", "change", "pre_close", "open", "high", "low"}
_MOVES_READ = _AGAINST_PREVIOUS | {"close"}
_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE)


def _close_against_open(node: exp.Expr) -> bool:
    left, right = columns_of(node.this), columns_of(node.expression)
    apart = {frozenset(left), frozenset(right)} == {frozenset({"close"}), frozenset({"open"})}
    together = any(
        side == {"close", "open"} and number_value(other) is not None
        for side, other in ((left, node.expression), (right, node.this))
    )
    return apart or together


def _move_tested(sql: Sql) -> bool | None:
    """Whether a price or change decides anything: a comparison, an ORDER BY key, an aggregate or a
    computed move (a.close / b.close - 1) reads it (through aliases and subquery outputs). None when
    arrays or lambdas may test it unseen."""
    for node in sql.tree.find_all(*_COMPARISONS, exp.EQ, exp.NEQ, exp.Ordered, exp.AggFunc, exp.Sub, exp.Div):
        select = enclosing_select(node)
        if columns_of(sql.resolve(node, select)) & _MOVES_READ:
            return True
    if sql.tree.find(exp.Lambda) is not None or any(name.startswith("array") for name in sql.functions):
        return None
    return False


@dataclass(frozen=True)
class DayMoveDetail:
    kind: ClassVar[Kind] = Kind.DAY_MOVE
    of_price: bool = False  # no other measure moves (营收增长, revenue rose): the price's move is asked

    def check(self, sql: Sql) -> Finding:
        against_open = any(_close_against_open(node) for node in sql.tree.find_all(*_COMPARISONS))
        read = {column.name.lower() for column in sql.tree.find_all(exp.Column)}
        if against_open and not read & _AGAINST_PREVIOUS:
            return failed(
                Attribution.ENTITY_MAPPING,
                "the SQL compares the close with the open (the candle), not with the previous close",
            )
        if self.of_price and not read & (_AGAINST_PREVIOUS | {"close"}):
            return failed(Attribution.CONDITION, "the rise or fall asked is read nowhere: no price or change")
        if self.of_price and _move_tested(sql) is False:
            return failed(
                Attribution.CONDITION,
                "the rise or fall asked is tested nowhere: no comparison, ranking or aggregate reads a price "
                "or change (the columns are only shown)",
            )
        return passed("no rise or fall is read against the open")


def extract(question: Question) -> list[Constraint]:
    open_named = any(
        question.vocabulary.metrics[hit.key].columns & {"open"} for hit in question.hits_of(Category.METRIC)
    )
    if open_named or _CANDLE.search(question.text):
        return []
    # 涨 inside a metric word (涨幅) is no move; "close higher" starts with one and is
    cue = next(
        (
            m
            for m in _MOVE.finditer(question.text)
            if m.group().startswith("clos") or not question.covered(m.start())
        ),
        None,
    )
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：相对前一日收盘价，而非当日开盘价",
        f"“{span.text}”: against the previous close, not the day's open",
    )
    # the nearest metric before the move word is what moves ("net profit rose"): a price, or none
    bound = question.metric_before(cue.start(), 8 if question.lang is Lang.ZH else 30)
    of_price = bound is None or bool(bound[1].columns & _PRICE_MEASURES)
    return [Constraint(span, text, question.lang, DayMoveDetail(of_price))]
