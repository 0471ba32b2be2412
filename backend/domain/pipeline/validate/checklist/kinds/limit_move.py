"""A limit-up or limit-down day (涨停/跌停, limit-up, hit the daily limit) is a close at the limit price.

The limit price is the previous close moved by the board's limit and rounded to the cent
(round(pre_close × 1.1, 2) on the main board), so the SQL compares the close with an expression of
pre_close (or their distance with a rounded limit price). A fixed daily change instead (pct_chg >= 9.9,
close / pre_close >= 1.1) misses limit closes that round below the limit and counts moves past it on
boards with a wider one: it fails. Over the whole market (no board, industry, stock or limit size named, no
board or code read in the SQL), one fixed ratio for every row (round(pre_close × 1.1, 2)) applies the
main board's limit to ChiNext, STAR and Beijing stocks too: it fails.
Neither written (a stored flag, arrays): not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.entities import ENTITY_CATEGORIES, stock_names
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
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    enclosing_select,
    function_name,
)
from backend.domain.pipeline.validate.checklist.vocabulary import Category

_CUE = re.compile(r"涨停|跌停|\blimit[- ](?:up|down)s?\b|\bdaily (?:price )?limit\b")
_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ)
_CHANGES = {"pct_chg", "change", "pct_change"}
# A daily move this large is a limit read as a threshold (the smallest limit is 5%, ST stocks).
_LIMIT_SIZE = 4.5
# Columns or literals by which the SQL may keep to one board (market = '主板', ts_code LIKE '60%').
_BOARD_COLUMNS = {"market", "exchange", "board", "list_board"}
# a code, code prefix or pattern — not a date
_CODE_LITERAL = re.compile(r"%|\.(?:sh|sz|bj)$|^\d{1,6}$", re.IGNORECASE)
_CONDITIONAL = (exp.If, exp.Case)
# A percentage named in the question: the limit size is given (按10%涨停算).
_SIZE_NAMED = re.compile(r"\d\s*(?:%|％|percent)")


def _fixed_ratio(limit: exp.Expr) -> bool:
    """A limit price of the previous close alone times constants, with no per-board choice."""
    if columns_of(limit) != {"pre_close"} or any(limit.find_all(*_CONDITIONAL)):
        return False
    if any(function_name(f) in {"multiif", "if", "transform"} for f in limit.find_all(exp.Func)):
        return False
    return any(n.is_number for n in limit.find_all(exp.Literal))


def _keeps_to_board(sql: Sql) -> bool:
    columns = {column.name.lower() for column in sql.tree.find_all(exp.Column)}
    literals = (lit.this for lit in sql.tree.find_all(exp.Literal) if lit.is_string)
    return bool(columns & _BOARD_COLUMNS) or any(_CODE_LITERAL.search(value) for value in literals)


def _reads_close(columns: set[str]) -> bool:
    return "close" in columns


def _sides(sql: Sql, node: exp.Binary) -> tuple[set[str], set[str]]:
    select = enclosing_select(node)
    return (
        columns_of(sql.resolve(node.this, select)),
        columns_of(sql.resolve(node.expression, select)),
    )


# The daily limit of each board (ST stocks aside): ChiNext and STAR 20%, Beijing 30%, the main board 10%.
_BOARD_LIMITS = {"创业板": 0.2, "科创板": 0.2, "北交所": 0.3, "BSE": 0.3, "主板": 0.1}
_LIMIT_SIZES = (0.05, 0.1, 0.2, 0.3)


def _board_ratio(limit: exp.Expr, size: float) -> Finding | None:
    """A fixed ratio written for the board named (round(pre_close * 0.8, 2) on ChiNext) passes; one
    written for another board's limit (× 0.9 there) fails; anything else is not read here."""
    numbers = [float(n.this) for n in limit.find_all(exp.Literal) if n.is_number]

    def writes(limit_size: float) -> bool:
        forms = (1 + limit_size, 1 - limit_size, limit_size, 100 * limit_size)
        return any(abs(number - form) < 1e-9 for number in numbers for form in forms)

    if writes(size):
        return passed("the limit price is computed with the named board's limit")
    other = next((other for other in _LIMIT_SIZES if other != size and writes(other)), None)
    if other is None:
        return None
    return failed(
        Attribution.CONDITION,
        f"the limit price is computed with a {other:.0%} limit; the board named moves {size:.0%}",
    )


