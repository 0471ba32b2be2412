"""A count with a condition of its own beside another figure (average P/B and how many names trade below
book, 各板块平均市净率和破净股数量, total amount and how many stocks rose): the condition is the count's,
the other figure reads every row.

One SELECT computing both the figure (avg, sum, median, max, min) and a plain count (count(),
count(DISTINCT ts_code), uniq: no condition inside) reads the same rows for both: either the count's
condition is missing or it filters the other figure too (`aggregation`). A conditional count
(countIf, count(if(…)), sum(CASE …)) passes; the two in different SELECTs (joined subqueries) are not
read (undecidable).
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
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, function_name, strip

_FIGURE = r"平均|均值|中位数|合计|总计|总"
# 平均市净率和破净股数量 / 平均涨幅以及上涨家数: the modifier between the conjunction and the count word.
_ZH = re.compile(
    rf"(?:{_FIGURE})[^，。？?；;]*?(?:和|及|以及|、|，|,)\s*(?P<modifier>[^，。？?；;和及、]{{1,12}}?)\s*"
    r"(?:的)?\s*(?:数量|家数|只数|个数|(?:有)?多少\s*(?:只|家|个|支))"
)
_ZH_NOUNS = re.compile(r"的|股票|个股|公司|企业|股|家|只")
_EN = re.compile(
    r"\b(?:average|mean|median|total)\b[^.;?]*?\b(?:and|as well as|plus)\s+"
    r"(?:how many|the number of|number of)\s+(?P<noun>[a-z\-]+)(?P<rest>[^,.;?]*)",
    re.IGNORECASE,
)
# Words after the counted noun that name no condition: a grouping, a place in time, "are there".
_EN_NOT_CONDITIONS = re.compile(
    r"\b(?:are there|there are|there|are|is|were|was|in total|(?:in|for|per|by|on) (?:each|every)? ?\w+"
    r"|each|today|now|of them|listed)\b",
    re.IGNORECASE,
)
_FIGURES = (exp.Avg, exp.Sum, exp.Median, exp.Quantile, exp.Max, exp.Min)
_PLAIN_COUNTS = {"count", "uniq", "uniqexact", "countdistinct"}


def _plain_count(node: exp.Expr) -> bool:
    """count(), count(x), count(DISTINCT x), uniq(x): no condition inside."""
    node = strip(node)
    if not (isinstance(node, exp.Count) or function_name(node) in _PLAIN_COUNTS):
        return False
    return all(
        isinstance(inner, exp.Column | exp.Star | exp.Distinct) for inner in node.iter_expressions()
    ) and (not any(isinstance(n, exp.If | exp.Case | exp.Predicate) for n in node.walk() if n is not node))


def _conditional_count(node: exp.Expr) -> bool:
    name = function_name(node)
    if name in {"countif", "uniqif", "uniqexactif", "sumif"}:
        return True
    if isinstance(node, exp.Count | exp.Sum) or name in _PLAIN_COUNTS:
        return any(isinstance(n, exp.If | exp.Case | exp.Predicate) for n in node.walk() if n is not node)
    return False


def _figure(node: exp.Expr) -> bool:
    return isinstance(node, _FIGURES) and not _conditional_count(node)


@dataclass(frozen=True)
class CountConditionDetail:
    kind: ClassVar[Kind] = Kind.COUNT_CONDITION

    def check(self, sql: Sql) -> Finding:
        for select in sql.selects:
            projected = [node for expression in select.expressions for node in expression.walk()]
            if any(_figure(n) for n in projected) and any(_plain_count(n) for n in projected):
                return failed(
                    Attribution.AGGREGATION,
                    "the figure and the count are computed over the same rows: the count's own condition "
                    "is missing, or it filters the other figure too",
                )
        if any(_conditional_count(node) for node in sql.nodes()):
            return passed("the count carries its own condition")
        return undecided("the count and the other figure are computed apart; their rows are not compared")


def _conditional_clause(question: Question) -> re.Match[str] | None:
    for match in _ZH.finditer(question.text):
        if _ZH_NOUNS.sub("", match["modifier"]).strip():
            return match
    for match in _EN.finditer(question.text):
        if _EN_NOT_CONDITIONS.sub("", match["rest"]).strip():
            return match
    return None


def extract(question: Question) -> list[Constraint]:
    clause = _conditional_clause(question)
    if clause is None:
        return []
    span = question.span(clause.start(), clause.end())
    text = question.says(
        f"“{span.text}”：计数带自己的条件，不筛掉其他指标的行",
        f"“{span.text}”: the count has its own condition; the other figure reads every row",
    )
    return [Constraint(span, text, question.lang, CountConditionDetail())]
