"""A condition in the ON clause of a LEFT JOIN filters no row: the left side keeps every row, and a
row failing the condition only loses its match (ClickHouse fills the joined columns with defaults).

`LEFT JOIN daily_basic v ON v.ts_code = s.ts_code AND v.turnover_rate > 5` lists every stock, with
turnover or without; `LEFT JOIN stock_basic b ON … AND b.market = '主板'` counts every board; an
industry list in the ON clause groups all other stocks under an empty industry. Judged on the tree,
and only a failure becomes a check. A LEFT JOIN is judged when an ON conjunct compares a column with
literals only (not a date: picking the joined table's snapshot day is what ON is for) and the rest of
its SELECT never tests whether the row matched: no column of the joined source in its WHERE or
HAVING (`b.ts_code = ''` keeps the unmatched, `IS NOT NULL` the matched) nor inside an aggregate
(`count(v.ts_code)` counts the matches, a condition counted on purpose).
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql, is_date_column, strip
from backend.domain.pipeline.validate.outcome import CheckResult, tree_rule_check

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Like, exp.ILike, exp.Between)


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    node = strip(node)
    if isinstance(node, exp.And):
        return [*_conjuncts(node.left), *_conjuncts(node.right)]
    return [node]


def _literal_filter(conjunct: exp.Expr) -> exp.Column | None:
    """The one column a comparison tests against literals only (`b.market = '主板'`,
    `v.turnover_rate > 5`, `b.industry IN (…)`); None for a join key or a date."""
    if isinstance(conjunct, exp.Not):
        conjunct = strip(conjunct.this)
    if not isinstance(conjunct, _COMPARISONS):
        return None
    columns = list(conjunct.find_all(exp.Column))
    if len(columns) != 1 or conjunct.find(exp.Subquery, exp.Select) is not None:
        return None
    column = columns[0]
    return None if is_date_column(column.name.lower()) else column


def _joined_name(join: exp.Join) -> str | None:
    source = join.this
    if isinstance(source, exp.Table | exp.Subquery):
        return (source.alias_or_name or "").lower() or None
    return None


def _match_tested(select: exp.Select, joined: str) -> bool:
    """Whether the SELECT tests the joined source's columns outside the ON clause in a way that tells
    matched rows from unmatched ones: in WHERE, HAVING or an aggregate."""

    def mentions(node: exp.Expr | None) -> bool:
        return node is not None and any(
            column.table.lower() == joined for column in node.find_all(exp.Column)
        )

    if mentions(select.args.get("where")) or mentions(select.args.get("having")):
        return True
    return any(
        mentions(aggregate)
        for aggregate in select.find_all(exp.AggFunc)
        if aggregate.find_ancestor(exp.Select) is select
    )


def _finding(sql: Sql) -> str | None:
    for select in sql.selects:
        for join in select.args.get("joins") or []:
            if join.side.upper() != "LEFT" or join.kind.upper() in {"SEMI", "ANTI", "ASOF"}:
                continue
            joined = _joined_name(join)
            condition = join.args.get("on")
            if joined is None or condition is None or _match_tested(select, joined):
                continue
            for conjunct in _conjuncts(condition):
                if _literal_filter(conjunct) is not None:
                    return (
                        f"`{conjunct.sql(dialect=DIALECT)}` sits in the ON clause of a LEFT JOIN: "
                        "every row of the left side is kept whether it holds or not"
                    )
    return None


def join_filter_check(sql: Sql, lang: Lang) -> CheckResult | None:
    return tree_rule_check(
        "join_filter",
        text=says(lang, "条件筛掉不满足的行", "a condition removes the rows that fail it"),
        criterion=says(
            lang,
            "LEFT JOIN 的 ON 子句里没有只对常量的条件（它不筛掉任何行）",
            "no condition against constants in the ON clause of a LEFT JOIN (it removes no row)",
        ),
        blames=Attribution.CONDITION,
        finding=lambda: _finding(sql),
    )