@dataclass(frozen=True)
class LimitMoveDetail:
    kind: ClassVar[Kind] = Kind.LIMIT_MOVE

    whole_market: bool = False  # no board, stock or limit size named: every board's own limit applies
    board_limit: float | None = None  # the one limit of the boards named (创业板: 0.2), no ST, no size

    def _one_limit(self, sql: Sql, limit: exp.Expr) -> Finding | None:
        if self.board_limit is not None and _fixed_ratio(limit):
            return _board_ratio(limit, self.board_limit)
        if not self.whole_market or not _fixed_ratio(limit) or _keeps_to_board(sql):
            return None
        return failed(
            Attribution.CONDITION,
            "one fixed limit ratio is applied to every board; ChiNext and STAR move 20%, Beijing 30%",
        )

    def check(self, sql: Sql) -> Finding:
        for node in sql.tree.find_all(*_COMPARISONS):
            left, right = _sides(sql, node)
            if (_reads_close(left) and "pre_close" in right) or (_reads_close(right) and "pre_close" in left):
                select = enclosing_select(node)
                limit = sql.resolve(node.expression if _reads_close(left) else node.this, select)
                one = self._one_limit(sql, limit)
                if one is not None:
                    return one
                return passed("the close is compared with a limit price computed from the previous close")
        for comparison in sql.comparisons:
            # abs(close - round(pre_close * 1.1, 2)) < 0.005: the distance to the rounded limit price
            rounded = any(function_name(f) == "round" for f in comparison.subject.find_all(exp.Func))
            if rounded and {"close", "pre_close"} <= columns_of(comparison.subject):
                prices = [f for f in comparison.subject.find_all(exp.Func) if function_name(f) == "round"]
                one = next((f for f in (self._one_limit(sql, p) for p in prices) if f is not None), None)
                if one is not None:
                    return one
                return passed("the close is compared with a rounded limit price of the previous close")
        for comparison in sql.comparisons:
            columns, number = columns_of(comparison.subject), comparison.number
            if number is None or not (columns & _CHANGES or {"close", "pre_close"} <= columns):
                continue
            # close / pre_close >= 1.099 is a move of 9.9 points, like pct_chg >= 9.9
            ratio = not columns & _CHANGES and 0 < number < 2
            if (abs(number - 1) * 100 if ratio else abs(number)) >= _LIMIT_SIZE:
                return failed(
                    Attribution.CONDITION,
                    f"the limit is read as a daily change {comparison.op} {comparison.number:g}; a limit day "
                    "closes at round(pre_close × (1 ± limit), 2), the board's limit",
                )
        return undecided("no limit price and no daily change threshold is read")


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：收盘价等于涨跌停价（前收盘按板块涨跌幅限制取整）",
        f"“{span.text}”: the close at the limit price (the previous close moved by the board's limit)",
    )
    # any entity (an industry may sit on the main board alone): not read as the whole market
    named = question.hits_of(*ENTITY_CATEGORIES) or stock_names(question)
    size_named = _SIZE_NAMED.search(question.text) is not None
    whole = not named and not size_named
    limits = {_BOARD_LIMITS.get(hit.key) for hit in question.hits_of(Category.BOARD, Category.EXCHANGE)}
    one_board = (
        len(limits) == 1 and None not in limits and not question.hits_of(Category.ST) and not size_named
    )
    return [
        Constraint(span, text, question.lang, LimitMoveDetail(whole, limits.pop() if one_board else None))
    ]
