"""Windows of N days, bars, years or report periods: 近20个交易日, 60日均线, 连续三年, last 5 trading days.

The count must reach the SQL as N, N - 1 (ROWS BETWEEN N-1 PRECEDING) or N + 1 (the base day of a
gain over N days), in a LIMIT, a frame, an INTERVAL or a comparison such as count() = N. A SQL that
writes the window as literal days (trade_date > '2025-12-03', the calendar read at translation
time) is undecidable: counting those trading days needs the calendar.
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
from backend.domain.pipeline.validate.checklist.question import COUNT, Question, parse_count
from backend.domain.pipeline.validate.checklist.sqltree import Sql, date_value

_UNIT_ZH = r"个?交易日|天|日|周|个月|月|年|个报告期|报告期|期"  # not 季度: 前三季度 is a report period
_UNIT_EN = (
    r"(?:trading )?(?:days?|sessions?)|years?|weeks?|months?|quarters?"
    r"|annual reports?|report periods?|reports?"
)
_PATTERNS = (
    re.compile(rf"(?:近|最近|过去|前|连续)\s*(?P<n>{COUNT})\s*(?P<unit>{_UNIT_ZH})"),
    re.compile(r"(?P<n>\d+)\s*(?P<unit>日)(?:均线|线|均量|新高|新低)"),
    re.compile(rf"\b(?:last|past|previous|prior|recent)\s+(?P<n>{COUNT})\s+(?P<unit>{_UNIT_EN})\b"),
    re.compile(rf"\b(?P<n>{COUNT})\s+consecutive\s+(?P<unit>{_UNIT_EN})\b"),
    re.compile(rf"\b(?P<n>{COUNT})\s+(?P<unit>(?:trading )?days|years|sessions)\s+in\s+a\s+row\b"),
    re.compile(r"\b(?P<n>\d+)[- ](?P<unit>day)\s+(?:moving average|ma|high|low|average)\b"),
)


@dataclass(frozen=True)
class WindowDetail:
    kind: ClassVar[Kind] = Kind.WINDOW
    count: int
    unit: str

    def check(self, sql: Sql) -> Finding:
        if sql.has_number((float(self.count), float(self.count - 1), float(self.count + 1))):
            return passed(f"a window of {self.count} {self.unit} appears in the SQL")
        if _days_written_out(sql):
            return undecided("the window is written as days; counting its trading days needs the calendar")
        return failed(Attribution.TIME_SCOPE, f"no window of {self.count} {self.unit} appears in the SQL")


def _days_written_out(sql: Sql) -> bool:
    """A date range bounded by literal days, or a list of them (IN ('2025-12-03', '2025-12-31'))."""
    ranged = any(c.day is not None and c.op in {">", ">=", "<", "<="} for c in sql.comparisons)
    listed = any(
        sum(date_value(v) is not None for v in node.expressions) >= 2 for node in sql.tree.find_all(exp.In)
    )
    return ranged or listed


def extract(question: Question) -> list[Constraint]:
    constraints: list[Constraint] = []
    taken: set[int] = set()
    for pattern in _PATTERNS:
        for match in pattern.finditer(question.text):
            count = parse_count(match["n"])
            if count is None or count < 2 or match.start("n") in taken:
                continue
            taken.add(match.start("n"))
            span = question.span(match.start(), match.end())
            text = question.says(f"时间窗口 {span.text}（{count}）", f"a window of {count}: “{span.text}”")
            constraints.append(Constraint(span, text, question.lang, WindowDetail(count, match["unit"])))
    return sorted(constraints, key=lambda constraint: constraint.span.start)
