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
from backend.domain.pipeline.validate.checklist.kinds.annual_report import AnnualReportDetail
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
    "股票", "个股", "公司", "成分股", "成份股", "上市公司", "只", "家", "个", "支", "股", "业",
    "统计", "按", "排列", "排名", "排序", "但",
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
        "but",
    ]
)
# The unit an answer is asked in (是多少亿元, in billion yuan): the shown value is the stored one scaled.
_OUTPUT_UNIT = re.compile(
    r"(?:是)?(?:多少|几)\s*(?P<zh>万亿|千亿|百亿|亿|千万|百万|万)\s*元?"
    r"|\bin\s+(?P<en>trillion|billion|million|thousand)s?(?:\s+(?:yuan|cny|rmb))?\b"
)
# Moves a question names without a number: a condition on the day's change or on the period's profit.
_MOVES_ZH = {
    "上涨": ("pct_chg", True),
    "收涨": ("pct_chg", True),
    "下跌": ("pct_chg", False),
    "收跌": ("pct_chg", False),
    "亏损": ("n_income_attr_p", False),
    "盈利": ("n_income_attr_p", True),
}
_MOVES_EN = {
    "rose": ("pct_chg", True),
    "gained": ("pct_chg", True),
    "advanced": ("pct_chg", True),
    "up": ("pct_chg", True),
    "fell": ("pct_chg", False),
    "declined": ("pct_chg", False),
    "dropped": ("pct_chg", False),
    "down": ("pct_chg", False),
}
_GROWTH_COLUMNS = {"netprofit_yoy", "or_yoy"}
_GROWTH_WORD = re.compile(
    r"\s*(?:(?P<up>增长|上升|提高)|(?P<down>下降|下滑|减少))(?!超过|大于|高于|低于|不足|\d)"
)
# Time left unread: the answer may then hold several days or periods per stock.
_TIME_WORDS = re.compile(
    r"日|天|周|月|年|季|期|以来|连续|每|昨|前|近|过去"
    r"|\b(?:days?|daily|weeks?|weekly|months?|monthly|years?|yearly|annual|quarters?|since|each|every"
    r"|consecutive|past|last|previous|prior|yesterday|ago|periods?)\b"
)
_PER_TIME = re.compile(
    r"每天|每日|逐日|每个交易日|分别|\b(?:daily|per day|each day|every day|by day)\b"
    # rows per calendar period (每个季度成交额最大的股票): one stock may top several periods
    r"|(?:每个?|各个?|按|逐)(?:月|季度|季|周|年)(?!都)"
    r"|\b(?:(?:each|every|per|by) (?:month|quarter|week|year)|monthly|quarterly|weekly|yearly)\b"
)
_UNREAD_TIME_KINDS = {Kind.WINDOW, Kind.EVERY_PERIOD, Kind.OPEN_RANGE, Kind.PER_GROUP}
# Every checklist kind is in exactly one of three classes (tests/pipeline/test_reverse_reading_kinds.py
# enforces it): a new kind left out would fall to the gap branch below and silently switch the reverse
# checks off for every question that names it.
# Points of the SQL tree alone (which column a named metric is read from, what a rise is measured
# against, no LIMIT on a whole list, a count's edge, each step of a run, the month a day falls in):
# they add no condition, and their spans stay readable (上涨 is a move filter).
TREE_ONLY_KINDS = frozenset(
    {
        Kind.COLUMN,
        Kind.DAY_MOVE,
        Kind.ADDITIVE,
        Kind.CLOSING_HIGH,
        Kind.WHOLE_SET,
        Kind.CONJUNCTION,
        Kind.PROFIT_SIGN,
        Kind.WHOLE_LIST,
        Kind.DAY_COUNT,
        Kind.EACH_STEP,
        Kind.MONTH,
        Kind.GROUP_SUBJECT,
        Kind.STOCK_SUBJECT,
        Kind.TRADING_DAYS,
        Kind.GAP_SIZE,
        Kind.SHARED_THRESHOLD,
        Kind.GROUP_AVERAGE,
        Kind.AGGREGATE_THRESHOLD,
        Kind.AVERAGE_LIST,
        Kind.COUNTED_THING,
        Kind.LIMIT_MOVE,
        Kind.PERCENT_SHOWN,
        Kind.SAME_PERIOD,
        Kind.WINDOW_END,
        Kind.BELOW_BOOK,  # pb < 1: the reading keeps what it read of the question before this kind
        Kind.COUNT_CONDITION,  # where the count's condition sits in the tree
        Kind.POLARITY,  # a pattern's direction: the pattern's own kind (or none) carries its condition
    }
)
# Kinds the reading turns into the reverse checks' filters, scopes, ranking, aggregate, count, group
# or day (an annual report only when a date names its period).
READ_KINDS = frozenset(
    {
        Kind.DATE,
        Kind.ORDER,
        Kind.NUMBER,
        Kind.ENTITY,
        Kind.NEGATION,
        Kind.TOP_K,
        Kind.AGGREGATE,
        Kind.COUNT,
        Kind.PER_GROUP,
        Kind.ANNUAL_REPORT,
    }
)
# Conditions the reading cannot restate: a question naming one is left to the tree checks (a gap).
UNREAD_KINDS = frozenset(
    {
        Kind.OPEN_RANGE,
        Kind.WINDOW,
        Kind.DISTINCT,
        Kind.PERCENTAGE,
        Kind.EVERY_PERIOD,
        Kind.PERIOD_RETURN,
        Kind.BAR_RELATION,
        Kind.PRICE_ORDER,
        Kind.CROSSING,
        Kind.PER_PERIOD,
        Kind.SINGLE_QUARTER,
        Kind.MAJORITY,
        Kind.HAS_VALUE,  # a figure not NULL: the reading keeps NULL rows
    }
)
# An entity the answer is compared with, not kept to (跑赢沪深300, 与茅台同行业, cheaper than banks).
_RELATIONAL = re.compile(
    r"跑赢|跑输|相对|相比|同行业|同板块|同一|相同|强于|弱于|比"
    r"|\b(?:outperform\w*|underperform\w*|relative|versus|vs|than|same|like|beat\w*)\b"
)
_OR = re.compile(r"或|或者|要么|\b(?:or|either)\b")
_WORD = re.compile(r"[a-z][a-z'’]*")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


