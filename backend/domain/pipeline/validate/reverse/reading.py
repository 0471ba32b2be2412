"""What the reverse checks know about the question: the checklist's constraints, assembled into filters,
a scope, a day or report period, a ranking, an aggregate — or the reason it cannot be assembled.

Precision first. A reverse check turns the question into SQL of its own, so it may only do that when
nothing in the question escapes this reading: every word is a read constraint, a vocabulary word or
an empty word (的, 股票, which, today…). `clean` says the conditions read are *necessary* (each
returned stock must meet each of them: no "or", no unread modifier such as 单季 or 昨日); `complete`
says they are also *sufficient* (every metric named is read, so the question is exactly these parts).
Rules that only test returned rows need `clean`; rules that look for stocks missing from the answer,
recompute a count or rank need `complete`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from backend.domain.language.semantic import default_model
from backend.domain.language.translation import Evidence
from backend.domain.pipeline.validate.checklist import Constraint, Kind, Vocabulary
from backend.domain.pipeline.validate.checklist.entities import EntityRef
from backend.domain.pipeline.validate.checklist.kinds.aggregate import AggregateDetail, Function
from backend.domain.pipeline.validate.checklist.kinds.count import CountDetail
from backend.domain.pipeline.validate.checklist.kinds.date import DateDetail
from backend.domain.pipeline.validate.checklist.kinds.entity import EntityDetail
from backend.domain.pipeline.validate.checklist.kinds.negation import NegationDetail
from backend.domain.pipeline.validate.checklist.kinds.number import NumberDetail, Side
from backend.domain.pipeline.validate.checklist.kinds.order import OrderDetail
from backend.domain.pipeline.validate.checklist.kinds.per_group import PerGroupDetail
from backend.domain.pipeline.validate.checklist.kinds.top_k import TopKDetail
from backend.domain.pipeline.validate.checklist.question import Question, read_question
from backend.domain.pipeline.validate.checklist.vocabulary import Category

TRADE_TABLES = ("daily", "daily_basic")  # one row per stock and trading day
PERIOD_TABLES = ("income", "fina_indicator")  # one row per stock and report period
GROUP_COLUMNS = ("industry", "exchange", "market")  # stock_basic dimensions a question groups by

# Words that say nothing a reverse check must honour: how a question is phrased, "today" (the default
# day), what kind of thing is asked for. Anything else left over makes the reading unclean.
_EMPTY_ZH = (
    "请问", "请", "帮我", "查询", "查一下", "查", "找出", "找", "列出", "给出", "筛选", "筛出",
    "看看", "显示",
    "有哪些", "哪些", "哪只", "哪个", "哪家", "是哪些", "是什么", "是多少", "什么", "有", "是", "为",
    "今日", "今天", "今", "当日", "当天", "最新", "目前", "当前", "现在",
    "的", "且", "并且", "同时", "和", "与", "及", "以及", "其",
    "股票", "个股", "公司", "成分股", "成份股", "上市公司", "只", "家", "个", "支", "股",
    "中", "里", "之中", "当中", "所有", "全部", "一共", "共", "总共",
)  # fmt: skip
_EMPTY_EN = frozenset(
    [
        "a",
        "an",
        "the",
        "which",
        "what",
        "who",
        "are",
        "is",
        "was",
        "were",
        "be",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "that",
        "those",
        "these",
        "there",
        "with",
        "and",
        "of",
        "in",
        "on",
        "at",
        "for",
        "as",
        "among",
        "all",
        "any",
        "list",
        "show",
        "find",
        "give",
        "me",
        "please",
        "stocks",
        "stock",
        "shares",
        "share",
        "companies",
        "company",
        "names",
        "name",
        "constituents",
        "constituent",
        "members",
        "member",
        "today",
        "today's",
        "latest",
        "current",
        "currently",
        "now",
        "trading",
        "day",
        "session",
        "number",
        "how",
        "many",
        "count",
        "report",
    ]
)
# The unit an answer is asked in (是多少亿元, in billion yuan): the shown value is the stored one scaled.
_OUTPUT_UNIT = re.compile(
    r"(?:是)?(?:多少|几)\s*(?P<zh>万亿|千亿|百亿|亿|千万|百万|万)\s*元?"
    r"|\bin\s+(?P<en>trillion|billion|million|thousand)s?(?:\s+(?:yuan|cny|rmb))?\b"
)
_OR = re.compile(r"或|或者|要么|\b(?:or|either)\b")
_WORD = re.compile(r"[a-z][a-z'’]*")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


@lru_cache(maxsize=1)
def _metric_tables() -> dict[str, str]:
    """Stored column → the table a question's metric word reads it from (the semantic model)."""
    tables: dict[str, str] = {}
    for metric in default_model().metrics.values():
        if not metric.expression:
            tables.setdefault(metric.column, metric.table)
    return tables


