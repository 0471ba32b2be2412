"""Per-group cues: 各/每个/按/分 X, X 分别, each/per/by X → GROUP BY, PARTITION BY or LIMIT … BY X's column.

X is a dimension of the semantic model (industry, exchange, board, region, listing year) or, with a
statistic asked per day (每天…的数量, total … on each of the last 5 days, daily average), the trading
day. A SQL that pivots the groups into columns (countIf(exchange = 'SSE'), …) is undecidable.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.entities import name_around
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
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
    number_value,
    strip,
)
from backend.domain.pipeline.validate.checklist.vocabulary import Category, Hit

# Dimensions a question groups by; per stock (code, name) is every screen's grain, not a grouping.
GROUP_DIMENSIONS = {"industry", "exchange", "market", "area", "list_year", "list_date"}
_ENTITY_COLUMNS = {
    Category.INDUSTRY: "industry",
    Category.INDUSTRY_GROUP: "industry",
    Category.EXCHANGE: "exchange",
    Category.BOARD: "market",
}
_CUE = re.compile(
    r"各个|各|每个|每一个|每|按照|按|分(?!别)|\b(?:for each|on each|in each|of each|each|per|every|by)\b"
)
_RESPECTIVELY = re.compile(r"分别|\brespectively\b")
_PER_DAY_ZH = re.compile(r"每(?:天|日|个交易日)(?!都)")
_PER_DAY_EN = re.compile(
    r"\b(?:(?:on|for) each of the (?:last|past) \w+ (?:trading )?days|(?:per|each|every) (?:trading )?day)\b"
)
# Groups ranked by a figure (成交额最大的行业, the 3 industries with the highest …, which industry had
# the largest …): one figure per group, so the SQL groups by the dimension.
_RANKED_ZH = re.compile(
    rf"(?:最高|最大|最多|最低|最小|最少|前\s*{COUNT})\s*的?\s*(?:{COUNT})?\s*(?:个|名|家)?\s*的?\s*"
)
_RANKED_EN = re.compile(rf"\b(?:which|what|the|top)\s+(?:{COUNT}\s+)?")
_SUPERLATIVE_AFTER_EN = re.compile(
    r"^s?(?:\s+\([^()]*\))?\s+(?:had|has|have|with|that had|that have|showed|saw)\s+the\s+"
    r"(?:highest|largest|biggest|greatest|most|lowest|smallest|least|best|worst)\b"
)
_DAILY_STATISTIC = re.compile(r"\bdaily (?:average|total|mean|sum|count|number)\b")
_ENTITIES = (Category.INDUSTRY, Category.INDUSTRY_GROUP, Category.EXCHANGE, Category.BOARD, Category.INDEX)


@dataclass(frozen=True)
class PerGroupDetail:
    kind: ClassVar[Kind] = Kind.PER_GROUP
    column: str
    ranked: bool = False  # groups ranked by a figure (成交额最大的行业), not a ranking within each group
    # every dimension the question names (grouped by or as an entity): other grouping keys split groups
    named: frozenset[str] = frozenset()
    by_year: bool = False  # a year of a date (上市年份, listing year): a month or a day is another grouping

    def check(self, sql: Sql) -> Finding:
        if self.by_year:
            year_keys = [key for key in grouping_expressions(sql) if self.column in columns_of(key)]
            if year_keys and all(_finer_than_a_year(key) for key in year_keys):
                return failed(
                    Attribution.GROUPING, f"the groups are months or days of {self.column}, not its years"
                )
        for select in sql.selects:
            keys = [columns_of(key) for key in group_keys(sql, select)]
            if any(self.column in columns for columns in keys):
                extra = set().union(*keys) & GROUP_DIMENSIONS - self.named - {self.column}
                if extra:
                    return failed(
                        Attribution.GROUPING,
                        f"the groups of {self.column} are split by {', '.join(sorted(extra))} too",
                    )
        for expression in grouping_expressions(sql):
            if self.column in columns_of(expression):
                return passed(f"the SQL groups by {self.column}")
        if isinstance(sql.tree, exp.SetOperation):
            return undecided("the SQL combines several queries; groups may be one query each")
        if self.column == "trade_date" and _one_stock_by_day(sql):
            return passed("one stock's stored daily rows are listed: each row is a day")
        if self.column == "trade_date" and any(per_day_divisor(node) for node in sql.nodes()):
            return passed("the total is divided by the number of days: each day's figure averaged")
        for node in sql.nodes():
            if _conditional(node) and self.column in columns_of(node):
                return undecided(f"the SQL splits {self.column} into conditional columns or cases")
        return failed(Attribution.GROUPING, f"no GROUP BY, PARTITION BY or LIMIT … BY on {self.column}")


_ONE_STOCK = {"ts_code", "name", "symbol"}


def _one_stock_by_day(sql: Sql) -> bool:
    """Rows of one stock (ts_code = '300750.SZ'), read without grouping, that show trade_date: one
    row per day already (close and MA5 for each of the last 10 days), a window's figure included."""
    tree = sql.tree
    if not isinstance(tree, exp.Select):
        return False
    shown = [strip(sql.resolve(projection.unalias(), tree)) for projection in tree.expressions]
    if not any(isinstance(node, exp.Column) and node.name.lower() == "trade_date" for node in shown):
        return False
    chain, pending = [], [tree]
    while pending:
        select = pending.pop()
        chain.append(select)
        pending.extend(sql.sources(select))
    if any(isinstance(select.args.get("group"), exp.Group) or _aggregates_rows(select) for select in chain):
        return False
    return any(
        isinstance(node, exp.EQ)
        and node.find_ancestor(exp.Where) is not None
        and any(select is enclosing_select(node) for select in chain)
        and bool(columns_of(node))
        and columns_of(node) <= _ONE_STOCK
        and any(isinstance(side, exp.Literal) and side.is_string for side in (node.this, node.expression))
        for node in sql.nodes()
    )


