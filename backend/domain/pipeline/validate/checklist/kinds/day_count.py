"""A number of days, occurrences or stocks with a bound (至少3天 / 超过5个交易日 / at least 4 of the
last 10 trading days / more than 3 days / 不超过2天 / at most 2 days / 三次及以上 / at least three
stocks / 5 times or more; not "over N days", which is also a span) bounds a count, and says whether
N itself counts:
at least N is `count >= N` (or `> N - 1`), more than N is `count > N` (or `>= N + 1`), fewer than N is
`count < N`, at most N is `count <= N`. A count compared with N (or N ± 1) the other way — `> 3` for
至少3天 — drops or adds the stocks exactly at N. A count is what count/countIf/sum/uniq give (through
aliases and subquery outputs); with no such comparison near N there is no edge counted wrongly: it
passes, as does "at least one day" (an existence, not a count), which is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
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
from backend.domain.pipeline.validate.checklist.sqltree import Comparison, Sql, function_name, strip


class Bound(StrEnum):
    AT_LEAST = "at_least"
    MORE_THAN = "more_than"
    FEWER_THAN = "fewer_than"
    AT_MOST = "at_most"


_WORDS = {
    "至少": Bound.AT_LEAST, "不少于": Bound.AT_LEAST, "不低于": Bound.AT_LEAST,
    "超过": Bound.MORE_THAN, "多于": Bound.MORE_THAN, "大于": Bound.MORE_THAN,
    "少于": Bound.FEWER_THAN, "不到": Bound.FEWER_THAN, "不足": Bound.FEWER_THAN,
    "最多": Bound.AT_MOST, "至多": Bound.AT_MOST, "不超过": Bound.AT_MOST, "不多于": Bound.AT_MOST,
    "at least": Bound.AT_LEAST, "no fewer than": Bound.AT_LEAST, "no less than": Bound.AT_LEAST,
    "more than": Bound.MORE_THAN,
    "fewer than": Bound.FEWER_THAN, "less than": Bound.FEWER_THAN,
    "at most": Bound.AT_MOST, "no more than": Bound.AT_MOST,
}  # fmt: skip
_WORD = "|".join(sorted((re.escape(word) for word in _WORDS), key=len, reverse=True))
# Days, occurrences (次, times) or stocks counted (家, 只, stocks, companies).
_UNIT = (
    r"(?:个交易日|交易日|天|日(?!均|线)|次|家|只(?:股票)?"
    r"|(?:of\s+(?:the\s+)?(?:last|past|previous)\s+\d+\s+)?(?:trading\s+)?(?:days|sessions)\b"
    r"|times\b|(?:stocks|companies|names)\b)"
)
_DAYS = re.compile(rf"(?P<word>{_WORD})\s*有?\s*(?P<n>{COUNT})\s*{_UNIT}", re.IGNORECASE)
# The bound said after the count: 三次及以上, 5 days or more.
_AT_LEAST_AFTER = re.compile(
    rf"(?<![\d.])(?P<n>{COUNT})\s*{_UNIT}\s*(?:(?:及|或|含)以上|or more\b)", re.IGNORECASE
)
_COUNTING = ("count", "uniq", "sum", "arraycount", "length")
# Stored measures of a bar: their sum is a total (sum(pct_chg) adds the changes), never a number of days.
_MEASURES = {
    "pct_chg",
    "change",
    "close",
    "open",
    "high",
    "low",
    "pre_close",
    "vol",
    "amount",
    "turnover_rate",
}


def _is_count(node: exp.Expr) -> bool:
    return any(function_name(function).startswith(_COUNTING) for function in (node, *node.find_all(exp.Func)))


def _measure_total(node: exp.Expr) -> str | None:
    """The measure of sum(measure): a total counted as if it were a number of days."""
    node = strip(node)
    if isinstance(node, exp.Sum) and isinstance(strip(node.this), exp.Column):
        name = strip(node.this).name.lower()
        return name if name in _MEASURES else None
    return None


def _bound_of(comparison: Comparison) -> tuple[bool, float] | None:
    """(lower?, the bound as an inclusive integer) of `count OP number`."""
    number = comparison.number
    if number is None or comparison.negated:
        return None
    return {
        ">": (True, number + 1),
        ">=": (True, number),
        "<": (False, number - 1),
        "<=": (False, number),
    }.get(comparison.op)


@dataclass(frozen=True)
class DayCountDetail:
    kind: ClassVar[Kind] = Kind.DAY_COUNT
    count: int
    bound: Bound

    def _wanted(self) -> tuple[bool, float]:
        return {
            Bound.AT_LEAST: (True, self.count),
            Bound.MORE_THAN: (True, self.count + 1),
            Bound.FEWER_THAN: (False, self.count - 1),
            Bound.AT_MOST: (False, self.count),
        }[self.bound]

    def check(self, sql: Sql) -> Finding:
        lower, wanted = self._wanted()
        near = [
            (comparison, bound)
            for comparison in sql.comparisons
            if _is_count(comparison.subject)
            and (bound := _bound_of(comparison)) is not None
            and bound[0] is lower
            and abs(bound[1] - wanted) <= 1
        ]
        totals = {t for comparison, _ in near if (t := _measure_total(comparison.subject)) is not None}
        near = [(c, b) for c, b in near if _measure_total(c.subject) is None]
        if not near and totals:
            return failed(
                Attribution.AGGREGATION,
                f"sum({', '.join(sorted(totals))}) adds the values up: the question bounds a count "
                f"(days, times or stocks) at {self.count}, not a total",
            )
        if not near:
            return passed(f"no count is bounded near {self.count}, so none is one off")
        if any(bound[1] == wanted for _, bound in near):
            return passed(f"the count is bounded at {wanted:g}, N included as asked")
        comparison, bound = near[0]
        return failed(
            Attribution.CONDITION,
            f"the count is compared `{comparison.op} {comparison.number:g}` "
            f"(a bound of {bound[1]:g}) where the question's bound is {wanted:g}: "
            "the stocks exactly at the edge are counted wrongly",
        )


def extract(question: Question) -> list[Constraint]:
    found = []
    matches = [*_DAYS.finditer(question.text), *_AT_LEAST_AFTER.finditer(question.text)]
    for match in matches:
        count = parse_count(match["n"])
        if count is None or count < 2:  # one day at least is an existence, not a count
            continue
        bound = _WORDS[match["word"].lower()] if "word" in match.groupdict() else Bound.AT_LEAST
        span = question.span(match.start(), match.end())
        text = question.says(
            f"“{span.text}”：计数的界限（含不含 {count}）",
            f"“{span.text}”: a bound on the count ({count} in or out)",
        )
        found.append(Constraint(span, text, question.lang, DayCountDetail(count, bound)))
    return found