@dataclass(frozen=True)
class When:
    """One day (None = the latest trading day) or, with `period`, one report period's last day."""

    day: date | None
    period: bool

    def trade_day_sql(self, database: str) -> str:
        if self.day is None:
            return f"(SELECT max(trade_date) FROM {database}.daily)"
        return f"toDate('{self.day.isoformat()}')"

    def describe(self, zh: bool) -> str:
        if self.day is None:
            return "最新交易日" if zh else "the latest trading day"
        if self.period:
            return (
                f"报告期 {self.day.isoformat()}" if zh else f"the report period ending {self.day.isoformat()}"
            )
        return self.day.isoformat()


@dataclass(frozen=True)
class Filter:
    """One threshold the question puts on a stored column: `column > value` (above) or `< value`."""

    column: str
    table: str
    above: bool
    value: float
    text: str  # as the question writes it

    def holds(self, alias: str) -> str:
        return f"{alias}.{self.column} {'>' if self.above else '<'} {_number(self.value)}"

    def broken(self, alias: str) -> str:
        """The row is on the wrong side; equality is never counted against the answer (≥ vs >)."""
        return f"{alias}.{self.column} {'<' if self.above else '>'} {_number(self.value)}"


@dataclass(frozen=True)
class Scope:
    """Which stocks the question speaks of: a stock_basic column in a set of values, an index's
    members, ST names — or, negated, not."""

    column: str  # industry | exchange | market | symbol | ts_code | index | st
    values: tuple[str, ...]
    negated: bool
    text: str


@dataclass(frozen=True)
class Ranking:
    k: int
    column: str
    table: str
    descending: bool


@dataclass(frozen=True)
class Aggregate:
    function: Function
    column: str
    table: str


@dataclass(frozen=True)
class Reading:
    question: Question
    when: When | None
    filters: tuple[Filter, ...]
    scopes: tuple[Scope, ...]
    ranking: Ranking | None
    aggregate: Aggregate | None
    count: bool
    group: str | None
    output_scale: float | None  # base units (yuan) per unit of the asked output unit
    clean: bool
    complete: bool
    gaps: tuple[str, ...]

    @property
    def zh(self) -> bool:
        return self.question.lang.value == "zh"


def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))


def _output_unit(question: Question) -> tuple[float | None, tuple[int, int] | None]:
    match = _OUTPUT_UNIT.search(question.text)
    if match is None:
        return None, None
    word = match["zh"] or match["en"]
    return question.vocabulary.scale_units[word], match.span()


def _residue(question: Question, constraints: list[Constraint], unit: tuple[int, int] | None) -> str:
    """The question's text once constraints, vocabulary words, the output unit and empty words are
    taken out."""
    text = list(question.text)
    spans = [(c.span.start, c.span.end) for c in constraints] + [(h.start, h.end) for h in question.hits]
    spans += [unit] if unit is not None else []
    for start, end in spans:
        for position in range(start, end):
            text[position] = " "
    rest = "".join(text)
    pieces: list[str] = []
    for run in _CJK_RUN.findall(rest):
        for word in sorted(_EMPTY_ZH, key=len, reverse=True):
            run = run.replace(word, "")
        pieces.append(run)
    pieces += [word for word in _WORD.findall(rest) if word not in _EMPTY_EN]
    return "".join(pieces)


def _when(dates: list[DateDetail]) -> tuple[When | None, str | None]:
    if not dates:
        return When(None, False), None
    if len(dates) > 1:
        return None, "more than one date"
    detail = dates[0]
    if detail.day is None or detail.starts_range or detail.since:
        return None, "a year or a range, not one day or report period"
    return When(detail.day, detail.period), None


def _scope(entity: EntityRef, negated: bool, evidence: tuple[Evidence, ...]) -> Scope | None:
    if entity.category is None:
        codes = tuple(e.value.split()[-1] for e in evidence if e.kind == "stock" and e.mention == entity.key)
        return Scope("ts_code", codes, negated, entity.surface) if len(codes) == 1 else None
    column = {
        Category.INDUSTRY: "industry",
        Category.INDUSTRY_GROUP: "industry",
        Category.EXCHANGE: "exchange",
        Category.BOARD: "market",
        Category.INDEX: "index",
        Category.STOCK: "symbol",
        Category.ST: "st",
    }[entity.category]
    values = (entity.key,) if entity.category in {Category.INDEX, Category.STOCK} else entity.values
    return Scope(column, tuple(values), negated, entity.surface)