def _aggregates_rows(select: exp.Select) -> bool:
    """An aggregate of the SELECT's own rows, not a window's (nor a scalar subquery's)."""
    return any(
        aggregate.find_ancestor(exp.Window, exp.Select) is select
        for projection in select.expressions
        for aggregate in projection.find_all(exp.AggFunc)
    )


def _conditional(node: exp.Expr) -> bool:
    """countIf(exchange = 'SSE'), if(…), CASE WHEN market = … , multiIf(market = …): a value per group
    written as cases (按各板块的涨跌幅限制算: each board's own limit)."""
    if isinstance(node, exp.CountIf | exp.CombinedAggFunc | exp.If | exp.Case):
        return True
    return isinstance(node, exp.Anonymous) and function_name(node) == "multiif"


_DAY_COUNTS = {"approxdistinct", "uniq", "uniqexact", "uniqcombined", "countdistinct"}


def per_day_divisor(node: exp.Expr) -> bool:
    """x / count(DISTINCT trade_date) (uniqExact(trade_date)…): a total over the days divided by their
    number is the average of each day's total (daily average turnover, total per day)."""
    if not isinstance(node, exp.Div):
        return False
    divisor = node.expression
    while isinstance(divisor, exp.Paren):
        divisor = divisor.this
    distinct = isinstance(divisor, exp.Count) and isinstance(divisor.this, exp.Distinct)
    counts_days = distinct or (isinstance(divisor, exp.Func) and function_name(divisor) in _DAY_COUNTS)
    return counts_days and columns_of(divisor) == {"trade_date"}


_FINER_THAN_A_YEAR = {
    "tomonth", "toyyyymm", "toyyyymmdd", "tostartofmonth", "toquarter", "tostartofquarter", "todayofmonth",
    "todayofyear", "todate",
}  # fmt: skip


