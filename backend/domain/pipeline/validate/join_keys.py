"""A join keyed on two columns that hold different kinds of codes matches the wrong rows or none.

Stock codes with their exchange suffix (stock_basic.ts_code, the bars' and reports' ts_code,
index_weight.con_code), index codes (index_weight.index_code, index_basic.ts_code) and bare six-digit
symbols (stock_basic.symbol) never name the same thing: `s.ts_code = w.index_code` looks each index up
as a stock (no match, or the wrong company), `s.symbol = d.ts_code` never matches a suffixed code.
Judged on the tree, and only a failure becomes a check: an equality in a join's ON (or a WHERE
joining two sources) whose two sides each resolve to a stored column — directly, or through a
subquery's or CTE's output of the same name — of two different kinds. A column whose kind the tree
does not tell (a computed output, an unknown table) makes no check.
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql, strip
from backend.domain.pipeline.validate.outcome import CheckResult, tree_rule_check

_STOCK, _INDEX, _SYMBOL = "stock code", "index code", "six-digit symbol"
_STOCK_TABLES = {"stock_basic", "daily", "daily_basic", "income", "fina_indicator"}
# (table, column) → the kind of code it holds
_KINDS: dict[tuple[str, str], str] = {
    **{(table, "ts_code"): _STOCK for table in _STOCK_TABLES},
    ("index_weight", "con_code"): _STOCK,
    ("index_weight", "index_code"): _INDEX,
    ("index_basic", "ts_code"): _INDEX,
    ("stock_basic", "symbol"): _SYMBOL,
}


def _sources(sql: Sql, select: exp.Select) -> dict[str, exp.Expr]:
    """Alias (or name) → the stored table, subquery body or CTE body each FROM/JOIN item reads."""
    found: dict[str, exp.Expr] = {}
    from_ = select.args.get("from_")
    items = [from_.this] if isinstance(from_, exp.From) else []
    items += [join.this for join in select.args.get("joins") or []]
    for item in items:
        name = item.alias_or_name.lower()
        if isinstance(item, exp.Subquery):
            found[name] = item.this
        elif isinstance(item, exp.Table):
            found[name] = sql.ctes.get(item.name.lower(), item)
    return found


def _kind(sql: Sql, select: exp.Select, column: exp.Column, depth: int = 3) -> str | None:
    """The kind of code `column` holds, followed through subqueries and CTEs that pass it on."""
    sources = _sources(sql, select)
    name = column.name.lower()
    if column.table:
        candidates = [sources.get(column.table.lower())]
    else:
        candidates = list(sources.values()) if len(sources) == 1 else []
    for source in candidates:
        if isinstance(source, exp.Table):
            return _KINDS.get((source.name.lower(), name))
        if isinstance(source, exp.Select) and depth > 0:
            inner = _output(source, name)
            if inner is not None:
                return _kind(sql, source, inner, depth - 1)
    return None


def _output(select: exp.Select, name: str) -> exp.Column | None:
    """The stored column a SELECT passes on under `name` (ts_code, s.ts_code AS ts_code)."""
    for projection in select.expressions:
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if projection.alias_or_name.lower() == name and isinstance(inner, exp.Column):
            return inner
    return None


def _equalities(select: exp.Select) -> list[exp.EQ]:
    conditions = [join.args.get("on") for join in select.args.get("joins") or []]
    conditions.append(select.args.get("where"))
    return [
        node
        for condition in conditions
        if condition is not None
        for node in condition.find_all(exp.EQ)
        if node.find_ancestor(exp.Select) is select
    ]


def _finding(sql: Sql) -> str | None:
    for select in sql.selects:
        for equality in _equalities(select):
            left, right = strip(equality.this), strip(equality.expression)
            if not isinstance(left, exp.Column) or not isinstance(right, exp.Column):
                continue
            kinds = _kind(sql, select, left), _kind(sql, select, right)
            if None not in kinds and kinds[0] != kinds[1]:
                return (
                    f"`{equality.sql(dialect=DIALECT)}` matches a {kinds[0]} with a {kinds[1]}: "
                    "they never name the same thing"
                )
    return None


def join_keys_check(sql: Sql, lang: Lang) -> CheckResult | None:
    return tree_rule_check(
        "join_keys",
        text=says(lang, "连接键两边是同一种代码", "a join matches codes of the same kind"),
        criterion=says(
            lang,
            "股票代码只与股票代码相连（不与指数代码或不带后缀的代码）",
            "stock codes are matched with stock codes (not index codes or bare symbols)",
        ),
        blames=Attribution.CONDITION,
        finding=lambda: _finding(sql),
    )
