"""Facts about a candidate SQL read off its sqlglot tree (ClickHouse dialect, as the SQL guard reads it).

Every check works on these facts: comparisons of an expression with a constant, the numbers, strings
and dates written in the query, rankings (ORDER BY … LIMIT, LIMIT … BY, row_number() cuts) and the
direction in which an expression moves with a column. Names in ORDER BY, HAVING and WHERE are
resolved through the projection aliases of their SELECT and the outputs of the subqueries it reads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from functools import cached_property

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from backend.domain.market.guard import DIALECT
from backend.domain.market.guard_rules.keyword_names import keyword_cte_names

_OPERATORS: dict[type[exp.Expr], str] = {
    exp.EQ: "=",
    exp.NEQ: "!=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
}
_MIRRORED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "!=": "!="}
_DAY = re.compile(r"^(\d{4})[-/]?(\d{1,2})[-/]?(\d{1,2})(?:$|[ T])")  # 2025-09-08, 2025-9-8, 20250908
_DATE_FUNCTIONS = {"todate", "todate32", "todatetime", "todatetime64", "parsedatetimebesteffort"}
_RANK_FUNCTIONS = (exp.RowNumber, exp.Rank, exp.DenseRank)
# Aggregates and wrappers that move with their first argument: max(x) is larger when x is.
# quantile(p)(x) — median(x) reads as one — grows with x at any fixed level
_MONOTONE = (
    exp.Avg,
    exp.Sum,
    exp.Max,
    exp.Min,
    exp.AnyValue,
    exp.ArgMax,
    exp.ArgMin,
    exp.Median,
    exp.Quantile,
    exp.Round,
)
_MONOTONE_NAMES = {"anylast", "avgif", "sumif", "maxif", "minif", "anyif", "avgornull", "sumornull"}
_COUNT_NAMES = {"count", "countif", "uniq", "uniqexact", "countdistinct"}


class SqlUnreadable(Exception):
    """The candidate is not one query sqlglot can read."""


def parse_sql(text: str) -> Sql:
    try:
        dialect = Dialect.get_or_raise(DIALECT)
        # CTEs named with a keyword (WITH then AS …) read as the guard reads them
        named = keyword_cte_names(dialect.tokenize(text))
        statements = [node for node in dialect.parser().parse(named, text) if node is not None]
    except Exception as error:  # sqlglot reports some malformed input as plain Python errors
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise SqlUnreadable(f"the SQL could not be parsed as ClickHouse SQL: {first_line}") from error
    statements = [node for node in statements if not isinstance(node, exp.Semicolon)]
    if len(statements) != 1:
        raise SqlUnreadable(f"exactly one statement is expected, got {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise SqlUnreadable(f"a SELECT query is expected, got {tree.key.upper()}")
    return Sql(text=text, tree=tree)


def function_name(node: exp.Expr) -> str:
    if isinstance(node, (exp.Anonymous, exp.AnonymousAggFunc, exp.CombinedAggFunc, exp.ParameterizedAgg)):
        return node.name.lower()
    return node.key


def first_argument(node: exp.Expr) -> exp.Expr | None:
    if isinstance(node, (exp.Anonymous, exp.AnonymousAggFunc, exp.CombinedAggFunc)):
        return node.expressions[0] if node.expressions else None
    return node.this if isinstance(node.this, exp.Expr) else None


def strip(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def is_date_column(name: str) -> bool:
    return name.endswith("_date") or name in {"loaded_at", "trade_day"}


def columns_of(node: exp.Expr) -> set[str]:
    return {column.name.lower() for column in node.find_all(exp.Column)}


_BAR_PRICES = frozenset({"open", "high", "low", "close"})


def bar_prices(node: exp.Expr) -> set[str]:
    """The prices of a bar a node reads, with the price word of a derived name (prev_high → high);
    the stored pre_close is a price of its own."""
    names = columns_of(node)
    derived = {word for name in names - {"pre_close"} for word in name.split("_") if word in _BAR_PRICES}
    return (names & {*_BAR_PRICES, "pre_close"}) | derived


def number_value(node: exp.Expr) -> float | None:
    """The value of a constant numeric expression (literals, signs, arithmetic of constants)."""
    node = strip(node)
    if isinstance(node, exp.Literal):
        return None if node.is_string else float(node.this)
    if isinstance(node, exp.Neg):
        inner = number_value(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Round | exp.Cast):
        return number_value(node.this)
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div):
        left, right = number_value(node.this), number_value(node.expression)
        if left is None or right is None:
            return None
        if isinstance(node, exp.Add):
            return left + right
        if isinstance(node, exp.Sub):
            return left - right
        if isinstance(node, exp.Mul):
            return left * right
        return None if right == 0 else left / right
    return None


def date_value(node: exp.Expr) -> date | None:
    """The day of a date literal: '2025-09-08', DATE '…', toDate('…')."""
    node = strip(node)
    if isinstance(node, exp.Cast):
        return date_value(node.this)
    if isinstance(node, exp.Anonymous) and function_name(node) in _DATE_FUNCTIONS and node.expressions:
        return date_value(node.expressions[0])
    if isinstance(node, exp.Literal) and node.is_string:
        match = _DAY.match(node.this)
        if match:
            try:
                return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
            except ValueError:
                return None
    return None


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def is_power_of_ten(ratio: float) -> bool:
    if ratio <= 0:
        return False
    exponent = math.log10(ratio)
    return abs(exponent - round(exponent)) < 1e-9 and round(exponent) != 0


def under_not(node: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        if isinstance(parent, exp.Not):
            return True
        parent = parent.parent
    return False


def enclosing_select(node: exp.Expr) -> exp.Select | None:
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        parent = parent.parent
    return parent


@dataclass(frozen=True, eq=False)
class Comparison:
    """`subject OP constant`, the constant a number or a day (BETWEEN and IN lists give several)."""

    subject: exp.Expr  # resolved through aliases
    op: str
    number: float | None
    day: date | None
    negated: bool  # under NOT: the operator's sense is not the query's
    select: exp.Select | None
    node: exp.Expr  # the comparison in the tree (the subject may be a resolved copy)


@dataclass(frozen=True, eq=False)
class OrderKey:
    expression: exp.Expr  # resolved through aliases
    descending: bool


@dataclass(frozen=True, eq=False)
class Ranking:
    """Rows cut to the first `limit` of an ordering (per `by` group when there is one)."""

    select: exp.Select
    keys: tuple[OrderKey, ...]
    limit: int | None  # None: a rank window whose cut was not found
    offset: int
    by: tuple[exp.Expr, ...]


@dataclass(frozen=True, eq=False)
class Sql:
    text: str
    tree: exp.Query

    def nodes(self) -> Iterator[exp.Expr]:
        yield from self.tree.walk()

    @cached_property
    def selects(self) -> tuple[exp.Select, ...]:
        return tuple(node for node in self.nodes() if isinstance(node, exp.Select))

    @cached_property
    def ctes(self) -> dict[str, exp.Expr]:
        return {cte.alias_or_name.lower(): cte.this for cte in self.tree.find_all(exp.CTE)}

    @cached_property
    def functions(self) -> frozenset[str]:
        return frozenset(function_name(node) for node in self.nodes() if isinstance(node, exp.Func))

    @cached_property
    def strings(self) -> tuple[str, ...]:
        return tuple(node.this for node in self.nodes() if isinstance(node, exp.Literal) and node.is_string)

    @cached_property
    def dates(self) -> tuple[date, ...]:
        days = (date_value(node) for node in self.nodes() if isinstance(node, exp.Literal) and node.is_string)
        return tuple(day for day in days if day is not None)

    @cached_property
    def numbers(self) -> tuple[float, ...]:
        """Every numeric constant: signed literals, INTERVAL counts and folded constant arithmetic."""
        values: list[float] = []
        for node in self.nodes():
            if isinstance(node, exp.Interval) and isinstance(node.this, exp.Literal):
                if re.fullmatch(r"-?\d+(\.\d+)?", str(node.this.this)):
                    values.append(float(node.this.this))
            elif isinstance(node, exp.Literal | exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Neg):
                value = number_value(node)
                if value is not None and not isinstance(node.parent, exp.Neg):
                    values.append(value)
        return tuple(values)

    def has_number(self, candidates: tuple[float, ...]) -> bool:
        return self.find_number(candidates) is not None

    def find_number(self, candidates: tuple[float, ...]) -> float | None:
        """The first constant of the SQL equal to one of the candidates."""
        return next((value for value in self.numbers if any(close(value, c) for c in candidates)), None)

    def resolve(self, node: exp.Expr, select: exp.Select | None, depth: int = 3) -> exp.Expr:
        """`node` with projection aliases and subquery outputs replaced by what they compute."""
        if select is None or depth == 0:
            return node
        aliases = {
            projection.alias.lower(): projection.this
            for projection in select.expressions
            if isinstance(projection, exp.Alias)
        }
        outputs = self._source_outputs(select)

        def swap(current: exp.Expr) -> exp.Expr:
            if not isinstance(current, exp.Column):
                return current
            name = current.name.lower()
            if not current.table and name in aliases:
                target = aliases[name]
                if not (isinstance(target, exp.Column) and target.name.lower() == name):
                    return self.resolve(target.copy(), select, depth - 1)
            if name in outputs:
                inner, inner_select = outputs[name]
                if not (isinstance(inner, exp.Column) and inner.name.lower() == name):
                    return self.resolve(inner.copy(), inner_select, depth - 1)
            return current

        return node.copy().transform(swap)

    def sources(self, select: exp.Select) -> list[exp.Select]:
        """The SELECTs a SELECT reads rows from: FROM/JOIN subqueries and CTEs."""
        found: list[exp.Select] = []
        from_clause = select.args.get("from_")
        items = [from_clause.this] if isinstance(from_clause, exp.From) else []
        items += [join.this for join in select.args.get("joins") or []]
        for item in items:
            if isinstance(item, exp.Subquery) and isinstance(item.this, exp.Select):
                found.append(item.this)
            elif isinstance(item, exp.Table) and item.name.lower() in self.ctes:
                body = self.ctes[item.name.lower()]
                if isinstance(body, exp.Select):
                    found.append(body)
        return found

    def read_from(self, select: exp.Select) -> list[exp.Select]:
        """SELECTs whose rows reach `select`: FROM/JOIN subqueries, CTEs and IN (subquery) filters."""
        found = self.sources(select)
        where = select.args.get("where")
        if isinstance(where, exp.Where):
            for node in where.find_all(exp.In):
                query = node.args.get("query")
                if isinstance(query, exp.Subquery) and isinstance(query.this, exp.Select):
                    found.append(query.this)
        return found

    def reads_cut_rows(self, node: exp.Expr, k: int) -> bool:
        """Whether the SELECT computing `node` reads rows cut to the first k (ORDER BY … LIMIT k,
        LIMIT k BY, rn <= k) from a subquery, CTE or IN filter. Its own cut does not count: in one
        SELECT, aggregates (window ones too) see every row before the LIMIT."""
        select = enclosing_select(node)
        return select is not None and any(self._cut(source, k, depth=3) for source in self.read_from(select))

    def _cut(self, select: exp.Select, k: int, depth: int) -> bool:
        if any(ranking.select is select and ranking.limit == k for ranking in self.rankings):
            return True
        return depth > 0 and any(self._cut(source, k, depth - 1) for source in self.read_from(select))

    def _source_outputs(self, select: exp.Select) -> dict[str, tuple[exp.Expr, exp.Select]]:
        outputs: dict[str, tuple[exp.Expr, exp.Select]] = {}
        for source in self.sources(select):
            for projection in source.expressions:
                if isinstance(projection, exp.Alias):
                    outputs[projection.alias.lower()] = (projection.this, source)
        return outputs

    @cached_property
    def comparisons(self) -> tuple[Comparison, ...]:
        found: list[Comparison] = []
        for node in self.nodes():
            if type(node) in _OPERATORS:
                pairs = [(node.this, _OPERATORS[type(node)], node.expression)]
                if self._constant(node.this) and not self._constant(node.expression):
                    pairs = [(node.expression, _MIRRORED[_OPERATORS[type(node)]], node.this)]
            elif isinstance(node, exp.Between):
                pairs = [(node.this, ">=", node.args["low"]), (node.this, "<=", node.args["high"])]
            elif isinstance(node, exp.In) and node.expressions:
                pairs = [(node.this, "=", value) for value in node.expressions]
            else:
                continue
            select, negated = enclosing_select(node), under_not(node)
            for subject, op, constant in pairs:
                number, day = number_value(constant), date_value(constant)
                if (number is None and day is None) or self._constant(subject):
                    continue
                found.append(
                    Comparison(self.resolve(subject, select), op, number, day, negated, select, node)
                )
        return tuple(found)

    @staticmethod
    def _constant(node: exp.Expr) -> bool:
        return number_value(node) is not None or date_value(node) is not None

    def _window_spec(self, window: exp.Window) -> exp.Window:
        """A window written `OVER w` takes its PARTITION BY / ORDER BY from `WINDOW w AS (…)`."""
        select = enclosing_select(window)
        name = window.args.get("alias")
        if select is None or not isinstance(name, exp.Identifier):
            return window
        for named in select.args.get("windows") or []:
            if isinstance(named, exp.Window) and named.this.name == name.name:
                return named
        return window

    def partitions(self) -> Iterator[tuple[exp.Expr, exp.Select | None]]:
        """Every PARTITION BY expression of a window, with the SELECT it belongs to."""
        for window in self.tree.find_all(exp.Window):
            spec = self._window_spec(window)
            for expression in spec.args.get("partition_by") or []:
                yield expression, enclosing_select(window)

    @cached_property
    def rankings(self) -> tuple[Ranking, ...]:
        found: list[Ranking] = []
        for select in self.selects:
            limit, order = select.args.get("limit"), select.args.get("order")
            if isinstance(limit, exp.Limit) and isinstance(order, exp.Order):
                count = number_value(limit.expression) if limit.expression is not None else None
                offset_node = select.args.get("offset")
                offset = number_value(offset_node.expression) if isinstance(offset_node, exp.Offset) else 0
                found.append(
                    Ranking(
                        select=select,
                        keys=self.order_keys(order, select),
                        limit=None if count is None else int(count),
                        offset=int(offset or 0),
                        by=tuple(self.resolve(item, select) for item in limit.expressions),
                    )
                )
        for window in self.tree.find_all(exp.Window):
            if isinstance(window.this, _RANK_FUNCTIONS):
                found.append(self._rank_window(window))
        return tuple(found)

    def order_keys(self, order: exp.Order, select: exp.Select) -> tuple[OrderKey, ...]:
        """ORDER BY keys resolved through aliases and positions (ORDER BY 2 DESC)."""
        keys = []
        for item in order.expressions:
            if not isinstance(item, exp.Ordered):
                continue
            position = number_value(item.this)
            target = item.this
            if position is not None and 1 <= position <= len(select.expressions) and order.parent is select:
                target = select.expressions[int(position) - 1]
                target = target.this if isinstance(target, exp.Alias) else target
            keys.append(OrderKey(self.resolve(target, select), bool(item.args.get("desc"))))
        return tuple(keys)

    def _rank_window(self, window: exp.Window) -> Ranking:
        spec = self._window_spec(window)
        select = enclosing_select(window)
        assert select is not None  # a window function only exists inside a SELECT
        order = spec.args.get("order")
        keys = self.order_keys(order, select) if isinstance(order, exp.Order) else ()
        by = tuple(self.resolve(item, select) for item in spec.args.get("partition_by") or [])
        alias = window.parent.alias.lower() if isinstance(window.parent, exp.Alias) else ""
        cut: int | None = None  # rn <= k / rn < k + 1 / rn = 1, wherever the rank is filtered
        for comparison in self.comparisons:
            subject = strip(comparison.subject)
            if subject != window and not (isinstance(subject, exp.Column) and subject.name.lower() == alias):
                continue
            if comparison.number is not None and not comparison.negated:
                if comparison.op in {"<=", "="}:
                    cut = int(comparison.number)
                elif comparison.op == "<":
                    cut = int(comparison.number) - 1
        return Ranking(select=select, keys=keys, limit=cut, offset=0, by=by)


def latest_aliases(sql: Sql) -> set[str]:
    """Aliases whose row number is 1 (rn = 1): the last bar when rows are numbered newest first (a
    row_number() a CTE defines counts when it orders by a descending key)."""
    found = set()
    for comparison in sql.comparisons:
        if comparison.op != "=" or comparison.number != 1 or not isinstance(comparison.node, exp.Binary):
            continue
        written = (
            comparison.node.this
            if number_value(comparison.node.expression) == 1
            else comparison.node.expression
        )
        if not isinstance(written, exp.Column) or not written.table:
            continue
        resolved = strip(comparison.subject)
        if isinstance(resolved, exp.Window) and isinstance(resolved.this, exp.RowNumber):
            order = resolved.args.get("order")
            keys = order.expressions if isinstance(order, exp.Order) else []
            if keys and all(key.args.get("desc") for key in keys):
                found.add(written.table)
        elif written.name.lower() in {"rn", "row_number", "rank"}:
            found.add(written.table)
    return found


def is_count(node: exp.Expr) -> bool:
    node = strip(node)
    return isinstance(node, exp.Count) or function_name(node) in _COUNT_NAMES


def linear_factor(node: exp.Expr, column: str, *, amounts: bool = False) -> float | None:
    """k when `node` is k × the column, possibly under an aggregate or a rounding; None otherwise.

    With `amounts` (a shown amount's unit), a sum or difference of two values of the column scaled
    alike (Q3's cumulative profit − H1's) and a scalar subquery showing it keep that factor: the unit
    of a figure, not the size of a threshold."""
    node = strip(node)
    if isinstance(node, exp.Column):
        return 1.0 if node.name.lower() == column else None
    if isinstance(node, exp.Window):
        return linear_factor(node.this, column, amounts=amounts)
    if amounts and isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select):
        shown = node.this.expressions
        return linear_factor(shown[0].unalias(), column, amounts=True) if len(shown) == 1 else None
    if amounts and isinstance(node, exp.Add | exp.Sub):
        left, right = (linear_factor(side, column, amounts=True) for side in (node.this, node.expression))
        return left if left is not None and right is not None and close(left, right) else None
    if isinstance(node, _MONOTONE) or function_name(node) in _MONOTONE_NAMES:
        first = first_argument(node)
        return None if first is None else linear_factor(first, column, amounts=amounts)
    if isinstance(node, exp.Neg):
        inner = linear_factor(node.this, column, amounts=amounts)
        return None if inner is None else -inner
    if isinstance(node, exp.Mul | exp.Div):
        if isinstance(node, exp.Div) and is_count(node.expression):
            return linear_factor(
                node.this, column, amounts=amounts
            )  # sum(x) / count(): an average keeps the unit
        right = number_value(node.expression)
        if right is not None and right != 0:
            inner = linear_factor(node.this, column, amounts=amounts)
            if inner is None:
                return None
            return inner * right if isinstance(node, exp.Mul) else inner / right
        left = number_value(node.this)
        if isinstance(node, exp.Mul) and left is not None:
            inner = linear_factor(node.expression, column, amounts=amounts)
            return None if inner is None else inner * left
    return None


def direction(
    node: exp.Expr, columns: frozenset[str], gain: bool, select: exp.Select | None = None
) -> int | None:
    """+1 when `node` grows with the column(s), -1 when it shrinks, None when that cannot be told.

    With `gain`, a ratio later price / earlier price (argMax(close, day) / argMin(close, day)) also
    counts as growing with the gain — that is how a gain over a window is written. `select`: where a
    detached copy of a key was read from (the days its tables are pinned to are read there).
    """
    node = strip(node)
    if isinstance(node, exp.Column):
        return 1 if node.name.lower() in columns else None
    if isinstance(node, exp.Window):
        return direction(node.this, columns, gain, select)
    if isinstance(node, _MONOTONE) or (isinstance(node, exp.Func) and function_name(node) in _MONOTONE_NAMES):
        first = first_argument(node)
        return None if first is None else direction(first, columns, gain, select)
    if isinstance(node, exp.Neg):
        inner = direction(node.this, columns, gain, select)
        return None if inner is None else -inner
    if isinstance(node, exp.Mul | exp.Div | exp.Add | exp.Sub):
        return _arithmetic_direction(node, columns, gain, select)
    return None


def _arithmetic_direction(
    node: exp.Binary, columns: frozenset[str], gain: bool, select: exp.Select | None
) -> int | None:
    left, right = node.this, node.expression
    left_value, right_value = number_value(left), number_value(right)
    if isinstance(node, exp.Add | exp.Sub) and right_value is not None:
        return direction(left, columns, gain, select)
    if isinstance(node, exp.Add) and left_value is not None:
        return direction(right, columns, gain, select)
    if isinstance(node, exp.Add):
        # a sum of terms that all move the same way with the metric (the amounts of several periods)
        sides = {direction(left, columns, gain, select), direction(right, columns, gain, select)}
        return sides.pop() if len(sides) == 1 else None
    if isinstance(node, exp.Sub) and left_value is not None:
        inner = direction(right, columns, gain, select)
        return None if inner is None else -inner
    if isinstance(node, exp.Mul | exp.Div) and right_value is not None and right_value != 0:
        inner = direction(left, columns, gain, select)
        return None if inner is None else inner * (1 if right_value > 0 else -1)
    if isinstance(node, exp.Mul) and left_value is not None and left_value != 0:
        inner = direction(right, columns, gain, select)
        return None if inner is None else inner * (1 if left_value > 0 else -1)
    if isinstance(node, exp.Div) and gain:
        later, earlier = price_end(left), price_end(right)
        if later is not None and earlier is not None and later != earlier:
            return 1 if later == "last" else -1
        pinned = _pinned_order(left, right)
        return pinned if pinned is not None else _latest_over_other(left, right, select)
    return None


def price_end(node: exp.Expr) -> str | None:
    """Which end of a window a price expression reads: "last" (argMax by day) or "first"."""
    node = strip(node)
    if isinstance(node, exp.ArgMax):
        return "last"
    if isinstance(node, exp.ArgMin):
        return "first"
    if function_name(node) in {"anylast", "lastvalue", "last_value"}:
        return "last"
    if function_name(node) in {"anyvalue", "firstvalue", "first_value"}:
        return "first"
    return None


def _pinned_order(left: exp.Expr, right: exp.Expr) -> int | None:
    """+1 when the price over the bar reads the later day, -1 the earlier one: argMaxIf(close,
    trade_date, trade_date >= '2025-12-01') / argMaxIf(close, trade_date, trade_date < '2025-12-01')."""
    later, earlier = _pinned_day(left), _pinned_day(right)
    if later is None or earlier is None or later == earlier:
        return None
    return 1 if later > earlier else -1


def _latest_over_other(left: exp.Expr, right: exp.Expr, select: exp.Select | None) -> int | None:
    """+1 for a.close / b.close when a's day is the latest (a.trade_date = (SELECT max(trade_date) FROM
    …), nothing bounding it) and b's day is pinned to some other one; -1 the other way round."""
    left, right = strip(left), strip(right)
    if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
        return None
    if left.name.lower() != right.name.lower() or not left.table or left.table == right.table:
        return None
    select = select or enclosing_select(left)
    if select is None:
        return None
    days = _day_pins(select)
    mine, other = days.get(left.table.lower()), days.get(right.table.lower())
    if mine is None or other is None or mine == other:
        return None
    if mine == "latest":
        return 1
    return -1 if other == "latest" else None


