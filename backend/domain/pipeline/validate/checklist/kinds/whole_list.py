"""A list the question does not bound (哪些 / 列出 / which / list / show, with no 前N, top, superlative
or count of rows) is the whole list: the answer's query must not cut it with a LIMIT of its own.

A habitual `LIMIT 10` after an ORDER BY, or a stray `LIMIT 3`, silently drops rows the question asked
for. A LIMIT of one row, or of a count the question writes (列出5只, show 20), is no finding here
(top_k judges counts), nor is a LIMIT … BY (rows per group) or a LIMIT that is not a number; a set
operation at the top has no LIMIT of its own.
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, number_value

_LIST = re.compile(r"哪些|哪几|有哪|列出|列举|\b(?:which|list|show)\b", re.IGNORECASE)
# Anything that may bound the rows: a rank, a superlative, a first/last few, a sample.
_BOUND = re.compile(
    r"前|最|排名|名次|头部|几只|几个|一只|一个|\b(?:top|highest|largest|biggest|greatest|best|lowest"
    r"|smallest|worst|least|most|fewest|rank\w*|leading|leaders?|sample|some|a few|any)\b",
    re.IGNORECASE,
)
_COUNT_TOKEN = re.compile(COUNT, re.IGNORECASE)


@dataclass(frozen=True)
class WholeListDetail:
    kind: ClassVar[Kind] = Kind.WHOLE_LIST
    counts: frozenset[int]

    def check(self, sql: Sql) -> Finding:
        tree = sql.tree
        if not isinstance(tree, exp.Select):
            return passed("the answer is a set operation, with no LIMIT of its own")
        limit = tree.args.get("limit")
        if limit is None:
            return passed("the answer's query has no LIMIT")
        if limit.args.get("expressions"):
            return passed("a LIMIT … BY keeps rows per group, not a cut of the list")
        rows = number_value(limit.expression)
        if rows is None:
            return passed("the LIMIT is computed, not a number of rows written out")
        if rows <= 1 or int(rows) in self.counts:
            return passed(f"LIMIT {int(rows)} is one row or a count the question writes")
        return failed(
            Attribution.TOP_K,
            f"LIMIT {int(rows)} cuts a list the question does not bound: rows it asked for are dropped",
        )


def extract(question: Question) -> list[Constraint]:
    cue = _LIST.search(question.text)
    if cue is None or _BOUND.search(question.text):
        return []
    counts = frozenset(
        count for token in _COUNT_TOKEN.findall(question.text) if (count := parse_count(token)) is not None
    )
    span = question.span(cue.start(), cue.end())
    text = question.says(f"“{span.text}”：完整列出，不截断", f"“{span.text}”: the whole list, not cut")
    return [Constraint(span, text, question.lang, WholeListDetail(counts))]
