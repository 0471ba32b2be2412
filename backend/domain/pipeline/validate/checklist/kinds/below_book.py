"""Below book value (破净, 跌破净资产, trading below book) is a price-to-book under 1: the SQL compares pb
with 1, kept below it. pb compared only with another number (pb < 0.5: half of book) or kept above 1
reads another threshold. A price-to-book threshold written out, or a multiple said with it (below 0.8
times book), is the number kind's; a SQL that never compares pb (the close against the book value per
share) is undecidable here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

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

_CUE = re.compile(
    r"破净|跌破净资产|低于(?:每股)?净资产|\b(?:below|under|beneath) (?:their |its )?book(?: value)?\b",
    re.IGNORECASE,
)
_BELOW = {"<", "<="}
# A price-to-book threshold written out (with a P/B under 0.8, 市净率低于0.7倍): the number kind's.
_PB_NUMBER = re.compile(
    r"(?:p/b|\bpb\b|市净率|price[- ]to[- ]book)\D{0,20}\d|\d\s*(?:倍|x\b|times)", re.IGNORECASE
)


@dataclass(frozen=True)
class BelowBookDetail:
    kind: ClassVar[Kind] = Kind.BELOW_BOOK

    def check(self, sql: Sql) -> Finding:
        compared = [c for c in sql.comparisons if columns_of(c.subject) == {"pb"} and c.number is not None]
        if not compared:
            return undecided("pb is not compared with a number")
        ones = [c for c in compared if c.number is not None and close(c.number, 1.0) and not c.negated]
        if any(c.op in _BELOW for c in ones):
            return passed("pb is kept below 1")
        if ones:
            return failed(Attribution.CONDITION, "pb is kept above 1; below book value is pb < 1")
        numbers = ", ".join(f"{c.op} {c.number:g}" for c in compared)
        return failed(Attribution.CONDITION, f"pb is compared {numbers}; below book value is pb < 1")


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None or _PB_NUMBER.search(question.text):
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(f"“{span.text}”：市净率低于1", f"“{span.text}”: price-to-book below 1")
    return [Constraint(span, text, question.lang, BelowBookDetail())]
