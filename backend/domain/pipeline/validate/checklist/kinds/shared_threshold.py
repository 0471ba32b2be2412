"""One threshold shared by several figures: 营收和净利润都增长超过30%, revenue and net profit both grew
more than 30%, A、B均高于… — every figure listed before 都 / 均 / both must meet the number.

The number (any of its writings) must be compared with as many stored columns as figures are listed
(a shared function such as least(a, b) > 30 reads both); fewer columns is a condition left out. Two of
those comparisons on different sides of an OR that decides the rows keep the stocks meeting either one.
The figures are counted from the semantic model's metric words, so a list the vocabulary does not read
yields no constraint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import number
from backend.domain.pipeline.validate.checklist.kinds.conjunction import decides_rows, or_branches
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, close, columns_of
from backend.domain.pipeline.validate.checklist.vocabulary import Category

_SHARED = re.compile(r"都|均|同时|双双|\bboth\b")
_LIST_JOIN = re.compile(r"^\s*(?:和|与|及|以及|、|,|，|and|&)\s*$")
# The number must follow in the same clause (营收和净利润都增长，且市盈率低于20: not the P/E's number).
_CLAUSE_BREAK = re.compile(r"[，,；;。？?！!]|\bor\b|或|而|且")


@dataclass(frozen=True)
class SharedThresholdDetail:
    kind: ClassVar[Kind] = Kind.SHARED_THRESHOLD
    figures: int  # how many figures share the number
    writings: tuple[float, ...]  # the number's usual writings (30% as 30, 0.3, …)

    def check(self, sql: Sql) -> Finding:
        compared = [
            c
            for c in sql.comparisons
            if c.number is not None and any(close(c.number, w) for w in self.writings)
        ]
        columns = set().union(*(columns_of(c.subject) for c in compared)) if compared else set()
        if not compared:
            return undecided("the shared number is never compared with a column (a formula may hold it)")
        if len(columns) < self.figures:
            return failed(
                Attribution.CONDITION,
                f"the question holds {self.figures} figures to the number, the SQL compares it with "
                f"{len(columns)} column(s): {', '.join(sorted(columns)) or 'none'}",
            )
        for node in sql.nodes():
            if not isinstance(node, exp.Or) or not decides_rows(node):
                continue
            sides = [b for b in or_branches(node) if any(_within(c.node, b) for c in compared)]
            if len(sides) >= 2:
                return failed(
                    Attribution.CONDITION,
                    "the figures sharing the number are compared on different sides of an OR; "
                    "the question asks all of them",
                )
        return passed(f"the number is compared with {len(columns)} columns, none of them alternatives")


def _within(node: exp.Expr, branch: exp.Expr) -> bool:
    return node is branch or any(node is found for found in branch.find_all(type(node)))


def _listed_before(question: Question, position: int) -> int:
    """Metric words listed right before `position` (A和B都, A, B and C both): how many."""
    hits = [hit for hit in question.hits_of(Category.METRIC) if hit.end <= position]
    if not hits or len(question.text[hits[-1].end : position].strip()) > 1:
        return 0
    listed = 1
    for earlier, later in zip(reversed(hits[:-1]), reversed(hits[1:]), strict=False):
        if not _LIST_JOIN.match(question.text[earlier.end : later.start]):
            break
        listed += 1
    return listed


def extract(question: Question) -> list[Constraint]:
    found = []
    for cue in _SHARED.finditer(question.text):
        figures = _listed_before(question, cue.start())
        if figures < 2:
            continue
        after = [
            c
            for c in number.extract(question)
            # the number's span may open on the last figure listed (市净率均低于10)
            if isinstance(c.detail, number.NumberDetail) and c.span.end > cue.end()
        ]
        if not after or _CLAUSE_BREAK.search(question.text[cue.end() : after[0].span.start]):
            continue
        detail = after[0].detail
        assert isinstance(detail, number.NumberDetail)
        span = question.span(min(cue.start(), after[0].span.start), after[0].span.end)
        text = question.says(
            f"{figures} 个指标都须满足 {after[0].span.text}",
            f"all {figures} figures must meet “{after[0].span.text}”",
        )
        found.append(Constraint(span, text, question.lang, SharedThresholdDetail(figures, detail.writings)))
    return found
