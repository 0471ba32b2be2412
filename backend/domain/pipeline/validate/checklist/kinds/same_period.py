"""The same period last year (去年同期, 上年同期, the same period last year, the year-ago quarter) of a
report period other than the annual one (三季报, 前三季度, 中报, Q3, the first half): the comparison
period is that quarter's end one year earlier, not the year before's annual report.

A SQL that reads a report period (end_date) on a December 31 compares with the annual report: it fails
(time_scope), unless the question names an annual report too. Report days are read in comparisons and
IN lists on end_date, in WHERE and in ON alike.
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of

_CUE = re.compile(
    r"去年同期|上年同期|上一年同期|\b(?:the )?same (?:period|quarter) (?:of |in )?(?:last year|a year "
    r"(?:earlier|ago|before)|the (?:previous|prior) year)\b|\byear[- ]ago (?:period|quarter)\b",
    re.IGNORECASE,
)
# A report period other than the annual one.
_INTERIM = re.compile(
    r"一季|二季|三季|中报|半年报|上半年|前三季度|季报|季度"
    r"|\b(?:q[1-3]|h1|first half|interim|nine months|(?:first|second|third) quarter)\b",
    re.IGNORECASE,
)
_ANNUAL = re.compile(r"年报|年度报告|全年|\b(?:annual|full[- ]year|fy\s?\d{2,4})\b", re.IGNORECASE)


@dataclass(frozen=True)
class SamePeriodDetail:
    kind: ClassVar[Kind] = Kind.SAME_PERIOD

    def check(self, sql: Sql) -> Finding:
        annual = sorted(
            {
                c.day
                for c in sql.comparisons
                if c.day is not None
                and (c.day.month, c.day.day) == (12, 31)
                and c.op == "="
                and columns_of(c.subject) == {"end_date"}
            }
        )
        if annual:
            return failed(
                Attribution.TIME_SCOPE,
                f"the SQL reads the annual report of {annual[0].year}: the same period last year is the "
                f"quarter's own end a year earlier",
            )
        return passed("no annual report is read as the same period last year")


def extract(question: Question) -> list[Constraint]:
    cue = question.first_cue(_CUE)
    if cue is None or not _INTERIM.search(question.text) or _ANNUAL.search(question.text):
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：上一年的同一报告期，不是上一年的年报",
        f"“{span.text}”: the same report period a year earlier, not that year's annual report",
    )
    return [Constraint(span, text, question.lang, SamePeriodDetail())]