def _day_pins(select: exp.Select) -> dict[str, str]:
    """Table alias → how its trade_date is pinned in the SELECT's own WHERE or ON: "latest" (= the
    unbounded max of the days) or the SQL of what it equals."""
    found: dict[str, str] = {}
    for node in select.find_all(exp.EQ):
        if enclosing_select(node) is not select:
            continue
        column, value = strip(node.this), strip(node.expression)
        if not (isinstance(column, exp.Column) and column.name.lower() == "trade_date" and column.table):
            continue
        inner = value.this if isinstance(value, exp.Subquery) else None
        latest = (
            isinstance(inner, exp.Select)
            and inner.args.get("where") is None
            and len(inner.expressions) == 1
            and isinstance(strip(inner.expressions[0]), exp.Max)
        )
        found[column.table.lower()] = "latest" if latest else value.sql()
    return found


def _pinned_day(node: exp.Expr) -> date | None:
    """The day argMaxIf / argMinIf by a date picks its price on: the last / first day its condition
    keeps (date.max for the latest day, a bound left open)."""
    node = strip(node)
    name = function_name(node)
    if isinstance(node, exp.ArgMax | exp.ArgMin):  # no condition: the latest / first day of all
        by = strip(node.expression)
        if isinstance(by, exp.Column) and is_date_column(by.name.lower()):
            return date.max if isinstance(node, exp.ArgMax) else date.min
        return None
    arguments = node.expressions if isinstance(node, exp.CombinedAggFunc) else []
    if name not in {"argmaxif", "argminif"} or len(arguments) != 3:
        return None
    by = strip(arguments[1])
    if not (isinstance(by, exp.Column) and is_date_column(by.name.lower())):
        return None
    days = _date_range(arguments[2])
    if days is None:
        return None
    return days[1] if name == "argmaxif" else days[0]


