"""A change N periods in a row (连续3年增长 / 成交量连续3天放大 / grew 3 years in a row / 4 consecutive
days of rising volume) is N steps, each compared with the period before: N comparisons of a value
with the same column's value on another period. Comparing the last value with the first only
(argMax(x, d) > argMin(x, d)), or fewer steps than N, lets a dip in between through.

Counted on the tree: comparisons whose two sides read the same stored column (not a date); fewer
than N of them fail. A SQL that tests the steps row by row (lagInFrame, neighbor, a window, a lambda
over arrays, a self-join of the table) or each period's own change (yoy > 0, pct_chg > 0), comparing
no two values of a column, has no short chain of comparisons: it passes, as N or more comparisons do.

The way of the change: with a rise (增长, 放大, grew) or a fall (下降, 萎缩, declined) said, a step whose
two periods the tree tells apart — a report day written on each side (sumIf(x, end_date =
'2023-12-31') > sumIf(x, end_date = '2022-12-31')), or positions in an array sorted by day (v[2] >
v[1] over arraySort), or the differences of such an array tested all above or below 0 (arrayAll(x -> x > 0,
arrayDifference(…))) — must put the later value above (below) the earlier one; every such step the
other way fails. Periods read otherwise (lagInFrame, an unsorted array) leave the way undecided, and
a question about a loss or a fall's size (亏损连续3年减少, 跌幅扩大) is not read for it.
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
    failed,
    passed,
)
from backend.domain.pipeline.validate.checklist.question import COUNT, Question, parse_count
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    date_value,
    enclosing_select,
    function_name,
    is_date_column,
    number_value,
)

_RISE_ZH = r"增长|上涨|上升|放大|提高|增加|递增|走高|抬升"
_FALL_ZH = r"下降|下跌|减少|缩小|萎缩|下滑|递减|走低"
_CHANGE_ZH = f"{_RISE_ZH}|{_FALL_ZH}"
_RISE_EN = r"rose|rise|rising|risen|grew|grow|growing|growth|increas\w*|higher|expand\w*"
_FALL_EN = r"fell|fall|falling|declin\w*|decreas\w*|shrink\w*|lower"
_CHANGE_EN = rf"\b(?:{_RISE_EN}|{_FALL_EN})\b"
_RISE = re.compile(rf"{_RISE_ZH}|\b(?:{_RISE_EN})\b", re.IGNORECASE)
_FALL = re.compile(rf"{_FALL_ZH}|\b(?:{_FALL_EN})\b", re.IGNORECASE)
# Measures whose rise is bad news or a fall's size: the way of their change is not the value's.
_TURNED = re.compile(r"亏|跌幅|回撤|负债|\b(?:loss|losses|losing|drawdowns?|debts?)\b", re.IGNORECASE)
_PERIOD_ZH = r"个?交易日|天|日|年|个报告期|报告期|期|个?季度|个?月|周"
_PERIOD_EN = r"(?:trading\s+)?(?:days|sessions|years|quarters|months|weeks|reports)"
_IN_A_ROW = (
    re.compile(rf"连续\s*(?P<n>{COUNT})\s*(?:{_PERIOD_ZH})[^，,。；;？?]{{0,8}}?(?:{_CHANGE_ZH})"),
    re.compile(
        rf"(?:(?P<n>{COUNT})\s+{_PERIOD_EN}\s+in\s+a\s+row|(?P<m>{COUNT})\s+consecutive\s+{_PERIOD_EN}"
        # rising volume on each of the last 3 trading days
        rf"|\b(?:rising|increasing|growing|falling|declining|shrinking)\s+[\w-]+(?:\s+[\w-]+)?"
        rf"\s+(?:on|in|for|over)\s+each\s+of\s+the\s+(?:last|past)\s+(?P<k>{COUNT})\s+{_PERIOD_EN})",
        re.IGNORECASE,
    ),
)
_CHANGE_IN_TEXT = re.compile(_CHANGE_EN, re.IGNORECASE)
# A change in every period of a span, not counted (逐年增长, 每天都放大, volume expanding every day).
_EVERY_STEP = re.compile(
    rf"(?:逐年|逐月|逐季|逐日|逐期|每年都|每天都|每日都|每月都|每个?季度都|一年比一年|一天比一天)\s*(?:{_CHANGE_ZH})"
    rf"|\b(?:{_RISE_EN}|{_FALL_EN})\s+(?:every|each)\s+(?:single\s+)?(?:day|session|year|quarter|month)\b",
    re.IGNORECASE,
)
# Ways of testing every step at once that one comparison stands for.
_ROW_BY_ROW = ("laginframe", "leadinframe", "neighbor", "lag", "lead", "arraydifference")


def _same_column_comparisons(sql: Sql) -> int:
    count = 0
    for node in sql.nodes():
        if not isinstance(node, exp.GT | exp.GTE | exp.LT | exp.LTE):
            continue
        select = enclosing_select(node)
        left = columns_of(sql.resolve(node.this, select))
        right = columns_of(sql.resolve(node.expression, select))
        shared = {name for name in left & right if not is_date_column(name)}
        count += bool(shared)
    return count


_REVERSED = {"arrayreversesort", "arrayreverse"}
_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE)


def _sorted_array(sql: Sql, array: exp.Expr, select: exp.Select | None) -> str | None:
    """The name of an array sorted by day, ascending (arraySort), that `array` reads; None otherwise."""
    if not isinstance(array, exp.Column):
        return None
    name = array.name.lower()
    body = sql.ctes.get(name) or sql.resolve(array, select)
    names = {function_name(node) for node in body.walk() if isinstance(node, exp.Func)}
    if "arraysort" in names and not names & _REVERSED:
        return name
    return None


def _period(sql: Sql, side: exp.Expr, select: exp.Select | None) -> tuple[str, float] | None:
    """Where in time one side of a step is: its one day written, or its one position in a sorted array."""
    days = {day for node in side.find_all(exp.Literal) if (day := date_value(node)) is not None}
    positions = set()
    for bracket in side.find_all(exp.Bracket):
        array = _sorted_array(sql, bracket.this, select)
        index = number_value(bracket.expressions[0]) if len(bracket.expressions) == 1 else None
        if array is None or index is None:
            return None
        positions.add((array, index))
    if days and not positions and len(days) == 1:
        return ("", float(days.pop().toordinal()))
    if positions and not days and len(positions) == 1:
        return positions.pop()
    return None


def _later_above(sql: Sql) -> list[bool]:
    """For each step whose two periods are told apart: whether the later value is kept above."""
    found = []
    for node in sql.nodes():
        if not isinstance(node, exp.GT | exp.GTE | exp.LT | exp.LTE):
            continue
        select = enclosing_select(node)
        shared = columns_of(sql.resolve(node.this, select)) & columns_of(sql.resolve(node.expression, select))
        if not {name for name in shared if not is_date_column(name)}:
            continue
        left, right = _period(sql, node.this, select), _period(sql, node.expression, select)
        if left is None or right is None or left[0] != right[0] or left[1] == right[1]:
            continue
        greater_left = isinstance(node, exp.GT | exp.GTE)
        found.append(greater_left == (left[1] > right[1]))
    return found + _sorted_differences(sql)


def _sorted_differences(sql: Sql) -> list[bool]:
    """For each arrayAll(x -> x > 0, arrayDifference(…)) over an array sorted by day, ascending
    (arraySort, no reversal): whether each later value is kept above the one before (x > 0)."""
    found = []
    for node in sql.tree.find_all(exp.Lambda):
        test, call = node.this, node.parent
        if call is None or function_name(call) != "arrayall":
            continue
        if not isinstance(test, exp.GT | exp.GTE | exp.LT | exp.LTE):
            continue
        names = {function_name(item) for item in call.walk() if isinstance(item, exp.Func)}
        if "arraydifference" not in names or "arraysort" not in names or names & _REVERSED:
            continue
        variable = {name.name.lower() for name in node.expressions if isinstance(name, exp.Identifier)}
        left_is_variable = isinstance(test.this, exp.Identifier) and test.this.name.lower() in variable
        right_is_variable = (
            isinstance(test.expression, exp.Identifier) and test.expression.name.lower() in variable
        )
        bound = number_value(test.expression if left_is_variable else test.this)
        if bound != 0 or left_is_variable == right_is_variable:
            continue
        greater_left = isinstance(test, exp.GT | exp.GTE)
        found.append(greater_left == left_is_variable)
    return found


def _self_joined(select: exp.Select) -> bool:
    from_clause = select.args.get("from_")
    sources = [from_clause.this] if isinstance(from_clause, exp.From) else []
    sources += [join.this for join in select.args.get("joins") or []]
    tables = [source.name.lower() for source in sources if isinstance(source, exp.Table)]
    return len(tables) != len(set(tables))


def _steps_row_by_row(sql: Sql) -> bool:
    # a lambda that only builds an array (arrayMap(x -> x.2, …), arraySort(x -> x.1, …)) tests no step
    comparing = (
        lam for lam in sql.tree.find_all(exp.Lambda) if lam.this.find(*_COMPARISONS, exp.EQ) is not None
    )
    return (
        any(name.startswith(_ROW_BY_ROW) for name in sql.functions)
        or sql.tree.find(exp.Window) is not None
        or next(comparing, None) is not None
        or any(_self_joined(select) for select in sql.selects)
    )


def _skipped_steps(sql: Sql) -> list[tuple[float, float]]:
    """Steps between two positions of one array sorted by day that jump over a position (v[1] < v[3])
    whose own neighbouring steps are not all compared: a dip at the positions between goes unseen."""
    steps: dict[str, set[tuple[float, float]]] = {}
    for node in sql.nodes():
        if not isinstance(node, _COMPARISONS):
            continue
        select = enclosing_select(node)
        left, right = _period(sql, node.this, select), _period(sql, node.expression, select)
        if left is None or right is None or not left[0] or left[0] != right[0]:
            continue
        steps.setdefault(left[0] + _field(node.this), set()).add(
            (min(left[1], right[1]), max(left[1], right[1]))
        )
    skipped = []
    for pairs in steps.values():
        for first, last in pairs:
            between = [(position, position + 1) for position in range(int(first), int(last))]
            if last - first > 1 and not all(pair in pairs for pair in between):
                skipped.append((first, last))
    return skipped


def _field(side: exp.Expr) -> str:
    """The tuple field a positional side reads (a[2].2 reads field 2): steps of one field go together."""
    dotted = side.find(exp.Dot)
    return "" if dotted is None else f".{dotted.expression.sql()}"


@dataclass(frozen=True)
class EachStepDetail:
    kind: ClassVar[Kind] = Kind.EACH_STEP
    steps: int | None  # None: every period of a span (逐年增长, expanding every day), not counted
    rising: bool | None = None  # the way of the change said, None when not read

    def check(self, sql: Sql) -> Finding:
        ways = _later_above(sql) if self.rising is not None else []
        if ways and self.rising not in ways:
            said = "rise" if self.rising else "fall"
            return failed(
                Attribution.CONDITION,
                f"each step compared keeps the later period's value {'below' if self.rising else 'above'} "
                f"the earlier one: the question asks for a {said}",
            )
        skipped = _skipped_steps(sql)
        if skipped:
            first, last = skipped[0]
            return failed(
                Attribution.AGGREGATION,
                f"two periods {last - first:g} apart are compared with the ones between skipped: a change in "
                "every period is asked, a dip in between goes unseen",
            )
        if _steps_row_by_row(sql):
            return passed("the steps are tested row by row (a window, a lambda or a self-join)")
        compared = _same_column_comparisons(sql)
        if compared == 0:
            return passed("no two values of one column are compared: each period's own change is tested")
        if self.steps is None:
            return passed(f"{compared} comparisons of a value with another period's, no step skipped")
        if compared >= self.steps:
            return passed(
                f"{compared} comparisons of a value with another period's, {self.steps} steps asked"
            )
        return failed(
            Attribution.AGGREGATION,
            f"only {compared} comparison(s) of a value with another period's where {self.steps} steps "
            "in a row are asked: a dip between the compared periods goes unseen",
        )


def extract(question: Question) -> list[Constraint]:
    found = []
    for pattern in _IN_A_ROW:
        for match in pattern.finditer(question.text):
            if pattern is _IN_A_ROW[1] and _CHANGE_IN_TEXT.search(question.text) is None:
                continue
            groups = match.groupdict()
            steps = parse_count(groups.get("n") or groups.get("m") or groups.get("k") or "")
            if steps is None or steps < 2:
                continue
            span = question.span(match.start(), match.end())
            said = span.text if pattern is _IN_A_ROW[0] else question.text
            rise, fall = _RISE.search(said), _FALL.search(said)
            rising = None if bool(rise) == bool(fall) or _TURNED.search(question.text) else bool(rise)
            text = question.says(
                f"“{span.text}”：逐期比较，{steps} 次变化", f"“{span.text}”: each of {steps} steps compared"
            )
            found.append(Constraint(span, text, question.lang, EachStepDetail(steps, rising)))
    if found:
        return found
    for match in _EVERY_STEP.finditer(question.text):
        span = question.span(match.start(), match.end())
        rise, fall = _RISE.search(span.text), _FALL.search(span.text)
        rising = None if bool(rise) == bool(fall) or _TURNED.search(question.text) else bool(rise)
        text = question.says(
            f"“{span.text}”：每期与前一期比较", f"“{span.text}”: each period against the one before"
        )
        found.append(Constraint(span, text, question.lang, EachStepDetail(None, rising)))
    return found
