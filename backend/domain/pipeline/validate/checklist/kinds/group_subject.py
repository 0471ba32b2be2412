"""A question whose subject is a group (哪些行业, 哪个板块, which industries, which exchange) asks for
the groups themselves: the answer's own SELECT returns the group's values (grouped by that dimension, or
its distinct values), never a list of stocks with their group shown beside them, which answers "which
stocks". A question about the stocks of such groups (哪些行业的股票, which industries' stocks) is about
stocks and is not read. Only the answer's own SELECT is judged; several queries are undecidable.

A day as the subject (哪天, 哪个交易日, which session, which trading day) asks for days: an answer that
shows stocks and no date (grouped by stock: the stock with the most down days) answers another question.
One stock's day may be shown beside its code (贵州茅台哪天成交量最大), so only a missing date fails; a
question asking which stocks too (哪些股票在哪天…) is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import per_group
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name, is_date_column

# The group columns a subject word may mean, and the words (板块 is a board or an industry sector).
_SUBJECTS: tuple[tuple[frozenset[str], str, str], ...] = (
    (frozenset({"industry"}), r"行业", r"industry|industries|sectors?"),
    (frozenset({"market", "industry"}), r"板块", r"boards?"),
    (frozenset({"exchange"}), r"交易所", r"exchanges?"),
    (frozenset({"area"}), r"地区|省份|省市", r"regions?|provinces?"),
)
_DAYS = frozenset({"trade_date"})
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_DAY_SUBJECT = re.compile(
    r"哪(?:一|几)?天|哪(?:个|些|几个|一个)交易日"
    rf"|\bwhich\s+(?:(?:{_MONTH}\s+)?(?:\d{{4}}\s+)?(?:trading\s+)?(?:days?|sessions?)|dates?)\b"
)
# A day's date folded into a longer period (toStartOfWeek(trade_date)): weeks or months shown, not days.
_PERIODS = frozenset(
    {
        "tostartofweek", "tomonday", "tostartofmonth", "tostartofquarter", "tostartofyear", "toyyyymm",
        "toyearweek", "toweek", "toisoweek", "tomonth", "toquarter", "toyear", "datetrunc", "date_trunc",
    }
)  # fmt: skip
_STOCK_SUBJECT = re.compile(
    r"哪些(?:股票|公司|个股)|哪(?:只|家)|哪个(?:股票|公司)|\bwhich\s+(?:stocks?|companies|company|names|shares)\b"
)
_STOCKS_OF_ZH = r"(?!的?(?:股票|公司|个股|成分股|上市公司))"
_STOCKS_OF_EN = r"(?!['’]s?\s|\s+(?:stocks?|companies|company|shares|names|members)\b)"


def _subject_pattern(zh: str, en: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?:哪些|哪个|哪几个|哪一个|哪类)(?:{zh}){_STOCKS_OF_ZH}|\bwhich\s+(?:{en})\b{_STOCKS_OF_EN}"
    )


_SUBJECT_PATTERNS = tuple((columns, _subject_pattern(zh, en)) for columns, zh, en in _SUBJECTS)


def _is_stock_code(projection: exp.Expr) -> bool:
    column = projection.unalias()
    return isinstance(column, exp.Column) and column.name.lower() == "ts_code"


_PERIOD_NODES = (exp.TimestampTrunc, exp.DateTrunc, exp.Year, exp.Month, exp.Quarter, exp.Week)


def _in_period(column: exp.Column) -> bool:
    """The date sits under a period function within its projection."""
    parent = column.parent
    while parent is not None and not isinstance(parent, exp.Select):
        if isinstance(parent, _PERIOD_NODES):  # toStartOfMonth, toYear … as sqlglot reads them
            unit = parent.args.get("unit")
            if unit is None or unit.name.upper() != "DAY":
                return True
        if isinstance(parent, exp.Func) and function_name(parent) in _PERIODS:
            return True
        parent = parent.parent
    return False


@dataclass(frozen=True)
class GroupSubjectDetail:
    kind: ClassVar[Kind] = Kind.GROUP_SUBJECT
    columns: frozenset[str]  # the group columns whose values the question may ask for

    def check(self, sql: Sql) -> Finding:
        if not isinstance(sql.tree, exp.Select):
            return undecided("the SQL combines several queries; what each returns is not read")
        select = sql.tree
        if self.columns == _DAYS:
            return self._days(sql, select)
        if any(_is_stock_code(projection) for projection in select.expressions):
            return failed(
                Attribution.GROUPING,
                f"the answer lists stocks; the question asks which {self._named} values",
            )
        keys = set().union(*(columns_of(key) for key in per_group.group_keys(sql, select)))
        shown = set().union(*(columns_of(projection) for projection in select.expressions))
        if keys & self.columns or (select.args.get("distinct") is not None and shown & self.columns):
            return passed(f"the answer returns {self._named} values")
        return undecided(f"the answer neither lists stocks nor groups by {self._named}")

    def _days(self, sql: Sql, select: exp.Select) -> Finding:
        shown = set().union(
            *(columns_of(sql.resolve(projection, select)) for projection in select.expressions)
        )
        if any(is_date_column(column) for column in shown):
            resolved = [sql.resolve(projection, select) for projection in select.expressions]
            dates = [c for p in resolved for c in p.find_all(exp.Column) if is_date_column(c.name.lower())]
            if all(_in_period(column) for column in dates):
                return failed(
                    Attribution.GROUPING,
                    "the answer shows its dates folded into longer periods (weeks, months); the question "
                    "asks which day",
                )
            return passed("the answer shows days")
        if any(_is_stock_code(projection) for projection in select.expressions):
            return failed(
                Attribution.GROUPING, "the answer lists stocks and no day; the question asks which day"
            )
        return undecided("the answer shows neither stocks nor a date column")

    @property
    def _named(self) -> str:
        return " or ".join(sorted(self.columns))


def extract(question: Question) -> list[Constraint]:
    found = [
        (match, columns) for columns, pattern in _SUBJECT_PATTERNS if (match := pattern.search(question.text))
    ]
    day = _DAY_SUBJECT.search(question.text)
    if day is not None and not _STOCK_SUBJECT.search(question.text):
        found.append((day, _DAYS))
    if len(found) != 1:
        return []  # no group subject, or several (哪个交易所哪个行业…): not read
    match, columns = found[0]
    span = question.span(*match.span())
    text = (
        question.says(
            f"{span.text}：答案是日期，不是股票列表", f"{span.text}: the answer is days, not stocks"
        )
        if columns == _DAYS
        else question.says(
            f"{span.text}：答案是分组本身，不是股票列表",
            f"{span.text}: the answer is the groups themselves, not a list of stocks",
        )
    )
    return [Constraint(span, text, question.lang, GroupSubjectDetail(columns))]