_DAY_BEFORE = {exp.LT: -1, exp.LTE: 0, exp.GT: 1, exp.GTE: 0, exp.EQ: 0}


def _date_range(condition: exp.Expr) -> tuple[date, date] | None:
    """The days a condition on a date column keeps, when it reads as one range."""
    condition = strip(condition)
    if isinstance(condition, exp.And):
        ranges = [found for side in (condition.this, condition.expression) if (found := _date_range(side))]
        if not ranges:
            return None
        return max(low for low, _ in ranges), min(high for _, high in ranges)
    if isinstance(condition, exp.Between) and _is_date_key(condition.this):
        low, high = date_value(condition.args["low"]), date_value(condition.args["high"])
        return (low, high) if low is not None and high is not None else None
    if not isinstance(condition, exp.LT | exp.LTE | exp.GT | exp.GTE | exp.EQ):
        return None
    key, value = strip(condition.this), strip(condition.expression)
    year = number_value(value)
    if isinstance(condition, exp.EQ) and function_name(key) == "toyear" and year is not None:
        inner = first_argument(key)
        if inner is not None and _is_date_key(inner) and year == int(year):
            return date(int(year), 1, 1), date(int(year), 12, 31)
        return None
    if not _is_date_key(key):
        return None
    if isinstance(condition, exp.EQ) and isinstance(value, exp.Subquery):
        latest = isinstance(value.this, exp.Select) and [
            function_name(projection) for projection in value.this.expressions
        ] == ["max"]
        return (date.max, date.max) if latest else None
    day = date_value(value)
    if day is None:
        return None
    shift = _DAY_BEFORE[type(condition)]
    if shift:
        day = date.fromordinal(day.toordinal() + shift)
    if isinstance(condition, exp.LT | exp.LTE):
        return date.min, day
    if isinstance(condition, exp.GT | exp.GTE):
        return day, date.max
    return day, day


def _is_date_key(node: exp.Expr) -> bool:
    node = strip(node)
    return isinstance(node, exp.Column) and is_date_column(node.name.lower())
