"""A period's return, not a day's change: 全年涨幅 / 今年以来涨了 / 年初至今 / 区间涨幅 / 涨幅翻倍 /
year to date / so far this year / full-year gain → a gain between two closes of the period.

The gain over a period is written as a ratio of two prices (the period's last close over the base
close, through argMax, sumIf, a join of two days …) or compounded daily changes. A SQL whose only
gain is the stored one-day `pct_chg` (or `change`) compared or shown row by row answers "rose that
much on one day". Sums of daily changes approximate the return: undecidable.

A year's gain (2025年全年涨幅, 2025年以来, full-year 2025) is based on the last close before the year
(benchmarks/language/README.md): a SQL whose days all lie in the year — bounded from its first day,
nothing read before it (no earlier day, no `< first day` lookup, no previous year's number, no
pre_close or daily change that carries the first day's move) — bases the gain on the year's first
close and loses that day's move (time_scope); so does a gain this year (今年以来, year to date) whose
SQL reads days only from a January 1 on. No day written at all: undecided. Daily changes summed are not
the period's gain (it compounds them): aggregation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
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
from backend.domain.pipeline.validate.checklist.question import COUNT, Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    enclosing_select,
    function_name,
    is_date_column,
    strip,
)

_GAIN_ZH = r"(?:涨幅|涨跌幅|收益率?|回报率?|涨了|上涨|下跌|跌了|跌幅|翻倍|翻番)"
_CUE = re.compile(
    rf"(?:全年|年内|年初至今|年初以来|今年以来|本年以来|年度|整年|区间|累计|(?:\d{{4}}年|今年|年初)以来)的?\s*{_GAIN_ZH}"
    # 2025年以来各板块的平均涨幅, 近20个交易日涨幅: a span, then its gain (not 每天/连续/都: a move each day)
    rf"|(?:(?:\d{{4}}年|今年|年初)以来|(?:近|最近|过去)\s*{COUNT}\s*个?\s*(?:交易日|天|日|周|个月|月|年))"
    r"[^，,。？?；;每连都天日]{0,12}?(?:涨幅|跌幅|涨跌幅|收益率|回报率)"
    r"|涨幅翻倍|股价翻倍"
    r"|\b(?:year[- ]to[- ]date|ytd|so far this year|since the (?:start|beginning) of the year"
    r"|full[- ]year (?:gain|return|change)|for the (?:whole |full )?year|cumulative (?:gain|return)"
    r"|(?:gain|return)s? over the (?:whole |full )?year)\b"
    # a gain over N days: the 20-day gain, top gainers over the past 20 trading days
    rf"|\b(?!one\b|1\b|single\b){COUNT}[- ](?:trading[- ])?(?:day|session|week|month)s? "
    r"(?:gain|return|rise|decline|change)s?\b"
    rf"|\b(?:gain|return|gainers|losers|performers)\b[^.,;?]{{0,30}}?\b(?:over|in) the (?:past|last) {COUNT} "
    r"(?:trading )?(?:days|sessions|weeks|months)\b",
    re.IGNORECASE,
)
_DAILY_CHANGE = {"pct_chg", "change"}
_PRICES = {"close", "open", "high", "low", "adj_close", "qfq_close", "hfq_close"}  # not pre_close: one day
_COMPOUNDING = {"exp", "exp2", "exp10", "arrayproduct", "product"}


@dataclass(frozen=True)
class PeriodReturnDetail:
    kind: ClassVar[Kind] = Kind.PERIOD_RETURN
    start: date | None = None  # the first day of the year whose gain is asked
    this_year: bool = False  # 今年以来 / year to date: the year is the one whose first day the SQL writes

    def _base_in_period(self, sql: Sql) -> Finding | None:
        """A failure when the SQL reads days from the period's first day on and nothing before it."""
        dated = [c for c in sql.comparisons if c.day is not None and _on_a_day(c.subject)]
        start = self.start
        if start is None and self.this_year:
            # without data the year is known only when the SQL writes one day, a January 1, and no year
            days = set(sql.dates)
            first = next(iter(days)) if len(days) == 1 else None
            years = any(1990 <= n <= 2100 for n in sql.numbers)
            start = first if first is not None and (first.month, first.day) == (1, 1) and not years else None
        if start is None or _CARRIES_FIRST_MOVE & columns_of(sql.tree):
            return None
        # from the first day on: a bound on it, or the year itself kept (toYear(trade_date) = 2025)
        whole_year = (start.month, start.day) == (1, 1) and any(
            c.op == "=" and c.number == start.year and function_name(strip(c.subject)) == "toyear"
            for c in sql.comparisons
        )
        if not whole_year and not any(c.day == start and c.op in {">=", "="} for c in dated):
            return None
        before = any(day < start for day in sql.dates) or any(
            c.day == start and c.op in {"<", "<="} for c in dated
        )
        if before or sql.has_number((float(start.year - 1),)):
            return None
        return failed(
            Attribution.TIME_SCOPE,
            f"the SQL reads no day before {start}: the gain is based on the year's first close, not on "
            "the last close before the year, and the first day's move is lost",
        )

    def check(self, sql: Sql) -> Finding:
        if any(_between_prices(sql, node) for node in sql.nodes() if isinstance(node, _PRICE_PAIRS)):
            return self._base_in_period(sql) or passed("the gain compares two prices")
        if any(function_name(node) in _COMPOUNDING for node in sql.nodes() if isinstance(node, exp.Func)):
            return passed("the daily changes are compounded")
        daily = [
            node
            for node in sql.nodes()
            if isinstance(node, exp.Column) and node.name.lower() in _DAILY_CHANGE
        ]
        if not daily:
            return undecided("no price ratio and no daily change: how the gain is computed is not read")
        aggregated = [node.find_ancestor(exp.AggFunc, exp.Window) for node in daily]
        if any(isinstance(node, exp.Avg) for node in aggregated):
            return failed(
                Attribution.AGGREGATION,
                "the SQL averages the daily changes: a typical day's move, not the gain over the period",
            )
        if any(isinstance(node, exp.Sum) and _plain_changes(node.this) for node in aggregated):
            return failed(
                Attribution.AGGREGATION,
                "the SQL adds the daily changes up: the period's gain compounds them (a ratio of closes)",
            )
        if any(node is not None for node in aggregated):
            return undecided("daily changes are aggregated: how they make the period's return is not read")
        return failed(
            Attribution.TIME_SCOPE,
            "the SQL reads the stored one-day change, not the gain over the period asked",
        )