@lru_cache(maxsize=1)
def _metric_tables() -> dict[str, str]:
    """Stored column → the table a question's metric word reads it from (the semantic model)."""
    tables: dict[str, str] = {}
    for metric in default_model().metrics.values():
        # Only tables keyed by (ts_code, day or period): the rules join every reading on ts_code.
        if not metric.expression and metric.table in (*TRADE_TABLES, *PERIOD_TABLES):
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
    one_day: bool  # the time is read completely: one day or report period, nothing else in time
    asked: tuple[tuple[str, str], ...]  # (column, table) of the metrics named but not conditioned on
    series: bool  # rows per group, per day or of a named stock may repeat a stock legitimately
    scope_clean: bool  # each scope read is a necessary condition (no "or", nothing relative to it)
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


def _residue(question: Question, constraints: list[Constraint], read: list[tuple[int, int]]) -> list[str]:
    """The words of the question left once constraints, vocabulary words, the spans read otherwise
    (output unit, growth words) and empty words are taken out (Chinese as runs, English as words)."""
    text = list(question.text)
    spans = [(c.span.start, c.span.end) for c in constraints] + [(h.start, h.end) for h in question.hits]
    spans += read
    for start, end in spans:
        for position in range(start, end):
            text[position] = " "
    rest = "".join(text)
    pieces: list[str] = []
    for run in _CJK_RUN.findall(rest):
        for word in sorted(_EMPTY_ZH, key=len, reverse=True):
            run = run.replace(word, " ")
        pieces += run.split()
    pieces += [word for word in _WORD.findall(rest) if word not in _EMPTY_EN]
    return pieces


_MOVED_BY = re.compile(
    r"(?:(?P<up_zh>上涨|涨了|涨)|(?P<down_zh>下跌|跌了|跌)"
    r"|\b(?:(?P<up>rose|risen|gained|advanced|up)|(?P<down>fell|fallen|declined|dropped|down|lost))\b"
    r"(?:\s+by)?)\s*$"
)


