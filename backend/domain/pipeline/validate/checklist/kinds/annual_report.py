"""Annual reports: 年报 / 年度报告 / 连续三年 (净利润连续三年增长) / annual report / three years in a row →
the report figures read are those of year-end periods (end_date on December 31).

The SQL shows it by `toMonth(end_date) = 12`, or end_date compared with December 31 days only. A
month other than 12, a December 31 day excluded (!=, NOT IN), or an end_date pinned to another day is
a wrong period; report figures read with no restriction to the year's end mix in the quarters.
When the question names the latest report or the year to date beside the annual one (lost money in
the 2024 annual report but profitable in the latest report), that other period may be read too.
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
from backend.domain.pipeline.validate.checklist.sqltree import Comparison, Sql, function_name

_CUE = re.compile(
    r"年报|年度报告|年度财报|连续\s*(?:\d+|[两二三四五六七八九十])\s*年"
    r"|\b(?:annual reports?|full[- ]year results|(?:\d+|two|three|four|five) (?:straight|consecutive) years"
    r"|(?:\d+|two|three|four|five) years in a row)\b",
    re.IGNORECASE,
)
_QUARTERLY = re.compile(r"季报|季度|中报|半年|\bquarter|\bQ[1-4]\b|\binterim\b", re.IGNORECASE)
# The latest report or the year to date named beside the annual report: a second period is asked.
_LATEST_REPORT = re.compile(
    r"(?:最新(?:一期)?(?:的)?(?:报告期|财报|报告|一期)|最近一期)(?!的?年报|的?年度)|年初至今"
    r"|\b(?:latest|most recent|newest) (?:report|reporting period|filing)|\byear[- ]to[- ]date\b|\bytd\b",
    re.IGNORECASE,
)
_MONTH_FUNCTIONS = {"tomonth", "month"}


def _on_end_date(comparison: Comparison) -> str | None:
    """ "day" for end_date itself, "month" for toMonth(end_date), None otherwise."""
    subject = comparison.subject
    if isinstance(subject, exp.Column) and subject.name.lower() == "end_date":
        return "day"
    if (
        isinstance(subject, exp.Func)
        and function_name(subject) in _MONTH_FUNCTIONS
        and any(column.name.lower() == "end_date" for column in subject.find_all(exp.Column))
    ):
        return "month"
    return None


@dataclass(frozen=True)
class AnnualReportDetail:
    kind: ClassVar[Kind] = Kind.ANNUAL_REPORT
    latest_too: bool = False  # the latest report is asked as well: a period off December 31 may be read

    def check(self, sql: Sql) -> Finding:
        if not any(isinstance(node, exp.Column) and node.name.lower() == "end_date" for node in sql.nodes()):
            return undecided("the SQL reads no report period (end_date)")
        year_end = wrong = False
        for comparison in sql.comparisons:
            what = _on_end_date(comparison)
            if what is None:
                continue
            keeps = comparison.op == "=" and not comparison.negated
            excludes = comparison.op == "!=" and not comparison.negated
            if what == "month" and comparison.number is not None:
                december = comparison.number == 12
                year_end |= keeps and december
                wrong |= (keeps and not december and not self.latest_too) or (excludes and december)
            elif what == "day" and comparison.day is not None:
                december = (comparison.day.month, comparison.day.day) == (12, 31)
                year_end |= keeps and december
                wrong |= (keeps and not december and not self.latest_too) or (excludes and december)
        if wrong:
            return failed(Attribution.TIME_SCOPE, "the SQL reads a report period other than the annual one")
        if year_end:
            return passed("the SQL reads year-end (annual) report periods")
        if any("12-31" in text for text in sql.strings):
            return undecided("December 31 is written, but not compared with end_date directly")
        return failed(Attribution.TIME_SCOPE, "the SQL never restricts the report periods to the year's end")


def extract(question: Question) -> list[Constraint]:
    if _QUARTERLY.search(question.text):
        return []
    cue = question.first_cue(_CUE)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：读取年报（报告期为 12 月 31 日）",
        f"“{span.text}”: annual reports (periods ending December 31)",
    )
    detail = AnnualReportDetail(latest_too=_LATEST_REPORT.search(question.text) is not None)
    return [Constraint(span, text, question.lang, detail)]