def _merge(scopes: list[Scope]) -> tuple[Scope, ...]:
    """Positive scopes on one column are alternatives (银行股和保险股): one scope with their union."""
    merged: dict[str, Scope] = {}
    result: list[Scope] = []
    for scope in scopes:
        if scope.negated:
            result.append(scope)
            continue
        known = merged.get(scope.column)
        merged[scope.column] = (
            scope
            if known is None
            else Scope(scope.column, known.values + scope.values, False, f"{known.text}、{scope.text}")
        )
    return (*merged.values(), *result)


def read(
    question: str,
    constraints: list[Constraint],
    vocabulary: Vocabulary,
    evidence: tuple[Evidence, ...] = (),
) -> Reading:
    read_back = read_question(question, vocabulary)
    gaps: list[str] = []
    tables = _metric_tables()
    dates = [c.detail for c in constraints if isinstance(c.detail, DateDetail)]
    when, date_gap = _when(dates)
    if date_gap:
        gaps.append(date_gap)
    filters: list[Filter] = []
    scopes: list[Scope] = []
    ranking: Ranking | None = None
    aggregate: Aggregate | None = None
    count = False
    group: str | None = None
    used_columns: set[str] = set()
    for constraint in constraints:
        detail = constraint.detail
        if isinstance(detail, DateDetail | OrderDetail):
            used_columns |= detail.columns if isinstance(detail, OrderDetail) else set()
        elif isinstance(detail, NumberDetail):
            table = tables.get(detail.column)
            if not detail.column or detail.stored is None or table is None:
                gaps.append(f"a number not bound to one stored column: {constraint.span.text}")
                continue
            filters.append(
                Filter(detail.column, table, detail.side is Side.ABOVE, detail.stored, constraint.span.text)
            )
            used_columns.add(detail.column)
        elif isinstance(detail, EntityDetail | NegationDetail):
            scope = _scope(detail.entity, isinstance(detail, NegationDetail), evidence)
            if scope is None:
                gaps.append(f"an entity not grounded in the data: {constraint.span.text}")
            else:
                scopes.append(scope)
        elif isinstance(detail, TopKDetail):
            column = next(iter(detail.columns)) if len(detail.columns) == 1 else None
            table = tables.get(column or "")
            if column is None or table is None or detail.descending is None or detail.gain:
                gaps.append(f"a ranking on no single stored column: {constraint.span.text}")
                continue
            if detail.group:
                gaps.append(f"a ranking within groups: {constraint.span.text}")
                continue
            ranking = Ranking(detail.k, column, table, detail.descending)
            used_columns.add(column)
        elif isinstance(detail, AggregateDetail):
            column = next(iter(detail.columns)) if len(detail.columns) == 1 else None
            table = tables.get(column or "")
            if column is None or table is None or detail.over_top:
                gaps.append(
                    f"an aggregate not over one stored column of the whole set: {constraint.span.text}"
                )
                continue
            aggregate = Aggregate(detail.function, column, table)
            used_columns.add(column)
        elif isinstance(detail, CountDetail):
            if detail.over_top:
                gaps.append(f"a count over a ranking: {constraint.span.text}")
                continue
            count = True
        elif isinstance(detail, PerGroupDetail):
            if detail.column not in GROUP_COLUMNS:
                gaps.append(f"groups not read: {constraint.span.text}")
                continue
            group = detail.column
        else:
            gaps.append(
                f"a {detail.kind.value} constraint the reverse checks do not read: {constraint.span.text}"
            )
    for item in filters:
        if when is not None and (item.table in PERIOD_TABLES) != when.period:
            gaps.append(f"{item.text}: its table and the date asked do not fit together")
    if _OR.search(read_back.text):
        gaps.append("alternatives (or)")
    output_scale, unit_span = _output_unit(read_back)
    residue = _residue(read_back, constraints, unit_span)
    if residue:
        gaps.append(f"words not read: {residue}")
    if sum(detail.kind is Kind.TOP_K for detail in (c.detail for c in constraints)) > 1:
        gaps.append("more than one ranking")
    if ranking is not None and (aggregate is not None or count or group is not None):
        gaps.append("a ranking of groups or of a statistic")
    clean = not gaps
    unread_metrics = {
        column
        for hit in read_back.hits_of(Category.METRIC)
        for column in vocabulary.metrics[hit.key].columns
        if column not in used_columns
    }
    complete = clean and not unread_metrics
    return Reading(
        question=read_back,
        when=when,
        filters=tuple(filters),
        scopes=_merge(scopes),
        ranking=ranking,
        aggregate=aggregate,
        count=count,
        group=group,
        output_scale=output_scale,
        clean=clean,
        complete=complete,
        gaps=(*gaps, *(f"a metric named but not read: {column}" for column in sorted(unread_metrics))),
    )
