"""Comparisons at the edge, decided with data: does a row exactly at the boundary change the answer?

- **a threshold's boundary**: 超过30 / more than 30 excludes 30, 至少30 / at least 30 includes it (the
  number constraint says which; 以上 and "between" do not say). When every comparison of the SQL with
  that number keeps the boundary the other way (count() >= 30 for "more than 30"), the candidate is
  run again with the boundary the question's way: a different result means rows sit exactly at the
  boundary and the answer counts them wrongly; the same result, that none does.
- **a move's boundary**: rose / 上涨 / closed higher is pct_chg > 0, fell / 下跌 is pct_chg < 0 — an
  unchanged stock is neither. pct_chg >= 0 where the question asks who rose is judged the same way.
  A move the other way (pct_chg < 0 where only a rise is asked) fails without data.
- **a month's ends**: a month named (2025年12月, December 2025) and a day bound that leaves out its first
  or last day (d > '2025-12-01', d < '2025-12-31') is rerun with the day included.
- **a negated threshold** (without ever falling more than 5%, 从未跌超5%) is not judged: the SQL may
  write the negated condition (countIf(pct_chg < -5) = 0, strict) or its complement (min(pct_chg) >= -5,
  not strict), and both are right.

Both read only the question's constraints and text, the candidate's tree and the data — never another
check's verdict.
"""

from __future__ import annotations

import re
import time
from calendar import monthrange
from collections.abc import Sequence
from datetime import date

from sqlglot import exp

from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution, Constraint
from backend.domain.pipeline.validate.checklist.kinds.month import MonthDetail
from backend.domain.pipeline.validate.checklist.kinds.number import NumberDetail
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    close,
    columns_of,
    date_value,
    number_value,
)
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check, own_rows

_STRICT_OF = {exp.GT: True, exp.LT: True, exp.GTE: False, exp.LTE: False}
_FLIPPED: dict[type[exp.Expr], type[exp.Binary]] = {
    exp.GT: exp.GTE,
    exp.GTE: exp.GT,
    exp.LT: exp.LTE,
    exp.LTE: exp.LT,
}
_MOVE_COLUMNS = {"pct_chg", "change"}
# A verb of the stock's move, not of a metric (成交量上涨, rising volume) and not with a number after
# it (上涨超过5%: the number's constraint), nor under a negation (没有下跌, never fell).
_NOT_PRICE = (
    r"成交量|成交额|换手|营收|收入|利润|市值|股息|volume|turnover|amount|revenue|profit|earnings|sales"
)
# 涨的/跌的 (涨的和跌的各有几只), up/down on a day, gainers/losers: moves said without a verb too.
_RISE = re.compile(
    r"上涨|收涨|收红|飘红|红盘|涨的"
    r"|\b(?:rose|rise|rises|risen|rising|closed? higher|closed? up|advanced|up days?|gainers?|advancers?"
    r"|up (?:today|yesterday|on the day|that day))\b"
)
_FALL = re.compile(
    r"下跌|收跌|收绿|飘绿|绿盘|跌的"
    r"|\b(?:fell|fall|falls|fallen|falling|closed? lower|closed? down|declined|down days?|losers?|decliners?"
    r"|down (?:today|yesterday|on the day|that day))\b"
)
_NEGATION = re.compile(r"(?:不|没有?|未|从未|\b(?:not|never|no|didn't|did not)\b)\s*$")
# A negation earlier in the number's clause (without ever falling more than 5%, 从未跌幅超过5%).
_NEGATED_CLAUSE = re.compile(
    r"(?:没有|没|从未|未曾|不曾|从不|\b(?:without|never|not|no|didn't|did not)\b)[^,.;，。；]*$"
)
_NUMBER_AFTER = re.compile(
    r"^\s*(?:了|幅度|幅)?\s*(?:超过|大于|高于|低于|小于|不到|逾|more|over|above|below|by|at least|\d)"
)


def _moves(question: str) -> tuple[bool, bool]:
    """(a rise is asked, a fall is asked), each read only where it can be judged."""
    text = question.lower()

    def asked(pattern: re.Pattern[str]) -> bool:
        for match in pattern.finditer(text):
            before, after = text[max(0, match.start() - 12) : match.start()], text[match.end() :]
            if _NEGATION.search(before) or _NUMBER_AFTER.match(after):
                continue
            if re.search(_NOT_PRICE, before[-6:]) or re.match(rf"\s*(?:{_NOT_PRICE})", after):
                continue
            return True
        return False

    return asked(_RISE), asked(_FALL)


def _comparisons(tree: exp.Expr) -> list[tuple[int, exp.Binary, exp.Expr, float, bool]]:
    """Each `subject OP number` of the tree, in walk order: (index, node, subject, number, the
    number on the left)."""
    found = []
    for index, node in enumerate(tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE)):
        assert isinstance(node, exp.Binary)
        right, left = number_value(node.expression), number_value(node.this)
        if right is not None and left is None:
            found.append((index, node, node.this, right, False))
        elif left is not None and right is None:
            found.append((index, node, node.expression, left, True))
    return found


def _negated(question: str, constraint: Constraint) -> bool:
    """The number's clause is under a negation: its condition or the complement may be written."""
    before = question[: constraint.span.start].lower()
    return _NEGATED_CLAUSE.search(before[-40:]) is not None


