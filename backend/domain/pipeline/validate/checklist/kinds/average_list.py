"""The close against several moving averages at once: 站上5日、10日和20日均线, above both their 20-day
and 60-day moving averages, 跌破20日和60日均线 — each listed average compared with the close the way
the question says, all of them holding together.

The averages are read where the tree names their length: an avg over a ROWS frame of N rows, inline
or under the alias a projection gives it (round(avg(close) OVER w, 2) AS ma20). The SQL fails when
two comparisons with averages of different lengths sit on two sides of an OR that decides rows
(above either), when the close is kept on the other side of one of them (`condition`), or when the
averages it compares are all read and one listed length is never compared (`condition`). An
alignment (close > MA5 AND MA5 > MA10) compares the close with the longer average through the shorter
one. Averages whose length the tree does not tell (a GROUP BY over a span of days) leave it undecided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import conjunction, window
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, enclosing_select, strip

_ALTERNATIVES = re.compile(r"或|或者|任一|之一|\b(?:or|either|any of|one of)\b")
_ABOVE = re.compile(r"站上|突破|高于|之上|上方|\b(?:above|over)\b")
_BELOW = re.compile(r"跌破|低于|之下|下方|\b(?:below|under)\b")
_ORDER = (exp.GT, exp.GTE, exp.LT, exp.LTE)
_REACH = 40


@dataclass(frozen=True)
class AverageListDetail:
    kind: ClassVar[Kind] = Kind.AVERAGE_LIST
    lengths: tuple[int, ...]
    above: bool  # the close above every listed average

    def check(self, sql: Sql) -> Finding:
        named = _named_lengths(sql)
        compared: list[tuple[exp.Expr, int, bool]] = []  # (comparison, length, close kept above)
        chained: set[tuple[int, int]] = set()  # (a, b): the a-bar average kept above the b-bar one
        unread = False
        for node in sql.tree.find_all(*_ORDER):
            left, right = strip(node.this), strip(node.expression)
            if _length(left, named) is not None and _length(right, named) is not None:
                upper, lower = (left, right) if isinstance(node, exp.GT | exp.GTE) else (right, left)
                chained.add((named[upper.name.lower()], named[lower.name.lower()]))
                continue
            if _is_close(right) and _length(left, named) is not None:
                compared.append((node, named[left.name.lower()], isinstance(node, exp.LT | exp.LTE)))
            elif _is_close(left) and _length(right, named) is not None:
                compared.append((node, named[right.name.lower()], isinstance(node, exp.GT | exp.GTE)))
            elif (_is_close(left) and isinstance(right, exp.Column)) or (
                _is_close(right) and isinstance(left, exp.Column)
            ):
                unread = True  # the close against a column whose length the tree does not tell
        if not compared:
            return undecided("no comparison of the close with an average over a frame of known length")
        wrong = sorted({length for _, length, above in compared if above != self.above})
        if wrong:
            way = "below" if self.above else "above"
            return failed(Attribution.CONDITION, f"the close is kept {way} its {wrong[0]}-bar average")
        for junction in sql.nodes():
            if isinstance(junction, exp.Or) and conjunction.decides_rows(junction):
                branches = [
                    {length for c, length, _ in compared if _inside(c, branch)}
                    for branch in conjunction.or_branches(junction)
                ]
                if sum(bool(lengths) for lengths in branches) >= 2:
                    return failed(
                        Attribution.CONDITION,
                        "the averages are alternatives (OR); the question asks all of them together",
                    )
        reached = _through(
            {length for _, length, _ in compared}, chained if self.above else {(b, a) for a, b in chained}
        )
        missing = sorted(set(self.lengths) - reached)
        if missing and not unread:
            return failed(
                Attribution.CONDITION, f"the close is never compared with its {missing[0]}-bar average"
            )
        if missing:
            return undecided(f"the {missing[0]}-bar average may be one whose length the tree does not tell")
        return passed(
            f"the close is compared with each of the {', '.join(map(str, self.lengths))}-bar averages"
        )


def _through(lengths: set[int], chained: set[tuple[int, int]]) -> set[int]:
    """The lengths compared with the close directly, and those a chain of averages passes on to."""
    reached = set(lengths)
    while step := {b for a, b in chained if a in reached} - reached:
        reached |= step
    return reached


def _named_lengths(sql: Sql) -> dict[str, int]:
    """Projection aliases of averages over a ROWS frame, with the frame's rows."""
    found: dict[str, int] = {}
    for node in sql.tree.find_all(exp.Window):
        if not isinstance(strip(node.this), exp.Avg):
            continue
        spec = sql._window_spec(node).args.get("spec")
        frame = window.frame_rows(spec) if isinstance(spec, exp.WindowSpec) else None
        alias = node.find_ancestor(exp.Alias)
        if frame is not None and alias is not None and enclosing_select(alias) is enclosing_select(node):
            found[alias.alias.lower()] = frame[0]
    return found


def _length(side: exp.Expr, named: dict[str, int]) -> int | None:
    return named.get(side.name.lower()) if isinstance(side, exp.Column) else None


def _is_close(side: exp.Expr) -> bool:
    return isinstance(side, exp.Column) and side.name.lower() == "close"


def _inside(node: exp.Expr, branch: exp.Expr) -> bool:
    return node is branch or any(item is node for item in branch.walk())


def extract(question: Question) -> list[Constraint]:
    if _ALTERNATIVES.search(question.text):
        return []
    averages = [
        c
        for c in window.extract(question)
        if isinstance(c.detail, window.WindowDetail) and c.detail.moving and not c.detail.previous
    ]
    if len({c.detail.count for c in averages if isinstance(c.detail, window.WindowDetail)}) < 2:
        return []
    start, end = averages[0].span.start, averages[-1].span.end
    before = question.text[max(0, start - _REACH) : start]
    above, below = _ABOVE.search(before), _BELOW.search(before)
    if bool(above) == bool(below):
        return []
    lengths = tuple(
        dict.fromkeys(c.detail.count for c in averages if isinstance(c.detail, window.WindowDetail))
    )
    span = question.span(start, end)
    way = "上方" if above else "下方"
    text = question.says(
        f"收盘价同时位于{'、'.join(map(str, lengths))}日均线{way}",
        f"the close {'above' if above else 'below'} each of the {', '.join(map(str, lengths))}-day averages",
    )
    return [Constraint(span, text, question.lang, AverageListDetail(lengths, bool(above)))]