_PRICE_PAIRS = (exp.Div, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Sub)
# Columns that hold the move from the day before: the first day's move is in them.
_CARRIES_FIRST_MOVE = {"pre_close", "pct_chg", "change"}
_YEAR_BEFORE = re.compile(r"(?P<year>(?:19|20)\d{2})\s*年\s*$|\b(?P<en>(?:19|20)\d{2})\s*$")
_YEAR_IN = re.compile(r"(?P<year>(?:19|20)\d{2})\s*年|\b(?P<en>(?:19|20)\d{2})\b")
_THIS_YEAR = re.compile(
    r"今年以来|本年以来|年初至今|年初以来"
    r"|\b(?:year[- ]to[- ]date|ytd|so far this year|since the (?:start|beginning) of (?:the|this) year)\b",
    re.IGNORECASE,
)
_YEAR_CUE = re.compile(r"全年|年初|年以来|年内|整年|年度|full[- ]year|for the (?:whole |full )?year|over the")


def _plain_changes(node: exp.Expr) -> bool:
    """pct_chg, pct_chg / 100, (pct_chg): the changes themselves (not log(1 + pct_chg / 100))."""
    while not isinstance(node, exp.Column):
        divided = isinstance(node, exp.Div | exp.Mul) and isinstance(node.expression, exp.Literal)
        if isinstance(node, exp.Paren) or divided:
            node = node.this
        elif isinstance(node, exp.Mul) and isinstance(node.this, exp.Literal):
            node = node.expression
        else:
            return False
    return node.name.lower() in _DAILY_CHANGE


def _on_a_day(subject: object) -> bool:
    return isinstance(subject, exp.Column) and is_date_column(subject.name.lower())


def _year_start(question: Question, start: int, end: int) -> date | None:
    """The first day of the year a year's gain is asked for, when a year is written with it."""
    if not _YEAR_CUE.search(question.text, start, end):
        return None
    found = _YEAR_IN.search(question.text, start, end) or _YEAR_BEFORE.search(
        question.text[max(0, start - 8) : start]
    )
    if found is None:
        return None
    return date(int(found["year"] or found["en"]), 1, 1)


def _between_prices(sql: Sql, node: exp.Binary) -> bool:
    """A ratio, difference or comparison with a price on both sides (close / base close)."""
    select = enclosing_select(node)
    left = columns_of(sql.resolve(node.this, select))
    right = columns_of(sql.resolve(node.expression, select))
    return bool(left & _PRICES) and bool(right & _PRICES)


def extract(question: Question) -> list[Constraint]:
    cue = question.first_cue(_CUE)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：整段时期的涨幅（两个收盘价之比），不是某一天的涨跌幅",
        f"“{span.text}”: the gain over the period (a ratio of two closes), not one day's change",
    )
    this_year = _THIS_YEAR.search(question.text) is not None
    detail = PeriodReturnDetail(_year_start(question, cue.start(), cue.end()), this_year)
    return [Constraint(span, text, question.lang, detail)]