def _wrong_boundaries(
    question: str, constraints: Sequence[Constraint], sql: Sql, rise: bool, fall: bool
) -> set[int]:
    """Indexes of the comparisons that keep a boundary the other way from the question."""
    comparisons = _comparisons(sql.tree)
    wrong: set[int] = set()
    for constraint in constraints:
        detail = constraint.detail
        if not isinstance(detail, NumberDetail) or detail.strict is None or _negated(question, constraint):
            continue
        targets = detail.boundary_targets()
        at = [c for c in comparisons if any(close(c[3], target) for target in targets)]
        if at and all(_STRICT_OF[type(c[1])] != detail.strict for c in at):
            wrong |= {c[0] for c in at}
    if rise or fall:
        moves = [c for c in comparisons if c[3] == 0 and columns_of(c[2]) & _MOVE_COLUMNS]
        wrong |= {c[0] for c in moves if not _STRICT_OF[type(c[1])]}
    return wrong | _month_edges(constraints, sql)


def _month_edges(constraints: Sequence[Constraint], sql: Sql) -> set[int]:
    """Indexes of the day bounds that leave out an end of a month named (2025年12月, December 2025):
    d > its first day, d < its last day."""
    ends: list[tuple[date, date]] = []
    for constraint in constraints:
        detail = constraint.detail
        if isinstance(detail, MonthDetail) and not detail.since and not detail.month_end:
            last = detail.first.replace(day=monthrange(detail.first.year, detail.first.month)[1])
            ends.append((detail.first, last))
    wrong: set[int] = set()
    for index, node in enumerate(sql.tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE)):
        if not isinstance(node, exp.GT | exp.LT):
            continue
        day, number_left = date_value(node.expression), False
        if day is None:
            day, number_left = date_value(node.this), True
        if day is None:
            continue
        above = isinstance(node, exp.GT) != number_left  # the column kept after the day
        if any(day == (first if above else last) for first, last in ends):
            wrong.add(index)
    return wrong


def _upward(node: exp.Binary, number_left: bool) -> bool:
    """subject > 0 (or 0 < subject): the comparison keeps rises."""
    above = isinstance(node, exp.GT | exp.GTE)
    return above != number_left


def _answer(reader: MarketReader, query: str) -> list[str] | str:
    """The query's rows in a comparable order, or why it could not run."""
    rows = own_rows(reader, query)
    return rows if isinstance(rows, str) else sorted(repr(row) for row in rows)


def _result(
    kind: str,
    text: str,
    criterion: str,
    query: str | None,
    verdict: CheckVerdictValue,
    reason: str,
    started: float,
) -> CheckResult:
    return constraint_check(
        check_id=f"boundary-{kind}",
        kind=kind,
        text=text,
        criterion=criterion,
        sql=query,
        verdict=verdict,
        blames=Attribution.CONDITION,
        reason=reason,
        started=started,
    )


def move_check(question: str, sql: Sql, lang: Lang) -> CheckResult | None:
    """A rise asked and only falls kept (or the other way round): the comparison points the wrong way."""
    rise, fall = _moves(question)
    if rise == fall:
        return None  # neither, or both (上涨和下跌的家数): which comparison is which is not read
    moves = [c for c in _comparisons(sql.tree) if c[3] == 0 and columns_of(c[2]) & _MOVE_COLUMNS]
    if not moves:
        return None
    started = time.perf_counter()
    text = says(lang, "涨跌方向与问题一致吗？", "Does the SQL keep the move the question asks for?")
    criterion = says(lang, "上涨：pct_chg > 0；下跌：pct_chg < 0", "rose: pct_chg > 0; fell: pct_chg < 0")
    upward = {_upward(c[1], c[4]) for c in moves}
    if upward == {fall}:
        asked = "rise" if rise else "fall"
        reason = f"the question asks for a {asked}, every comparison of the change with 0 keeps the other way"
        return _result("movement", text, criterion, None, "fail", reason, started)
    return _result("movement", text, criterion, None, "pass", "the change is compared the asked way", started)


def boundary_check(
    question: str, constraints: Sequence[Constraint], sql: Sql, reader: MarketReader, lang: Lang
) -> CheckResult | None:
    rise, fall = _moves(question)
    wrong = _wrong_boundaries(question, constraints, sql, rise, fall)
    if not wrong:
        return None
    started = time.perf_counter()
    fixed = sql.tree.copy()
    for index, node in enumerate(list(fixed.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE))):
        if index in wrong:
            node.replace(_FLIPPED[type(node)](this=node.this.copy(), expression=node.expression.copy()))
    candidate, corrected = sql.tree.sql(dialect=DIALECT), fixed.sql(dialect=DIALECT)
    text = says(
        lang, "恰好等于边界值的行是否改变答案？", "Do rows exactly at the boundary change the answer?"
    )
    criterion = says(
        lang,
        "按问题的边界（超过/至少）重算，结果不变",
        "recomputed with the question's boundary, the result is the same",
    )
    mine, theirs = _answer(reader, candidate), _answer(reader, corrected)
    if isinstance(mine, str) or isinstance(theirs, str):
        reason = mine if isinstance(mine, str) else str(theirs)
        return _result("boundary", text, criterion, corrected, "undecidable", reason, started)
    if mine != theirs:
        reason = "rows exactly at the boundary change the answer: the SQL keeps the boundary the other way"
        return _result("boundary", text, criterion, corrected, "fail", reason, started)
    reason = "no row sits exactly at the boundary: the answer is the same either way"
    return _result("boundary", text, criterion, corrected, "pass", reason, started)


def boundary_checks(
    question: str, constraints: Sequence[Constraint], sql: Sql, reader: MarketReader, lang: Lang
) -> list[CheckResult]:
    found = [move_check(question, sql, lang), boundary_check(question, constraints, sql, reader, lang)]
    return [check for check in found if check is not None]
