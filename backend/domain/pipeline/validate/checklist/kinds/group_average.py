"""A stock compared with its own group's average: above their industry's average, more than three
times their industry's average turnover, 低于所在行业平均, 高于所属板块平均水平.

The average must be the group's: an avg(…) OVER (PARTITION BY the group's column), or an avg(…) in a
SELECT grouped by that column or filtered on it (b2.industry = '房地产开发', b2.industry = b.industry).
When every average of the SQL is taken over the whole market (OVER (), a subquery with no such
grouping or filter) or over another group (PARTITION BY market for the industry), the stock is compared
with the wrong average (`grouping`). No avg at all (sum / count written out) is undecidable.

The side asked (above / 高于 / 超过, below / 低于 right before the group) is read on the comparisons of
a figure with an average (x < (SELECT avg(…) …), close > ma): when each keeps the figure on the other
side, the comparison is the wrong way round (`condition`). A formula of both (x - avg > 0, x / avg > 3)
is not read for the side.
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
    Sql,
    columns_of,
    enclosing_select,
    function_name,
    number_value,
)
from backend.domain.pipeline.validate.checklist.vocabulary import Category

# The stock's own group named before the dimension word, its average right after it.
_OWN_BEFORE = {Lang.EN: re.compile(r"\b(?:their|its)\s+$"), Lang.ZH: re.compile(r"(?:所在|所属|其|同|本)$")}
# The side asked, said right before the stock's own group (above their industry's average, 低于所在行业).
_SIDE_BEFORE = {
    Lang.EN: re.compile(
        r"\b(?P<side>above|higher than|greater than|more than|exceeding|below|under|lower than|less than)"
        r"\s+(?:(?:one|two|three|four|five|\d+(?:\.\d+)?)\s+times\s+)?$"
    ),
    Lang.ZH: re.compile(r"(?P<side>高于|大于|超过|低于|小于)$"),
}
_BELOW_WORDS = {"below", "under", "lower than", "less than", "低于", "小于"}
_ORDER = (exp.GT, exp.GTE, exp.LT, exp.LTE)
_AVERAGE_NAMES = {"avg", "avgif"}
_AVERAGE_AFTER = {
    Lang.EN: re.compile(r"(?:'s|s')?\s+(?:own\s+)?(?:average|mean)\b"),
    Lang.ZH: re.compile(r"的?\s*(?:平均|均值)"),
}


@dataclass(frozen=True)
class GroupAverageDetail:
    kind: ClassVar[Kind] = Kind.GROUP_AVERAGE
    column: str  # the group's stored column (industry, market, exchange, area)
    above: bool | None = None  # the stock's figure above the average; None when no side was read

    def check(self, sql: Sql) -> Finding:
        scopes = [_scope(sql, node) for node in sql.tree.find_all(exp.Avg)]
        if not scopes:
            return undecided("no avg(): an average written out as sum / count is not read")
        if any(self.column in scope for scope in scopes):
            sides = _sides(sql) if self.above is not None else []
            if sides and self.above not in sides:
                asked = "above" if self.above else "below"
                return failed(
                    Attribution.CONDITION,
                    f"the figure is kept on the other side of the {self.column} average; the question "
                    f"asks {asked}",
                )
            return passed(f"an average is taken within each {self.column}")
        return failed(
            Attribution.GROUPING,
            f"every average is taken over the whole market or another group, "
            f"the question compares with the stock's own {self.column}",
        )


def _scope(sql: Sql, node: exp.Avg) -> set[str]:
    """The columns an average is taken within: its window's PARTITION BY, or its SELECT's GROUP BY and
    the columns its WHERE tests for equality."""
    window = node.parent
    if isinstance(window, exp.Window):
        spec = sql._window_spec(window)
        return set().union(*(columns_of(e) for e in spec.args.get("partition_by") or []))
    select = enclosing_select(node)
    if select is None:
        return set()
    group = select.args.get("group")
    within = set().union(*(columns_of(e) for e in group.expressions)) if group is not None else set()
    where = select.args.get("where")
    if where is not None:
        for equal in where.find_all(exp.EQ):
            if enclosing_select(equal) is select:
                within |= columns_of(equal)
    return within


def _averages(sql: Sql, node: exp.Expr, select: exp.Select | None) -> bool:
    resolved = sql.resolve(node, select)
    return resolved.find(exp.Avg) is not None or any(
        function_name(item) in _AVERAGE_NAMES for item in resolved.walk() if isinstance(item, exp.Func)
    )


def _sides(sql: Sql) -> list[bool]:
    """For each comparison of a figure with an average (one side averages, the other neither
    averages nor is a constant): whether the figure is kept above it."""
    found = []
    for node in sql.tree.find_all(*_ORDER):
        select = enclosing_select(node)
        left, right = _averages(sql, node.this, select), _averages(sql, node.expression, select)
        other = node.expression if left else node.this
        if left == right or number_value(other) is not None:
            continue
        greater_left = isinstance(node, exp.GT | exp.GTE)
        found.append(greater_left == right)
    return found


def extract(question: Question) -> list[Constraint]:
    found = []
    lang = question.lang
    for hit in question.hits_of(Category.DIMENSION):
        column = question.vocabulary.dimension_columns.get(hit.key)
        if column is None:
            continue
        own = _OWN_BEFORE[lang].search(question.text[: hit.start])
        if own is None:
            continue
        average = _AVERAGE_AFTER[lang].match(question.text, hit.end)
        if average is None:
            continue
        span = question.span(hit.start, average.end())
        text = question.says(f"与其所在{span.text}比较（按 {column} 分组）", f"compared with “{span.text}”")
        side = _SIDE_BEFORE[lang].search(question.text, 0, own.start())
        above = None if side is None else side["side"] not in _BELOW_WORDS
        found.append(Constraint(span, text, lang, GroupAverageDetail(column, above)))
    return found
