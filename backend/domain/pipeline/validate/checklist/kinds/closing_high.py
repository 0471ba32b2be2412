"""A closing high (收盘价创60日新高, closed at a 60-day high) is a close at the highest close of the
window; a closing low (创N日新低, closed at a N-day low) at the lowest.

The window's extreme is taken over the closes: a maximum of the intraday highs answers "traded at a
new high" (the close rarely reaches it), and comparing today's high with it drops the close the
question names. Judged on the tree: the extreme (max for a high, min for a low) of close passes;
extremes of high or low only, or only the other extreme of close, fail; an extreme the tree does not
show (arrays, NOT EXISTS) is undecidable. Where the closes' extreme is compared with one stored column,
that column must be the close (today's high against the highest close is another test), and a close
kept strictly above (below) a window's extreme whose frame ends at the current row is never true.
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
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import COUNT, Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    enclosing_select,
    function_name,
    strip,
)

_CUE = re.compile(
    rf"收盘价?(?:曾|再)?(?:创出|创过|创下|创)?\s*(?:近|最近|过去)?\s*{COUNT}\s*(?:个交易日|日|天|周|个月|年)\s*(?:收盘)?新(?P<zh>高|低)"
    rf"|\bclos(?:ed|es|ing)\s+at\s+(?:a|an|its|their|the)\s+(?:new\s+)?"
    rf"{COUNT}[- ](?:trading[- ])?day\s+(?P<en>high|low)\b"
    rf"|\b{COUNT}[- ](?:trading[- ])?day\s+closing\s+(?P<closing>high|low)\b"
    # closed at their lowest level in 90 sessions; the highest close of the past 30 trading days
    rf"|\bclos(?:ed|es|ing)\s+at\s+(?:its|their|the)\s+(?P<most>highest|lowest)\s+(?:level|close|price)?\s*"
    rf"(?:in|of|for)\s+(?:the\s+)?(?:(?:last|past)\s+)?{COUNT}\s+(?:trading\s+)?(?:days|sessions|bars)\b"
    rf"|\b(?P<value>highest|lowest)\s+clos(?:e|ing\s+price)\s+(?:in|of|over)\s+the\s+(?:last|past)\s+"
    rf"{COUNT}\s+(?:trading\s+)?(?:days|sessions|bars)\b"
    # 近20个交易日里最低收盘价, 最近5天收盘价的最高值: the extreme of the window's closes
    rf"|(?:近|最近|过去)\s*{COUNT}\s*(?:个交易日|日|天|周|个月)\s*(?:里|内|中|以来)?\s*的?\s*"
    rf"(?:最(?P<zh_value>高|低)收盘价?|收盘价?的?最(?P<zh_level>高|低))"
    # a distance from the highest (lowest) close: 从最高收盘价回撤, 较最低收盘价反弹, off their peak close
    rf"|(?:从|自|距|较|离|相对于?)\s*(?:其|区间|期间)?\s*的?\s*最(?P<zh_from>高|低)收盘价?"
    rf"|\b(?:from|off|below|above)\s+(?:its|their|the)\s+(?P<en_from>highest|lowest|peak)\s+clos(?:e|ing\s+price)\b",
    re.IGNORECASE,
)
_EXTREMES: dict[bool, tuple[type[exp.Expr], set[str]]] = {
    True: (exp.Max, {"max", "maxif"}),
    False: (exp.Min, {"min", "minif"}),
}


def _over(sql: Sql, highest: bool) -> set[str]:
    """The columns the query takes this extreme of."""
    node_type, names = _EXTREMES[highest]
    found = [
        node
        for node in sql.tree.find_all(node_type, exp.Anonymous, exp.CombinedAggFunc)
        if isinstance(node, node_type) or function_name(node) in names
    ]
    return set().union(*(columns_of(node.this if isinstance(node, node_type) else node) for node in found))


def _averaged(sql: Sql) -> set[str]:
    """The columns the query averages."""
    found = [
        node
        for node in sql.tree.find_all(exp.Avg, exp.Anonymous, exp.CombinedAggFunc)
        if function_name(node) in {"avg", "avgif"}
    ]
    return set().union(*(columns_of(node) for node in found))


_COMPARED = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=", exp.EQ: "="}
_MIRRORED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}


def _close_extreme(sql: Sql, node: exp.Expr, highest: bool) -> bool | None:
    """Whether `node` is the closes' extreme over a frame ending at the current row; None when it is
    not the closes' extreme at all (a formula of it, another column)."""
    node_type, _names = _EXTREMES[highest]
    window = node if isinstance(node, exp.Window) else None
    inner = strip(window.this) if window is not None else node
    if not isinstance(inner, node_type) or columns_of(inner) != {"close"}:
        return None
    if window is None:
        return False
    spec = window.args.get("spec")
    name = window.args.get("alias")
    if spec is None and isinstance(name, exp.Identifier):
        # OVER w, resolved out of its SELECT: the frame is the one named w
        named = [
            item.args.get("spec")
            for select in sql.selects
            for item in select.args.get("windows") or []
            if isinstance(item, exp.Window) and item.this.name == name.name
        ]
        spec = named[0] if len(named) == 1 else None
    return isinstance(spec, exp.WindowSpec) and spec.args.get("end") == "CURRENT ROW"


