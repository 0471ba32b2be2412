"""Mutants of a gold SQL by the NL2SQL-Bugs taxonomy, written on its sqlglot tree.

Each operator returns every single-point mutation of its type the tree allows; the benchmark keeps
only those whose result differs from the gold's on the data (a mutation that changes nothing is no
error). Operators never look at the question or at the checks: the benchmark is independent of what
the checks know.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta

import sqlglot
from sqlglot import exp

from backend.domain.market.guard import DIALECT

ERROR_TYPES = (
    "dropped_filter",
    "wrong_filter_value",
    "comparison",
    "wrong_column",
    "aggregate",
    "grouping",
    "date_window_period",
    "join",
    "distinct",
    "order_direction",
    "limit",
    "unit",
)

# Columns an analyst (or a generator) easily confuses: same table, similar meaning.
SIBLINGS: dict[str, tuple[str, ...]] = {
    "pe": ("pe_ttm", "pb"),
    "pe_ttm": ("pe", "ps_ttm"),
    "pb": ("pe", "ps"),
    "ps_ttm": ("ps", "pe_ttm"),
    "ps": ("ps_ttm", "pb"),
    "dv_ratio": ("dv_ttm", "turnover_rate"),
    "dv_ttm": ("dv_ratio",),
    "total_mv": ("circ_mv",),
    "circ_mv": ("total_mv",),
    "turnover_rate": ("volume_ratio", "dv_ratio"),
    "close": ("open", "pre_close"),
    "open": ("close",),
    "high": ("close", "low"),
    "low": ("close", "high"),
    "pre_close": ("open", "close"),
    "pct_chg": ("change",),
    "change": ("pct_chg",),
    "vol": ("amount",),
    "amount": ("vol",),
    "revenue": ("total_revenue",),
    "total_revenue": ("revenue",),
    "n_income_attr_p": ("n_income", "total_profit"),
    "n_income": ("n_income_attr_p",),
    "basic_eps": ("n_income_attr_p",),
    "roe": ("roa",),
    "roa": ("roe",),
    "grossprofit_margin": ("netprofit_margin",),
    "netprofit_margin": ("grossprofit_margin",),
    "netprofit_yoy": ("or_yoy",),
    "or_yoy": ("netprofit_yoy",),
    "debt_to_assets": ("roe",),
}
GROUP_SIBLINGS = {
    "industry": ("area",),
    "exchange": ("market",),
    "market": ("exchange",),
    "area": ("industry",),
}
AGGREGATES: dict[type[exp.Expr], tuple[type[exp.Expr], ...]] = {
    exp.Avg: (exp.Sum, exp.Max),
    exp.Sum: (exp.Avg, exp.Max),
    exp.Max: (exp.Min, exp.Avg),
    exp.Min: (exp.Max, exp.Avg),
}
_FLIPPED: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.LT,
    exp.GTE: exp.LTE,
    exp.LT: exp.GT,
    exp.LTE: exp.GTE,
    exp.EQ: exp.NEQ,
    exp.NEQ: exp.EQ,
}
_COMPARISONS = (exp.GT, exp.GTE, exp.LT, exp.LTE)
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Mutant:
    error_type: str
    description: str
    sql: str


Edit = Callable[[exp.Expr], str | None]  # mutates the node of a copied tree; its description


def _sites(tree: exp.Expr, wanted: Callable[[exp.Expr], bool]) -> list[int]:
    return [index for index, node in enumerate(tree.walk()) if wanted(node)]


def _apply(tree: exp.Expr, index: int, edit: Edit) -> tuple[str, str] | None:
    copy = tree.copy()
    node = list(copy.walk())[index]
    description = edit(node)
    if description is None:
        return None
    return description, copy.sql(dialect=DIALECT)


def _numeric(node: exp.Expr) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string


def _in_comparison(node: exp.Expr) -> bool:
    parent = node.parent
    return isinstance(parent, _COMPARISONS) or (
        isinstance(parent, exp.Neg) and isinstance(parent.parent, _COMPARISONS)
    )


def _inner_join(node: exp.Expr) -> bool:
    return isinstance(node, exp.Join) and str(node.args.get("kind") or "").upper() == "INNER"


def _iso_day(node: exp.Expr) -> bool:
    return isinstance(node, exp.Literal) and node.is_string and _ISO_DAY.match(node.this) is not None


def _over_dates(node: exp.Expr) -> bool:
    """max(trade_date) picks a day: changing it is a time-scope error, not an aggregate one."""
    return isinstance(node.this, exp.Column) and node.this.name in {"trade_date", "end_date", "cal_date"}


def _literal_number(value: float) -> exp.Expr:
    text = repr(int(value)) if float(value).is_integer() else repr(value)
    return exp.Literal.number(text)


def _conjuncts(node: exp.Expr) -> bool:
    """A leaf operand of an AND chain directly under WHERE or HAVING."""
    return (
        not isinstance(node, exp.And)
        and isinstance(node.parent, exp.And)
        and isinstance(_chain_top(node.parent).parent, exp.Where | exp.Having)
    )


def _chain_top(node: exp.Expr) -> exp.Expr:
    while isinstance(node.parent, exp.And):
        node = node.parent
    return node


def _drop(node: exp.Expr) -> str:
    parent = node.parent
    assert isinstance(parent, exp.And)
    other = parent.expression if node is parent.this else parent.this
    parent.replace(other)
    return f"dropped {node.sql(dialect=DIALECT)[:80]}"


def _operators(tree: exp.Expr) -> Iterator[tuple[str, int, Edit]]:
    """(error type, node index, edit) for every mutation site of the tree."""
    for index in _sites(tree, _conjuncts):
        yield "dropped_filter", index, _drop
    for index in _sites(tree, lambda n: isinstance(n, exp.Where) and not isinstance(n.this, exp.And)):

        def drop_where(node: exp.Expr) -> str:
            dropped = node.this.sql(dialect=DIALECT)[:80]
            node.pop()
            return f"dropped WHERE {dropped}"

        yield "dropped_filter", index, drop_where
    for index in _sites(tree, lambda n: _numeric(n) and _in_comparison(n)):
        for factor, label in ((2.0, "doubled"), (0.5, "halved")):

            def scale(node: exp.Expr, factor: float = factor, label: str = label) -> str | None:
                value = float(node.this)
                if value == 0:
                    return None
                node.replace(_literal_number(value * factor))
                return f"{label} the threshold {value:g}"

            yield "wrong_filter_value", index, scale
        for factor in (1e4, 1e-4):

            def unit(node: exp.Expr, factor: float = factor) -> str | None:
                value = float(node.this)
                if value == 0:
                    return None
                node.replace(_literal_number(value * factor))
                return f"threshold {value:g} times {factor:g} (a unit slip)"

            yield "unit", index, unit
    for index in _sites(tree, lambda n: type(n) in _FLIPPED and not isinstance(n.parent, exp.Join)):

        def flip(node: exp.Expr) -> str:
            flipped = _FLIPPED[type(node)](this=node.this.copy(), expression=node.expression.copy())
            node.replace(flipped)
            return f"{node.key} → {flipped.key}"

        yield "comparison", index, flip
    for index in _sites(tree, lambda n: isinstance(n, exp.Column) and n.name in SIBLINGS):
        for sibling in SIBLINGS[list(tree.walk())[index].name]:

            def rename(node: exp.Expr, sibling: str = sibling) -> str:
                old = node.name
                node.set("this", exp.to_identifier(sibling))
                return f"column {old} → {sibling}"

            yield "wrong_column", index, rename
    for index in _sites(tree, lambda n: type(n) in AGGREGATES and not _over_dates(n)):
        for other in AGGREGATES[type(list(tree.walk())[index])]:

            def swap(node: exp.Expr, other: type[exp.Expr] = other) -> str:
                replaced = other(this=node.this.copy())
                node.replace(replaced)
                return f"{node.key} → {replaced.key}"

            yield "aggregate", index, swap
    for index in _sites(
        tree,
        lambda n: (
            isinstance(n, exp.Column)
            and n.name in GROUP_SIBLINGS
            and n.find_ancestor(exp.Group, exp.Window) is not None
        ),
    ):

        def regroup(node: exp.Expr) -> str:
            old = node.name
            new = GROUP_SIBLINGS[old][0]
            # Rename the column everywhere it is selected too, so the query still runs.
            select = node.find_ancestor(exp.Select)
            scope = select if select is not None else node
            for column in scope.find_all(exp.Column):
                if column.name == old and column.table == node.text("table"):
                    column.set("this", exp.to_identifier(new))
            return f"grouped by {new} instead of {old}"

        yield "grouping", index, regroup
    yield from _time_operators(tree)
    for index in _sites(tree, lambda n: isinstance(n, exp.Join) and isinstance(n.args.get("on"), exp.And)):

        def loosen(node: exp.Expr) -> str:
            condition = node.args["on"]
            dropped = condition.expression.sql(dialect=DIALECT)
            node.set("on", condition.this.copy())
            return f"join condition {dropped} dropped"

        yield "join", index, loosen
    for index in _sites(
        tree, lambda n: isinstance(n, exp.Join) and str(n.args.get("kind") or "").upper() == "INNER"
    ):

        def outer(node: exp.Expr) -> str:
            node.set("kind", None)
            node.set("side", "LEFT")
            return "INNER JOIN → LEFT JOIN"

        yield "join", index, outer
    for index in _sites(tree, lambda n: isinstance(n, exp.Select) and n.parent is None):

        def toggle(node: exp.Expr) -> str:
            if node.args.get("distinct"):
                node.set("distinct", None)
                return "DISTINCT removed"
            node.set("distinct", exp.Distinct())
            return "DISTINCT added"

        yield "distinct", index, toggle
    for index in _sites(tree, lambda n: isinstance(n, exp.Ordered) and n.find_ancestor(exp.Window) is None):

        def reverse(node: exp.Expr) -> str:
            descending = bool(node.args.get("desc"))
            node.set("desc", not descending)
            return "DESC → ASC" if descending else "ASC → DESC"

        yield "order_direction", index, reverse
    for index in _sites(tree, lambda n: isinstance(n, exp.Limit) and _numeric(n.expression)):
        for delta in (1, -1):

            def relimit(node: exp.Expr, delta: int = delta) -> str | None:
                value = int(node.expression.this)
                if value + delta < 1:
                    return None
                node.set("expression", exp.Literal.number(value + delta))
                return f"LIMIT {value} → {value + delta}"

            yield "limit", index, relimit


def _latest_day(node: exp.Expr) -> bool:
    """`SELECT max(trade_date) FROM …` with no condition: the latest trading day."""
    if not isinstance(node, exp.Select) or node.args.get("where") is not None or len(node.expressions) != 1:
        return False
    projection = node.expressions[0]
    return (
        isinstance(projection, exp.Max)
        and isinstance(projection.this, exp.Column)
        and projection.this.name == "trade_date"
    )


def _time_operators(tree: exp.Expr) -> Iterator[tuple[str, int, Edit]]:
    """Another day, report period or window: a date literal moved, the latest day replaced by the one
    before, an INTERVAL or a month number changed."""
    for index in _sites(tree, _iso_day):
        for shift, label in ((-1, "a day earlier"), (-365, "a year earlier")):

            def move(node: exp.Expr, shift: int = shift, label: str = label) -> str:
                day = date.fromisoformat(node.this)
                moved = day + timedelta(days=shift)
                if day.month == 12 and day.day == 31 and shift == -365:
                    moved = date(day.year - 1, 12, 31)
                node.replace(exp.Literal.string(moved.isoformat()))
                return f"{day} → {moved} ({label})"

            yield "date_window_period", index, move
    for index in _sites(tree, _latest_day):

        def yesterday(node: exp.Expr) -> str:
            table = node.args["from_"].sql(dialect=DIALECT)
            node.set(
                "where",
                exp.Where(
                    this=sqlglot.parse_one(f"trade_date < (SELECT max(trade_date) {table})", dialect=DIALECT)
                ),
            )
            return "the latest trading day → the one before"

        yield "date_window_period", index, yesterday
    for index in _sites(tree, lambda n: isinstance(n, exp.Interval) and _numeric(n.this)):

        def widen(node: exp.Expr) -> str:
            value = int(float(node.this.this))
            node.set("this", exp.Literal.number(value + 1))
            return f"INTERVAL {value} → {value + 1}"

        yield "date_window_period", index, widen
    for index in _sites(
        tree,
        lambda n: (
            _numeric(n)
            and isinstance(n.parent, exp.EQ)
            and isinstance(n.parent.this, exp.Anonymous | exp.Func)
            and "month" in n.parent.this.sql(dialect=DIALECT).lower()
        ),
    ):

        def other_month(node: exp.Expr) -> str | None:
            month = int(node.this)
            other = 6 if month == 12 else 12
            node.replace(exp.Literal.number(other))
            return f"report month {month} → {other}"

        yield "date_window_period", index, other_month


def mutate(sql: str) -> list[Mutant]:
    """Every single-point mutant of the SQL (not yet filtered by its result), in tree order."""
    tree = sqlglot.parse_one(sql, dialect=DIALECT)
    mutants: list[Mutant] = []
    seen = {tree.sql(dialect=DIALECT)}
    for error_type, index, edit in _operators(tree):
        applied = _apply(tree, index, edit)
        if applied is None or applied[1] in seen:
            continue
        seen.add(applied[1])
        mutants.append(Mutant(error_type, applied[0], applied[1]))
    return mutants


def round_trip(sql: str) -> str:
    """The gold as sqlglot writes it back (mutants are written the same way)."""
    return sqlglot.parse_one(sql, dialect=DIALECT).sql(dialect=DIALECT)
