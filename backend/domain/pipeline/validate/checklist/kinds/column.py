"""A measure the question names is read from its own column, not from a neighbouring one.

Neighbours are the stored columns of the same table in the same unit (semantic model): pe and pe_ttm,
total_mv and circ_mv, close and pre_close/open/high/low, netprofit_yoy and or_yoy, n_income and
n_income_attr_p; and, across units, the measures of trading activity named by their noun (成交量,
volume, 成交额, trading value; not "traded"): the volume and the trading value, the volume ratio
for the volume. A SQL that reads a neighbour and never the named column answers about another
measure (static P/E for TTM P/E, revenue growth for profit growth, the
previous close for the close). A measure with a formula (振幅 = (high − low) / pre_close) must read
every column of its formula: one left out with no same-unit column read in its place (the range
divided by the low), or none of them but a stored neighbour (abs(pct_chg) for the amplitude), is
another measure. A named measure the SQL computes otherwise (a gain from two closes) is not judged, nor
one named with its growth (revenue grew 20% year on year: a growth-rate column answers it). A stored
year-on-year rate (净利润同比) never read is undecided: computing it takes the amount of two periods,
and the amount of one period read in its place (净利润 > 0 for 净利润同比为正) is another measure.
高开 / 低开 said as a condition (低开的股票, 今天低开) must be tested: the open compared, not only shown.
The close said with its move (收盘却下跌, closed more than 5% higher) names the day's change: the stored
change (pct_chg, change) answers it without the close.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
    Outcome,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of
from backend.domain.pipeline.validate.checklist.vocabulary import Category, Hit, MetricInfo, Vocabulary

# Words for the price in general (股价, share price): they name no one price of the bar, so a SQL
# reading the high or the low for them reads no neighbour in place of the close.
_GENERIC_PRICE = frozenset(
    {
        "股价",
        "价格",
        "现价",
        "最新价",
        "price",
        "share price",
        "stock price",
        "priced",
        "priced at",
        "trading at",
    }
)


# An amount named with its growth rate ("revenue grew 20% year on year", 营收同比增长30%) is read from a
# growth-rate column of another table: the amount's own column need not be read. Growth without a rate
# (净利润连续三年增长) compares the amounts themselves.
_GROWTH_RATE = re.compile(
    r"同比|环比|增速|增幅|增长率|\d+(?:\.\d+)?\s*%"
    r"|\b(?:year[- ]on[- ]year|year[- ]over[- ]year|yoy|growth rate)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[，,、；;。？?]")


def _with_growth(question: Question, hit: Hit) -> bool:
    """An amount (money) followed in its clause by a growth rate."""
    if question.vocabulary.metrics[hit.key].unit_kind != "money":
        return False
    reach = 10 if question.lang is Lang.ZH else 40
    after = _CLAUSE_END.split(question.text[hit.end : hit.end + reach])[0]
    return _GROWTH_RATE.search(after) is not None


# "yesterday's close", 昨日收盘价: the previous close, stored as pre_close, may be what is named
_PREVIOUS = re.compile(
    r"(?:昨日?|前一(?:个交易)?日|上一(?:个交易)?日|yesterday'?s?|previous|prior|last)\s*(?:的)?\s*$"
)


def _of_previous_day(question: Question, hit: Hit) -> bool:
    return _PREVIOUS.search(question.text[max(0, hit.start - 20) : hit.start]) is not None


# 高开 / 低开 followed by 的, a conjunction or the end: a condition on the open (not 低开最多, a ranking,
# nor 低开超过2%, a threshold the number kind reads; 跳空高开 is a gap, which bar_relation reads).
_CONDITIONS = {"高开": "open", "低开": "open"}
_CONDITION_END = re.compile(r"^(?:的|且|并|而|、|，|,|。|？|\?|\s|$)")
_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ, exp.NEQ)


# Words a verb and its object may have between them (booked the most revenue, earned record sales).
_OBJECT_GAP = re.compile(
    r"^\s*(?:(?:the|a|an|its|their|most|least|more|less|highest|lowest|largest|biggest|greatest|"
    r"smallest|record|top|over|under|above|below|\d[\d,.]*\s*(?:[kmb]n?|billion|million)?)\s+)*$",
    re.IGNORECASE,
)


def _verb_of(question: Question, hit: Hit) -> bool:
    """A measure word that is the verb of another measure of its table and unit (booked the most
    revenue, earned more profit): the object names what is read; the verb names nothing of its own."""
    metrics = question.vocabulary.metrics
    own = metrics[hit.key]
    return any(
        other.start >= hit.end
        and other.key != hit.key
        and metrics[other.key].table == own.table
        and _unit(metrics[other.key]) == _unit(own)
        and _OBJECT_GAP.match(question.text[hit.end : other.start]) is not None
        for other in question.hits_of(Category.METRIC)
    )


# A move right after the close word (收盘却下跌, 收盘上涨, closed 5% higher, closed down): the day's change,
# not a comparison of the close with another price (closed higher than the open).
_MOVE_AFTER = {
    Lang.ZH: re.compile(
        r"^价?\s*(?:却|仍然|仍|依然|依旧|还|也|都|均|时|则|而|反而){0,2}"
        r"\s*(?:上涨|下跌|收涨|收跌|涨|跌|翻红|翻绿)"
    ),
    Lang.EN: re.compile(
        r"^\s+(?:(?:more than|over|at least|less than|under|nearly|almost|about|up to)\s+)?"
        r"(?:\d+(?:\.\d+)?\s*%\s*)?(?:higher|lower|up|down)\b(?!\s+than\b)",
        re.IGNORECASE,
    ),
}
_DAY_CHANGE = frozenset({"pct_chg", "change"})


def _said_with_move(question: Question, hit: Hit) -> frozenset[str]:
    """The stored changes that answer the close named with its move (收盘却下跌), or none."""
    if question.vocabulary.metrics[hit.key].columns != {"close"}:
        return frozenset()
    return _DAY_CHANGE if _MOVE_AFTER[question.lang].match(question.text[hit.end :]) else frozenset()


def _condition_on(question: Question, hit: Hit) -> str:
    """The column a condition word tests (the open for 低开的股票), or ""."""
    column = _CONDITIONS.get(question.text[hit.start : hit.end], "")
    gap = question.text[: hit.start].endswith("跳空")
    return column if column and not gap and _CONDITION_END.match(question.text[hit.end :]) else ""


def _compared(sql: Sql, column: str) -> bool:
    """Whether a comparison reads the column (also through an alias it compares)."""
    raw = (columns_of(node) for node in sql.tree.find_all(*_COMPARISONS))
    resolved = (columns_of(comparison.subject) for comparison in sql.comparisons)
    return any(column in found for found in (*raw, *resolved))


def _unit(metric: MetricInfo) -> tuple[bool, str, str]:
    return metric.percent, metric.unit_kind, metric.stored_unit


def _stored(vocabulary: Vocabulary) -> list[MetricInfo]:
    return [metric for metric in vocabulary.metrics.values() if not metric.derived]


def _columns_read(sql: Sql) -> frozenset[str]:
    """Columns the SQL reads from its tables (a name the query defines as an alias is not one)."""
    aliases = {
        node.alias.lower()
        for node in sql.tree.find_all(exp.Alias)
        if not (isinstance(node.this, exp.Column) and node.this.name.lower() == node.alias.lower())
    }
    return frozenset(c.name.lower() for c in sql.tree.find_all(exp.Column)) - aliases


@dataclass(frozen=True)
class ColumnDetail:
    kind: ClassVar[Kind] = Kind.COLUMN
    metric: str
    columns: frozenset[str]  # the stored column, or the formula's columns
    neighbours: frozenset[str]  # stored columns of the same table and unit (a formula's: not named)
    stand_ins: frozenset[str] = frozenset()  # for a formula: same-unit columns that may replace one of it
    yearly_rate: bool = False  # a stored year-on-year growth rate (the semantic model's yoy convention)
    condition_on: str = ""  # named as a condition (低开的股票): the column the SQL must compare
    moves: frozenset[str] = frozenset()  # named with its move (收盘却下跌): stored changes that answer it

    def _tested(self, sql: Sql, finding: Finding) -> Finding:
        if not self.condition_on or finding.outcome is not Outcome.PASS or _compared(sql, self.condition_on):
            return finding
        return failed(
            Attribution.CONDITION,
            f"{self.metric} is asked as a condition, but the SQL never compares {self.condition_on}",
        )

    def check(self, sql: Sql) -> Finding:
        return self._tested(sql, self._read(sql))

    def _read(self, sql: Sql) -> Finding:
        read = _columns_read(sql)
        if self.columns <= read:
            return passed(f"the SQL reads {', '.join(sorted(self.columns))}")
        if read & self.moves:
            return passed(
                f"{self.metric} is said with its move, which {', '.join(sorted(read & self.moves))} reads"
            )
        instead = sorted(read & self.neighbours)
        if not read & self.columns:
            if instead:
                return failed(
                    Attribution.ENTITY_MAPPING,
                    f"the SQL reads {', '.join(instead)} and never {'/'.join(sorted(self.columns))}, "
                    f"which the question names ({self.metric})",
                )
            if self.yearly_rate:
                return undecided(
                    f"{self.metric} is never read; whether the SQL computes the growth is not read"
                )
            return passed(f"{self.metric} is computed otherwise; no neighbouring column is read in its place")
        missing = ", ".join(sorted(self.columns - read))
        if read & self.stand_ins:
            return undecided(f"{missing} of {self.metric}'s formula may be read through another column")
        return failed(
            Attribution.ENTITY_MAPPING, f"{self.metric} needs {missing} too; the SQL computes another measure"
        )


# Measures of trading activity read in place of one another across units: the volume (手) for the
# trading value (千元) and back, the volume ratio (量比) for the volume. Not the turnover rate:
# "turnover" names the value or the rate.
_ACTIVITY = {"vol": frozenset({"amount", "volume_ratio"}), "amount": frozenset({"vol"})}
_ACTIVITY_NOUNS = re.compile(r"成交量|成交额|成交金额|\b(?:volume|trading value|turnover amount)\b")


def _detail(
    metric: MetricInfo, named: frozenset[str], vocabulary: Vocabulary, activity: bool = False
) -> ColumnDetail | None:
    same_table = [other for other in _stored(vocabulary) if other.table == metric.table]
    # a stored measure read nowhere while its neighbour is read is another measure, even when the
    # question names the neighbour too (净利润同比 and 营收同比 both asked, only or_yoy read)
    excluded = named if metric.derived else metric.columns
    neighbours = frozenset(
        column
        for other in same_table
        if _unit(other) == _unit(metric)
        for column in other.columns
        if column not in excluded
    )
    stand_ins: frozenset[str] = frozenset()
    if metric.derived:
        units = {_unit(other) for other in same_table if other.columns <= metric.columns}
        stand_ins = frozenset(
            column
            for other in same_table
            if _unit(other) in units
            for column in other.columns
            if column not in metric.columns
        )
    if activity and metric.columns <= _ACTIVITY.keys():
        # volume and trading value are told apart by their own column, whatever their units
        neighbours |= {column for own in metric.columns for column in _ACTIVITY[own]} - excluded
    if not neighbours and not metric.derived:
        return None
    yearly_rate = not metric.derived and all(column.endswith("_yoy") for column in metric.columns)
    return ColumnDetail(metric.key, metric.columns, neighbours, stand_ins, yearly_rate)


def extract(question: Question) -> list[Constraint]:
    vocabulary = question.vocabulary
    hits = [
        hit
        for hit in question.hits_of(Category.METRIC)
        if question.text[hit.start : hit.end] not in _GENERIC_PRICE
        and not _with_growth(question, hit)
        and not _of_previous_day(question, hit)
        and not _verb_of(question, hit)
    ]
    named = frozenset(
        column for hit in question.hits_of(Category.METRIC) for column in vocabulary.metrics[hit.key].columns
    )
    found: list[Constraint] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.key in seen:
            continue
        seen.add(hit.key)
        said = question.text[hit.start : hit.end]
        detail = _detail(
            vocabulary.metrics[hit.key], named, vocabulary, bool(_ACTIVITY_NOUNS.fullmatch(said))
        )
        if detail is None:
            continue
        detail = replace(
            detail, condition_on=_condition_on(question, hit), moves=_said_with_move(question, hit)
        )
        span = question.span(hit.start, hit.end)
        of = "/".join(sorted(detail.columns))
        text = question.says(f"“{span.text}”：读取 {of}", f"“{span.text}”: read from {of}")
        found.append(Constraint(span, text, question.lang, detail))
    return found