def _compared_with_extreme(sql: Sql, highest: bool) -> list[tuple[str, str, bool]]:
    """(column, its operator against the extreme, frame ends at the current row) for each comparison of
    one stored column with the closes' extreme."""
    found = []
    for node in sql.tree.find_all(*_COMPARED):
        select = enclosing_select(node)
        op = _COMPARED[type(node)]
        left, right = strip(sql.resolve(node.this, select)), strip(sql.resolve(node.expression, select))
        for column, extreme, column_op in ((left, right, op), (right, left, _MIRRORED[op])):
            current = _close_extreme(sql, extreme, highest)
            if current is not None and isinstance(column, exp.Column):
                found.append((column.name.lower(), column_op, current))
    return found


@dataclass(frozen=True)
class ClosingHighDetail:
    kind: ClassVar[Kind] = Kind.CLOSING_HIGH
    highest: bool = True  # a new high; False: a new low

    def check(self, sql: Sql) -> Finding:
        extreme = "maximum" if self.highest else "minimum"
        over = _over(sql, self.highest)
        if "close" in over:
            compared = _compared_with_extreme(sql, self.highest)
            closes = [(op, current) for column, op, current in compared if column == "close"]
            if compared and not closes:
                return failed(
                    Attribution.ENTITY_MAPPING,
                    f"{compared[0][0]} is compared with the highest close; the question names the close",
                )
            beyond = ">" if self.highest else "<"
            if closes and all(op == beyond and current for op, current in closes):
                return failed(
                    Attribution.CONDITION,
                    f"the close is kept strictly beyond a {extreme} that includes its own day: never true",
                )
            return passed(f"the window's {extreme} is taken over the closes")
        if over & {"high", "low"}:
            return failed(
                Attribution.ENTITY_MAPPING,
                f"the window's {extreme} is taken over intraday prices; a closing extreme is over the closes",
            )
        if "close" in _over(sql, not self.highest):
            return failed(
                Attribution.AGGREGATION,
                f"the SQL takes the other extreme of the closes; a new {'high' if self.highest else 'low'} "
                f"needs their {extreme}",
            )
        if "close" in _averaged(sql):
            return failed(
                Attribution.AGGREGATION,
                f"the closes are averaged; a closing extreme needs their {extreme}",
            )
        return undecided(f"no {extreme} of a price is read: how the new extreme is found is not read")


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None:
        return []
    sides = ("zh", "en", "closing", "most", "value", "zh_value", "zh_level", "zh_from", "en_from")
    side = next((cue.group(name) for name in sides if cue.group(name)), "").lower()
    highest = side in ("高", "high", "highest", "peak")
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：窗口内收盘价的{'最高' if highest else '最低'}值",
        f"“{span.text}”: the {'highest' if highest else 'lowest'} close of the window",
    )
    return [Constraint(span, text, question.lang, ClosingHighDetail(highest))]