def _moved_by(question: Question, constraint: Constraint, detail: NumberDetail) -> Filter | None:
    """A percentage right after a move word is the day's change: fell more than 7% → pct_chg < -7,
    上涨超过5% → pct_chg > 5."""
    if "%" not in constraint.span.text and "percent" not in constraint.span.text.lower():
        return None
    before = question.text[max(0, constraint.span.start - 12) : constraint.span.start]
    match = _MOVED_BY.search(before)
    if match is None:
        return None
    up = bool(match["up_zh"] or match["up"])
    above = detail.side is Side.ABOVE
    value = detail.value if up else -detail.value
    return Filter("pct_chg", "daily", above if up else not above, value, constraint.span.text)


def _yoy_moves(question: Question) -> tuple[list[Filter], list[tuple[int, int]]]:
    """同比增长 / 同比下降 right after a growth metric: its sign (净利润同比下降 → netprofit_yoy < 0)."""
    found: list[Filter] = []
    spans: list[tuple[int, int]] = []
    for hit in question.hits_of(Category.METRIC):
        metric = question.vocabulary.metrics[hit.key]
        column = next(iter(metric.columns)) if len(metric.columns) == 1 else ""
        if column not in _GROWTH_COLUMNS:
            continue
        match = _GROWTH_WORD.match(question.text, hit.end)
        if match is not None:
            found.append(Filter(column, "fina_indicator", match["up"] is not None, 0.0, match.group()))
            spans.append(match.span())
    return found, spans


def _moves(pieces: list[str], tables: dict[str, str]) -> tuple[list[Filter], list[str]]:
    """Move words (上涨, fell, 亏损…) as filters, and the words left after them."""
    filters: list[Filter] = []
    left: list[str] = []
    for piece in pieces:
        for word, (column, above) in _MOVES_ZH.items():
            if word in piece:
                filters.append(Filter(column, tables[column], above, 0.0, word))
                piece = piece.replace(word, "")
        move = _MOVES_EN.get(piece)
        if move is not None:
            filters.append(Filter(move[0], tables[move[0]], move[1], 0.0, piece))
        elif piece:
            left.append(piece)
    return filters, left


def _when(dates: list[DateDetail]) -> tuple[When | None, str | None]:
    if not dates:
        return When(None, False), None
    if len(dates) > 1:
        return None, "more than one date"
    detail = dates[0]
    if detail.starts_range or detail.since:
        return None, "a range, not one day or report period"
    if detail.day is None:
        return None, f"the year {detail.year} alone"
    if detail.yearless:  # the data's year, which the reading does not know
        return None, f"a day without its year ({detail.day.month}-{detail.day.day})"
    return When(detail.day, detail.period), None


