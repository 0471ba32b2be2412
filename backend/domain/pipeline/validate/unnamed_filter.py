"""A filter keeping a board, an exchange or an industry the question never names answers about other
stocks: 银行股 widened to 证券 and 保险, 创业板 read as 科创板, 主板 read as the Shanghai exchange.

Judged on the tree, and only a failure becomes a check. A value is kept when a conjunct of a WHERE,
HAVING or ON — reached through ANDs only — tests a board (market), exchange or industry column for
equality with it or lists it in an IN list. A value is named when a vocabulary word of the question
stands for it (an industry group for each of its industries; the Beijing exchange for its board too;
两市, 沪深, Shanghai and Shenzhen for both exchanges; A股 for every exchange). Not judged: a column
whose dimension the question names as such (各板块, by industry, which exchanges: its values are
the groups asked), tests under OR, NOT or inside a function (a rule per board, countIf(market = …)),
regions (the vocabulary does not know them).
"""

from __future__ import annotations

import re

from sqlglot import exp

from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.entities import entity_ref
from backend.domain.pipeline.validate.checklist.question import read_question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, strip
from backend.domain.pipeline.validate.checklist.vocabulary import Category, Vocabulary
from backend.domain.pipeline.validate.outcome import CheckResult, tree_rule_check

_COLUMNS = {"industry", "exchange", "market"}
# The Beijing exchange is also a board of its own: either value keeps the same stocks.
_SAME_STOCKS = {"BSE": "北交所", "北交所": "BSE"}
_BOTH_EXCHANGES = re.compile(
    r"两市|沪深(?!\s*3)|沪、深|\bshanghai and shenzhen\b|\bshenzhen and shanghai\b"
    r"|\b(?:both|two) (?:exchanges|markets)\b",
    re.IGNORECASE,
)
_EVERY_EXCHANGE = re.compile(r"A股|\ba-shares?\b|全市场|\bwhole market\b", re.IGNORECASE)
# The dimension named as such: its values are the groups asked, not one of them.
_DIMENSION_WORDS = {
    "market": re.compile(r"板块|\bboards?\b", re.IGNORECASE),
    "exchange": re.compile(r"交易所|\bexchanges\b", re.IGNORECASE),
    "industry": re.compile(r"行业|\bindustr(?:y|ies)\b|\bsectors?\b", re.IGNORECASE),
}


def _named_values(question: str, vocabulary: Vocabulary) -> set[str]:
    read = read_question(question, vocabulary)
    named: set[str] = set()
    for hit in read.hits:
        if hit.category in {Category.INDUSTRY, Category.INDUSTRY_GROUP, Category.EXCHANGE, Category.BOARD}:
            named.update(entity_ref(read, hit).values)
    named.update(_SAME_STOCKS[value] for value in list(named) if value in _SAME_STOCKS)
    if _BOTH_EXCHANGES.search(question):
        named.update({"SSE", "SZSE"})
    if _EVERY_EXCHANGE.search(question):
        named.update({"SSE", "SZSE", "BSE", "北交所"})
    return named


def _kin(value: str, named: set[str]) -> bool:
    """An industry of the same family as a named one (房地产服务 beside 房地产开发): a reading of the
    question's word the vocabulary may not list, not another industry."""
    return len(value) >= 3 and any(other[:2] == value[:2] for other in named if len(other) >= 3)


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    node = strip(node)
    if isinstance(node, exp.And):
        return [*_conjuncts(node.left), *_conjuncts(node.right)]
    return [node]


def _kept(conjunct: exp.Expr) -> tuple[str, list[str]] | None:
    """(column, values) a conjunct keeps: `s.market = '科创板'`, `industry IN ('银行', '证券')`."""
    column = strip(conjunct.this) if isinstance(conjunct, exp.EQ | exp.In) else None
    if not isinstance(column, exp.Column) or column.name.lower() not in _COLUMNS:
        return None
    listed = [conjunct.expression] if isinstance(conjunct, exp.EQ) else list(conjunct.expressions)
    values = [node.this for node in listed if isinstance(node, exp.Literal) and node.is_string]
    return (column.name.lower(), values) if values and len(values) == len(listed) else None


def _filters(sql: Sql) -> list[tuple[str, list[str], exp.Expr]]:
    found = []
    for select in sql.selects:
        conditions = [select.args.get("where"), select.args.get("having")]
        conditions += [join.args.get("on") for join in select.args.get("joins") or []]
        for condition in conditions:
            if condition is None:
                continue
            for conjunct in _conjuncts(
                condition.this if isinstance(condition, exp.Where | exp.Having) else condition
            ):
                kept = _kept(conjunct)
                if kept is not None:
                    found.append((*kept, conjunct))
    return found


def _finding(question: str, sql: Sql, vocabulary: Vocabulary) -> str | None:
    filters = _filters(sql)
    if not filters:
        return None
    named = _named_values(question, vocabulary)
    for column, values, conjunct in filters:
        if _DIMENSION_WORDS[column].search(question):
            continue
        unnamed = [value for value in values if value not in named and not _kin(value, named)]
        if unnamed:
            return (
                f"`{conjunct.sql(dialect=DIALECT)}` keeps {', '.join(unnamed)}, "
                "which the question never names"
            )
    return None


def unnamed_filter_check(question: str, sql: Sql, vocabulary: Vocabulary, lang: Lang) -> CheckResult | None:
    return tree_rule_check(
        "unnamed_filter",
        text=says(
            lang,
            "筛选的板块、交易所、行业是问题所指的",
            "the boards, exchanges and industries kept are the ones named",
        ),
        criterion=says(
            lang,
            "SQL 不保留问题没有提到的板块、交易所或行业",
            "the SQL keeps no board, exchange or industry the question does not name",
        ),
        blames=Attribution.ENTITY_MAPPING,
        finding=lambda: _finding(question, sql, vocabulary),
    )
