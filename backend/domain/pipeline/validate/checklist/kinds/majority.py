"""More than half (超过一半 / 过半 / 半数以上 / more than half / a majority of) compares a part with half
of its whole: the SQL writes the half (count() / 2, countIf(…) * 2 > count(), a share > 0.5 or 50%).
A SQL with no half anywhere compares the part with something else (more risers than fallers).
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
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql

_CUE = re.compile(r"超过一半|超过半数|过半|半数以上|一半以上|\b(?:more than half|over half|a majority of)\b")
_HALVES = (0.5, 2.0, 50.0)


@dataclass(frozen=True)
class MajorityDetail:
    kind: ClassVar[Kind] = Kind.MAJORITY

    def check(self, sql: Sql) -> Finding:
        if sql.has_number(_HALVES):
            return passed("the SQL writes a half (/ 2, * 2, 0.5 or 50%)")
        return failed(
            Attribution.CONDITION, "no half appears in the SQL: the part is compared with something else"
        )


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(f"“{span.text}”：与总数的一半比较", f"“{span.text}”: compared with half the whole")
    return [Constraint(span, text, question.lang, MajorityDetail())]