def _annual(dates: list[DateDetail], tables: set[str]) -> When | None:
    """A year alone on report figures is its annual report (2024年净利润 → period 2024-12-31)."""
    if len(dates) == 1 and dates[0].day is None and tables and tables <= set(PERIOD_TABLES):
        return When(date(dates[0].year, 12, 31), True)
    return None


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
    values = (
        (entity.key,)
        if entity.category in {Category.INDEX, Category.STOCK, Category.EXCHANGE}
        else entity.values
    )
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
    constraints = [c for c in constraints if c.kind not in TREE_ONLY_KINDS]
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
                moved = _moved_by(read_back, constraint, detail)
                if moved is None:
                    gaps.append(f"a number not bound to one stored column: {constraint.span.text}")
                else:
                    filters.append(moved)
                    used_columns.add(moved.column)
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
            if detail.function not in (Function.AVERAGE, Function.TOTAL):
                gaps.append(
                    f"a {detail.function.value} the reverse checks do not recompute: {constraint.span.text}"
                )
                continue
            aggregate = Aggregate(detail.function, column, table)
            used_columns.add(column)
        elif isinstance(detail, CountDetail):
            if detail.over_top:
                gaps.append(f"a count over a ranking: {constraint.span.text}")
                continue
            if detail.items > 1:
                # how many rose and how many fell: each count has its own condition, not all of them
                gaps.append(f"several counts side by side: {constraint.span.text}")
                continue
            count = True
        elif isinstance(detail, PerGroupDetail):
            if detail.column not in GROUP_COLUMNS:
                gaps.append(f"groups not read: {constraint.span.text}")
                continue
            group = detail.column
        elif isinstance(detail, AnnualReportDetail) and any(
            date.period and date.day is not None and (date.day.month, date.day.day) == (12, 31)
            for date in dates
        ):
            continue  # 2024年年报: the annual period is the date's
        else:
            gaps.append(
                f"a {detail.kind.value} constraint the reverse checks do not read: {constraint.span.text}"
            )
    output_scale, unit_span = _output_unit(read_back)
    growth, growth_spans = _yoy_moves(read_back)
    read_spans = [*growth_spans, *([unit_span] if unit_span is not None else [])]
    moves, residue = _moves(_residue(read_back, constraints, read_spans), tables)
    filters += [*growth, *moves]
    used_columns |= {item.column for item in (*growth, *moves)}
    read_tables = {item.table for item in filters} | {
        part.table for part in (ranking, aggregate) if part is not None
    }
    annual = _annual(dates, read_tables) if when is None else None
    if annual is not None and date_gap is not None:
        when = annual
        gaps.remove(date_gap)
    for item in filters:
        if when is not None and (item.table in PERIOD_TABLES) != when.period:
            gaps.append(f"{item.text}: its table and the date asked do not fit together")
    if _OR.search(read_back.text):
        gaps.append("alternatives (or)")
    if residue:
        gaps.append(f"words not read: {' '.join(residue)}")
    one_day = (
        when is not None
        and not any(c.kind in _UNREAD_TIME_KINDS for c in constraints)
        and not any(_TIME_WORDS.search(piece) for piece in residue)
    )
    if sum(detail.kind is Kind.TOP_K for detail in (c.detail for c in constraints)) > 1:
        gaps.append("more than one ranking")
    if ranking is not None and (aggregate is not None or count or group is not None):
        gaps.append("a ranking of groups or of a statistic")
    if aggregate is not None and any(item.column == aggregate.column for item in filters):
        gaps.append("a threshold on the aggregated metric: on the rows or on the aggregate?")
    grouped_spans = [c.span for c in constraints if c.kind is Kind.PER_GROUP]
    if (aggregate is not None or count) and any(
        not any(span.start <= hit.start < span.end for span in grouped_spans)
        for hit in read_back.hits_of(Category.DIMENSION)
    ):
        gaps.append("a statistic with a dimension named outside a per-group cue (which industries…)")
    clean = not gaps
    unread_metrics = {
        column
        for hit in read_back.hits_of(Category.METRIC)
        for column in vocabulary.metrics[hit.key].columns
        if column not in used_columns
    }
    complete = clean and not unread_metrics
    number_spans = [c.span for c in constraints if c.kind is Kind.NUMBER]
    relational = any(
        not any(span.start <= found.start() < span.end for span in number_spans)
        for found in _RELATIONAL.finditer(read_back.text)
    )
    scope_clean = (
        not relational
        and _OR.search(read_back.text) is None
        and not any(gap.startswith("an entity not grounded") for gap in gaps)
    )
    named_stock = any(
        isinstance(c.detail, EntityDetail)
        and (c.detail.entity.category is None or c.detail.entity.column in ("ts_code", "symbol"))
        for c in constraints
    )
    series = (
        named_stock
        or any(c.kind is Kind.PER_GROUP for c in constraints)
        or _PER_TIME.search(read_back.text) is not None
    )
    asked = tuple((column, tables[column]) for column in sorted(unread_metrics) if column in tables)
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
        one_day=one_day,
        asked=asked if len(asked) == len(unread_metrics) else (),
        series=series,
        scope_clean=scope_clean,
        clean=clean,
        complete=complete,
        gaps=(*gaps, *(f"a metric named but not read: {column}" for column in sorted(unread_metrics))),
    )