def _finer_than_a_year(key: exp.Expr) -> bool:
    """A key on a date's month, quarter or day, or the date itself (not its year)."""
    if isinstance(key, exp.Column):
        return True
    return isinstance(key, exp.Func) and function_name(key) in _FINER_THAN_A_YEAR


def group_keys(sql: Sql, select: exp.Select) -> list[exp.Expr]:
    """The SELECT's GROUP BY keys, through positions (GROUP BY 1) and aliases."""
    group = select.args.get("group")
    keys = []
    for item in group.expressions if isinstance(group, exp.Group) else []:
        position = number_value(item)
        if position is not None and 1 <= position <= len(select.expressions):
            item = select.expressions[int(position) - 1]
        keys.append(sql.resolve(item, select))
    return keys


def grouping_expressions(sql: Sql) -> list[exp.Expr]:
    """Every GROUP BY, LIMIT … BY and PARTITION BY expression, resolved through aliases."""
    found: list[exp.Expr] = []
    for select in sql.selects:
        found.extend(group_keys(sql, select))
        limit = select.args.get("limit")
        if isinstance(limit, exp.Limit):
            found.extend(sql.resolve(item, select) for item in limit.expressions)
    found.extend(sql.resolve(expression, select) for expression, select in sql.partitions())
    return found


def _dimension_after(question: Question, position: int) -> str | None:
    """The group column named right after a cue, over entity words and (English) two plain words."""
    text, plain_words = question.text, 0
    while position < len(text):
        while position < len(text) and text[position] == " ":
            position += 1
        dimension = question.hit_at(position, Category.DIMENSION)
        if dimension is not None:
            groups = dimension.key in GROUP_DIMENSIONS
            return question.vocabulary.dimension_columns[dimension.key] if groups else None
        entity = question.hit_at(position, *_ENTITIES)
        word = re.match(r"[a-z]+", text[position:])
        if entity is not None:
            position = entity.end
        elif word is not None and plain_words < 2 and word.group() not in {"by", "and", "with"}:
            position, plain_words = position + word.end(), plain_words + 1
        else:
            return None
    return None


_AND = re.compile(r"\s*(?:和|与|及|、|,|，|\band\b|\bthen\b)\s*")


def _joined_dimension(question: Question, position: int) -> tuple[Hit, str] | None:
    """The group dimension joined by "and" right after `position`, with its column."""
    joined = _AND.match(question.text, position)
    dimension = question.hit_at(joined.end(), Category.DIMENSION) if joined else None
    if dimension is None or dimension.key not in GROUP_DIMENSIONS:
        return None
    return dimension, question.vocabulary.dimension_columns[dimension.key]


def _ranked_groups(question: Question) -> list[tuple[int, str, int]]:
    """(start, group column, end) of each group ranked by a figure."""
    found = []
    english = question.lang is Lang.EN
    for cue in (_RANKED_EN if english else _RANKED_ZH).finditer(question.text):
        dimension = question.hit_at(cue.end(), Category.DIMENSION)
        if dimension is None or dimension.key not in GROUP_DIMENSIONS or question.covered(cue.start()):
            continue
        rest = question.text[dimension.end :]
        top_by = cue.group().startswith("top") and re.match(r"^s?\s+(?:ranked\s+)?by\b", rest)
        if english and not (_SUPERLATIVE_AFTER_EN.match(rest) or top_by):
            continue
        column = question.vocabulary.dimension_columns[dimension.key]
        found.append((cue.start(), column, dimension.end))
    return found


def _constraint(
    question: Question, start: int, end: int, column: str, ranked: bool = False, by_year: bool = False
) -> Constraint:
    span = question.span(start, end)
    text = question.says(f"{span.text}：按 {column} 分组", f"{span.text}: one result per {column}")
    return Constraint(span, text, question.lang, PerGroupDetail(column, ranked, by_year=by_year))


def _group_detail(constraint: Constraint) -> PerGroupDetail:
    assert isinstance(constraint.detail, PerGroupDetail)
    return constraint.detail


def extract(question: Question) -> list[Constraint]:
    found: dict[str, Constraint] = {}
    for cue in _CUE.finditer(question.text):
        if question.covered(cue.start()):
            continue
        column = _dimension_after(question, cue.end())
        if column is not None and column not in found:
            dimension = next(hit for hit in question.hits_of(Category.DIMENSION) if hit.start >= cue.end())
            by_year = dimension.key == "list_year"
            found[column] = _constraint(question, cue.start(), dimension.end, column, by_year=by_year)
            # "by listing year and board", 按行业和地区: each dimension joined to the first is a key too
            while (joined := _joined_dimension(question, dimension.end)) is not None:
                dimension, column = joined
                found.setdefault(column, _constraint(question, cue.start(), dimension.end, column))
    for cue in _RESPECTIVELY.finditer(question.text):
        # an industry word inside a stock's name (招商银行、中信证券…分别) names that stock, no group
        before = [
            hit
            for hit in question.hits_of(*_ENTITY_COLUMNS)
            if hit.end <= cue.start() and name_around(question, hit) is None
        ]
        columns = [_ENTITY_COLUMNS[hit.category] for hit in before]
        for column in set(columns):
            if columns.count(column) >= 2 and column not in found:
                first = next(hit for hit in before if _ENTITY_COLUMNS[hit.category] == column)
                found[column] = _constraint(question, first.start, cue.end(), column)
    for start, column, end in _ranked_groups(question):
        # "Which 5 industries had the highest …? Show each industry …": the groups are what is ranked.
        if column not in found or not _group_detail(found[column]).ranked:
            found[column] = _constraint(question, start, end, column, ranked=True)
    per_day = _PER_DAY_ZH.search(question.text) if question.asks_statistic() else None
    english = _PER_DAY_EN.search(question.text)
    per_day = per_day or (english if english and question.statistic_before(english.start()) else None)
    per_day = per_day or _DAILY_STATISTIC.search(question.text)
    if per_day is not None and "trade_date" not in found:
        found["trade_date"] = _constraint(question, per_day.start(), per_day.end(), "trade_date")
    named = frozenset(found) | named_dimensions(question)
    constraints = [
        dataclasses.replace(c, detail=dataclasses.replace(c.detail, named=named))
        for c in found.values()
        if isinstance(c.detail, PerGroupDetail)
    ]
    return sorted(constraints, key=lambda constraint: constraint.span.start)


# Words that name a dimension's values loosely (沪深两市, Shanghai vs Shenzhen) where the vocabulary
# reads no entity: a grouping key on that dimension may be asked for.
_LOOSE_HINTS = {
    "exchange": re.compile(
        r"沪|深|京|两市|三市|交易所|上交所|深交所|北交所|shanghai|shenzhen|beijing|exchange", re.I
    ),
    "market": re.compile(r"板|board|chinext|star market", re.I),
    "industry": re.compile(r"行业|板块|industr|sector", re.I),
    "area": re.compile(r"地区|省|地域|region|province|area", re.I),
}


# 两市 / 沪深两市 / 三市 name the exchanges as one set (两市涨跌家数: one figure for both), not a split —
# unless each of them is asked in the same clause (两市各有多少只, 两市分别).
_WHOLE_MARKET = re.compile(r"(?:沪深京?|沪京|深京)?[两三]市(?![^，,。；;？?]*(?:各|分别|每))")


def named_dimensions(question: Question) -> frozenset[str]:
    """The group columns of every dimension and entity word of the question, or named loosely."""
    text = _WHOLE_MARKET.sub(" ", question.text)
    columns = {column for column, hint in _LOOSE_HINTS.items() if hint.search(text)}
    columns |= {
        question.vocabulary.dimension_columns[hit.key]
        for hit in question.hits_of(Category.DIMENSION)
        if hit.key in question.vocabulary.dimension_columns
    }
    columns |= {_ENTITY_COLUMNS[hit.category] for hit in question.hits_of(*_ENTITY_COLUMNS)}
    return frozenset(columns)
