"""Symbolic execution of a SQL query (sqlglot tree) over a database of at most k rows per table.

Every base table is a list of k symbolic rows; each row has a `present` flag (the row is in the
database or deleted) and one symbolic value per column. A query evaluates to a `Relation`: a list of
candidate output rows, each with a presence condition, plus (for ORDER BY) a symbolic rank. Both
queries of a check are evaluated by the same `Encoder`, so they read the same symbolic database.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import Any

import z3
from sqlglot import exp

from backend.domain.equivalence import values as V
from backend.domain.equivalence.dialects import Dialect
from backend.domain.equivalence.errors import Unsupported
from backend.domain.equivalence.schema import DATE, INT, REAL, STRING, ColumnDef, Schema, TableDef
from backend.domain.equivalence.values import FALSE, TRUE, Val

MAX_STRING_LENGTH = 12


@dataclass(frozen=True)
class Col:
    qualifier: str  # lower-case table alias ("" for derived columns)
    name: str  # output name as written
    kind: str
    nullable_type: bool = True  # ClickHouse Nullable(...) (outer joins fill NULL rather than a default)


@dataclass
class Row:
    present: z3.BoolRef
    values: list[Val]


@dataclass
class Relation:
    cols: list[Col]
    rows: list[Row]
    ranks: list[z3.ArithRef] | None = None  # position of each row in an ORDER BY output


@dataclass
class BaseTable:
    table: TableDef
    rows: list[Row]


@dataclass(frozen=True)
class Frame:
    cols: list[Col]
    values: list[Val]


@dataclass
class Group:
    members: list[tuple[z3.BoolRef, Frame]]


@dataclass
class Scope:
    frames: tuple[Frame, ...] = ()
    group: Group | None = None
    aliases: dict[str, exp.Expr] = field(default_factory=dict)
    prefer_aliases: bool = False


class UnresolvedColumn(Exception):
    pass


class EncodingTooLarge(Exception):
    """The encoding outgrew MAX_SYMBOLIC_ROWS or the time budget at this bound (treated like a timeout)."""


MAX_SYMBOLIC_ROWS = 600


def _lower(name: str) -> str:
    return name.lower()


def _has_aggregate(node: exp.Expr) -> bool:
    for sub in node.walk(
        bfs=False, prune=lambda n: isinstance(n, exp.Select | exp.Subquery) and n is not node
    ):
        if isinstance(sub, exp.AggFunc):
            return True
    return False


_SUPPORTED_AGGREGATES = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)
_CLICKHOUSE_COUNT_DISTINCT = {"uniqexact", "uniq", "countdistinct"}


class Encoder:
    def __init__(
        self,
        schema: Schema,
        dialect: Dialect,
        bound: int,
        deadline: float | None = None,
        literals: Sequence[str] = (),
    ) -> None:
        self.deadline = deadline  # time.monotonic() value after which encoding stops
        # Stored strings range over printable ASCII plus every character of the queries' own string
        # literals, and are at least as long as the longest literal: otherwise a literal such as
        # '光伏设备' could never be matched and two different filters on it would look equivalent.
        extra = sorted({char for text in literals for char in text if not " " <= char <= "~"})
        self.any_char: z3.ReRef = z3.Union(z3.Range(" ", "~"), *(z3.Re(char) for char in extra))
        self.max_string_length = max([MAX_STRING_LENGTH, *(len(text) for text in literals)])
        self.schema = schema
        self.dialect = dialect
        self.bound = bound
        self.constraints: list[z3.BoolRef] = []
        self.tables: dict[str, BaseTable] = {}
        self.calendar = V.Calendar(self.constraints, "")
        self._ctes: list[dict[str, Relation]] = [{}]
        self._uncorrelated: dict[int, Relation] = {}
        self._fresh = 0
        self.notes: list[str] = []

    # --- database ---------------------------------------------------------------------------------

    def base_table(self, name: str) -> BaseTable:
        table = self.schema.table(name)
        if table is None:
            raise Unsupported(f"unknown table {name}")
        key = table.name.lower()
        if key not in self.tables:
            rows = [self._symbolic_row(table, index) for index in range(self.bound)]
            self.tables[key] = BaseTable(table, rows)
            self._table_constraints(table, rows)
        return self.tables[key]

    def _symbolic_row(self, table: TableDef, index: int) -> Row:
        present = z3.Bool(f"{table.name}_{index}_present")
        values = [self._symbolic_value(f"{table.name}_{index}_{c.name}", c) for c in table.columns]
        return Row(present, values)

    def _symbolic_value(self, name: str, column: ColumnDef) -> Val:
        null = z3.Bool(f"{name}_null") if column.nullable else FALSE
        if column.kind == INT:
            term: z3.ExprRef = z3.Int(name)
        elif column.kind == REAL:
            term = z3.Real(name)
        elif column.kind == DATE:
            term = z3.Int(name)
            self.constraints += [term >= 0, term <= V.MAX_DAY_NUMBER]
        elif column.kind == STRING:
            term = z3.String(name)
            self.constraints.append(z3.Length(term) <= self.max_string_length)
            self.constraints.append(z3.InRe(term, z3.Star(self.any_char)))
        else:
            raise Unsupported(f"column type {column.sql_type}")
        if column.minimum is not None:
            self.constraints.append(term >= column.minimum)
        if column.maximum is not None:
            self.constraints.append(term <= column.maximum)
        return Val(column.kind, term, null)

    def _table_constraints(self, table: TableDef, rows: list[Row]) -> None:
        # Present rows come first: row order inside a table carries no meaning, so this only
        # removes symmetric copies of the same database from the search.
        for before, after in pairwise(rows):
            self.constraints.append(z3.Implies(after.present, before.present))
        for key in (table.primary_key, *table.unique_keys):
            positions = [self._position(table, name) for name in key]
            if not positions or None in positions:
                continue
            for i, row in enumerate(rows):
                for other in rows[i + 1 :]:
                    same = z3.And(
                        *[V.same_value(row.values[p], other.values[p]) for p in positions if p is not None]
                    )
                    self.constraints.append(z3.Not(z3.And(row.present, other.present, same)))
        for foreign in table.foreign_keys:
            self._foreign_key_constraint(table, rows, foreign.columns, foreign.parent, foreign.parent_columns)

    def _foreign_key_constraint(
        self,
        table: TableDef,
        rows: list[Row],
        columns: tuple[str, ...],
        parent: str,
        parent_columns: tuple[str, ...],
    ) -> None:
        parent_table = self.base_table(parent)
        child_positions = [self._position(table, c) for c in columns]
        parent_positions = [self._position(parent_table.table, c) for c in parent_columns]
        if None in child_positions or None in parent_positions:
            return
        for row in rows:
            child_values = [row.values[p] for p in child_positions if p is not None]
            any_null = z3.Or(*[v.null for v in child_values])
            matches = [
                z3.And(
                    parent_row.present,
                    *[
                        z3.And(z3.Not(pv.null), V.terms_equal(cv, pv))
                        for cv, pv in zip(
                            child_values,
                            [parent_row.values[p] for p in parent_positions if p is not None],
                            strict=True,
                        )
                    ],
                )
                for parent_row in parent_table.rows
            ]
            self.constraints.append(z3.Implies(z3.And(row.present, z3.Not(any_null)), z3.Or(*matches)))

    @staticmethod
    def _position(table: TableDef, name: str) -> int | None:
        for index, column in enumerate(table.columns):
            if column.name.lower() == name.lower():
                return index
        return None

    # --- queries ----------------------------------------------------------------------------------

    def check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise EncodingTooLarge("time budget spent while encoding")

    def query(self, node: exp.Expr, scope: Scope | None = None) -> Relation:
        self.check_deadline()
        scope = scope or Scope()
        if isinstance(node, exp.Subquery):
            return self._with_order_limit(self.query(node.this, scope), node, scope)
        if isinstance(node, exp.Paren):
            return self.query(node.this, scope)
        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            return self._with_ctes(with_, node, scope)
        if isinstance(node, exp.Select):
            return self._select(node, scope)
        if isinstance(node, exp.Union | exp.Intersect | exp.Except):
            return self._set_operation(node, scope)
        if isinstance(node, exp.Values):
            return self._values(node)
        raise Unsupported(f"statement {node.key}")

    def _with_ctes(self, with_: exp.Expr, node: exp.Expr, scope: Scope) -> Relation:
        if with_.args.get("recursive"):
            raise Unsupported("recursive CTE")
        frame: dict[str, Relation] = {}
        self._ctes.append(frame)
        try:
            for cte in with_.expressions:
                relation = self.query(cte.this, scope)
                frame[cte.alias_or_name.lower()] = self._rename(
                    relation, cte.alias_or_name, cte.args.get("alias")
                )
            inner = node.copy()
            inner.set("with_", None)
            inner.set("with", None)
            return self.query(inner, scope)
        finally:
            self._ctes.pop()

    def _find_cte(self, name: str) -> Relation | None:
        for frame in reversed(self._ctes):
            if name.lower() in frame:
                return frame[name.lower()]
        return None

    def _values(self, node: exp.Values) -> Relation:
        rows: list[Row] = []
        for tuple_ in node.expressions:
            items = tuple_.expressions if isinstance(tuple_, exp.Tuple) else [tuple_]
            rows.append(Row(TRUE, [self.expr(item, Scope()) for item in items]))
        if not rows:
            raise Unsupported("empty VALUES")
        alias = node.args.get("alias")
        columns = alias.args.get("columns") if alias is not None else None
        names = [c.name for c in columns] if columns else []
        cols = [
            Col(
                _lower(node.alias) if node.alias else "",
                names[i] if i < len(names) else f"column{i + 1}",
                v.kind,
            )
            for i, v in enumerate(rows[0].values)
        ]
        return Relation(cols, rows)

    def _rename(self, relation: Relation, alias: str, alias_node: exp.Expr | None) -> Relation:
        columns = alias_node.args.get("columns") if alias_node is not None else None
        names = [c.name for c in columns] if columns else []
        cols = [
            Col(_lower(alias), names[i] if i < len(names) else c.name, c.kind, c.nullable_type)
            for i, c in enumerate(relation.cols)
        ]
        return Relation(cols, relation.rows, relation.ranks)

    # --- FROM -------------------------------------------------------------------------------------

    def _source(self, node: exp.Expr, scope: Scope) -> Relation:
        if (
            isinstance(node, exp.Subquery)
            and isinstance(node.this, exp.Table)
            and node.this.args.get("joins")
        ):
            # A parenthesised join tree: (b JOIN c ON ...)
            nested = node.this.copy()
            joins = nested.args.pop("joins")
            relation = self._source(nested, scope)
            for join in joins:
                relation = self._join(relation, join, scope)
            return relation
        if isinstance(node, exp.Table):
            if node.args.get("joins"):
                raise Unsupported("nested join")
            if isinstance(node.this, exp.Anonymous | exp.Func):
                raise Unsupported("table function")
            alias = node.alias or node.name
            cte = self._find_cte(node.name) if not node.args.get("db") else None
            if cte is not None:
                return self._rename(cte, alias, node.args.get("alias"))
            base = self.base_table(node.name)
            cols = [Col(_lower(alias), c.name, c.kind, c.nullable) for c in base.table.columns]
            relation = Relation(cols, base.rows)
            alias_node = node.args.get("alias")
            return self._rename(relation, alias, alias_node) if alias_node is not None else relation
        if isinstance(node, exp.Subquery):
            inner = self.query(node.this, scope)
            inner = self._with_order_limit(inner, node, scope)
            return self._rename(inner, node.alias, node.args.get("alias"))
        if isinstance(node, exp.Values):
            return self._values(node)
        raise Unsupported(f"FROM item {node.key}")

    def _from(self, select: exp.Select, scope: Scope) -> Relation:
        from_ = select.args.get("from_") or select.args.get("from")
        if from_ is None:
            return Relation([], [Row(TRUE, [])])
        relation = self._source(from_.this, scope)
        for join in select.args.get("joins") or []:
            relation = self._join(relation, join, scope)
        return relation

    def _join(self, left: Relation, join: exp.Join, scope: Scope) -> Relation:
        kind = (join.args.get("kind") or "").upper()
        side = (join.args.get("side") or "").upper()
        if kind in ("ANY", "ASOF", "ALL", "ARRAY", "POSITIONAL") or join.args.get("strictness"):
            raise Unsupported(f"{kind or join.args.get('strictness')} JOIN")
        right = self._source(join.this, scope)
        if len(left.rows) * len(right.rows) > MAX_SYMBOLIC_ROWS:
            raise EncodingTooLarge(f"{len(left.rows)} x {len(right.rows)} joined rows")
        cols = left.cols + right.cols
        condition_node = join.args.get("on")
        using = join.args.get("using")
        if using:
            condition_node = exp.and_(
                *[
                    exp.EQ(
                        this=exp.column(u.name, table=self._qualifier_of(left, u.name)),
                        expression=exp.column(u.name, table=self._qualifier_of(right, u.name)),
                    )
                    for u in using
                ]
            )
        matches: list[list[z3.BoolRef]] = []
        rows: list[Row] = []
        for lrow in left.rows:
            self.check_deadline()
            line: list[z3.BoolRef] = []
            for rrow in right.rows:
                values = lrow.values + rrow.values
                if condition_node is None:
                    passes: z3.BoolRef = TRUE
                else:
                    frame_scope = Scope((*scope.frames, Frame(cols, values)))
                    passes = V.is_true(self.boolean(condition_node, frame_scope))
                both = z3.And(lrow.present, rrow.present, passes)
                line.append(both)
                rows.append(Row(both, values))
            matches.append(line)
        if kind in ("SEMI", "ANTI"):
            if side == "RIGHT":
                raise Unsupported(f"RIGHT {kind} JOIN")
            # Left rows with (SEMI) or without (ANTI) a match; the right side adds no columns.
            kept = [
                z3.Or(*line) if kind == "SEMI" else z3.And(lrow.present, z3.Not(z3.Or(*line)))
                for lrow, line in zip(left.rows, matches, strict=True)
            ]
            return Relation(left.cols, [Row(k, lrow.values) for k, lrow in zip(kept, left.rows, strict=True)])
        if side in ("LEFT", "FULL"):
            for i, lrow in enumerate(left.rows):
                unmatched = z3.And(lrow.present, z3.Not(z3.Or(*matches[i])))
                rows.append(Row(unmatched, lrow.values + [self._filler(c) for c in right.cols]))
        if side in ("RIGHT", "FULL"):
            for j, rrow in enumerate(right.rows):
                unmatched = z3.And(rrow.present, z3.Not(z3.Or(*[line[j] for line in matches])))
                rows.append(Row(unmatched, [self._filler(c) for c in left.cols] + rrow.values))
        return Relation(cols, rows)

    @staticmethod
    def _qualifier_of(relation: Relation, name: str) -> str | None:
        for col in reversed(relation.cols):
            if col.name.lower() == name.lower():
                return col.qualifier or None
        return None

    def _filler(self, col: Col) -> Val:
        if self.dialect.outer_join_fills_defaults and not col.nullable_type:
            return Val(col.kind, V.default_term(col.kind), FALSE)
        return V.null_val(col.kind)

    # --- SELECT -----------------------------------------------------------------------------------

    def _select(self, select: exp.Select, scope: Scope) -> Relation:
        for unsupported in ("windows", "qualify", "prewhere", "sample", "settings", "format"):
            if select.args.get(unsupported):
                raise Unsupported(unsupported.upper())
        if select.find(exp.Window):
            raise Unsupported("window function")
        limit = select.args.get("limit")
        if select.args.get("distinct") is not None and select.args["distinct"].args.get("on"):
            raise Unsupported("DISTINCT ON")
        source = self._from(select, scope)
        aliases = {
            e.alias.lower(): e.this for e in select.expressions if isinstance(e, exp.Alias) and e.alias
        }
        where = select.args.get("where")
        rows = source.rows
        if where is not None:
            rows = [
                Row(
                    z3.And(
                        row.present,
                        V.is_true(self.boolean(where.this, self._row_scope(scope, source, row, aliases))),
                    ),
                    row.values,
                )
                for row in rows
            ]
        filtered = Relation(source.cols, rows)
        group = select.args.get("group")
        having = select.args.get("having")
        order = select.args.get("order")
        aggregated = (
            group is not None
            or having is not None
            or any(_has_aggregate(e) for e in select.expressions)
            or (order is not None and _has_aggregate(order))
        )
        if aggregated:
            output, order_keys = self._grouped(select, filtered, scope, aliases)
        else:
            output, order_keys = self._projected(select, filtered, scope, aliases)
        if select.args.get("distinct") is not None:
            output, order_keys = self._distinct(output, order_keys)
        if limit is not None and limit.args.get("expressions"):
            return self._limit_by(output, order_keys, limit, order)
        return self._order_and_limit(output, order_keys, select, order)

    def _limit_by(
        self, relation: Relation, keys: list[list[Val]], limit: exp.Limit, order: exp.Order | None
    ) -> Relation:
        """ClickHouse `LIMIT n BY k`: the first n rows (in ORDER BY order) of each k."""
        if order is None:
            raise Unsupported("LIMIT BY without ORDER BY (nondeterministic)")
        if limit.args.get("offset") is not None:
            raise Unsupported("LIMIT m, n BY")
        count = self._constant_int(limit)
        assert count is not None
        width = len(order.expressions)
        order_keys = [row_keys[:width] for row_keys in keys]
        by_keys = [row_keys[width:] for row_keys in keys]
        directions = [(bool(o.args.get("desc")), self._nulls_first(o)) for o in self._order_items(order)]
        ranks = self._ranks(relation, order_keys, directions, groups=by_keys)
        rows = [
            Row(z3.And(row.present, rank < count), row.values)
            for row, rank in zip(relation.rows, ranks, strict=True)
        ]
        kept = Relation(relation.cols, rows)
        ordered = exp.Select()
        ordered.set("order", order)
        return self._order_and_limit(kept, order_keys, ordered, order)

    def _row_scope(self, scope: Scope, source: Relation, row: Row, aliases: dict[str, exp.Expr]) -> Scope:
        return Scope((*scope.frames, Frame(source.cols, row.values)), None, aliases)

    def _output_cols(self, select: exp.Select, source: Relation, sample: list[Val]) -> list[Col]:
        names: list[str] = []
        for item in select.expressions:
            if isinstance(item, exp.Star):
                names += [c.name for c in source.cols]
            elif isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
                names += [c.name for c in source.cols if c.qualifier == item.table.lower()]
            else:
                names.append(item.alias_or_name or item.sql())
        return [Col("", name, value.kind, True) for name, value in zip(names, sample, strict=True)]

    def _project_row(self, select: exp.Select, source: Relation, row_scope: Scope) -> list[Val]:
        values: list[Val] = []
        frame = row_scope.frames[-1]
        for item in select.expressions:
            if isinstance(item, exp.Star):
                values += frame.values
            elif isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
                qualifier = item.table.lower()
                picked = [
                    v for c, v in zip(frame.cols, frame.values, strict=True) if c.qualifier == qualifier
                ]
                if not picked:
                    raise Unsupported(f"unknown table {item.table} in {item.sql()}")
                values += picked
            else:
                values.append(self.expr(item, row_scope))
        return values

    def _order_items(self, order: exp.Order | None) -> list[exp.Ordered]:
        return list(order.expressions) if order is not None else []

    def _order_values(
        self, order: exp.Order | None, row_scope: Scope, outputs: list[Val], select: exp.Select
    ) -> list[Val]:
        keys: list[Val] = []
        limit = select.args.get("limit")
        limit_by = list(limit.args.get("expressions") or []) if limit is not None else []
        # LIMIT n BY keys are evaluated like ORDER BY terms and appended after them.
        for ordered in [*self._order_items(order), *[exp.Ordered(this=e) for e in limit_by]]:
            term = ordered.this
            if isinstance(term, exp.Literal) and not term.is_string:
                keys.append(outputs[int(term.this) - 1])
                continue
            alias_scope = Scope(row_scope.frames, row_scope.group, row_scope.aliases, prefer_aliases=True)
            keys.append(self.expr(term, alias_scope))
        return keys

    def _projected(
        self, select: exp.Select, source: Relation, scope: Scope, aliases: dict[str, exp.Expr]
    ) -> tuple[Relation, list[list[Val]]]:
        rows: list[Row] = []
        order_keys: list[list[Val]] = []
        for row in source.rows:
            row_scope = self._row_scope(scope, source, row, aliases)
            outputs = self._project_row(select, source, row_scope)
            rows.append(Row(row.present, outputs))
            order_keys.append(self._order_values(select.args.get("order"), row_scope, outputs, select))
        cols = self._output_cols(select, source, rows[0].values) if rows else []
        return Relation(cols, rows), order_keys

    def _grouped(
        self, select: exp.Select, source: Relation, scope: Scope, aliases: dict[str, exp.Expr]
    ) -> tuple[Relation, list[list[Val]]]:
        group = select.args.get("group")
        having = select.args.get("having")
        if group is not None and any(
            group.args.get(k) for k in ("rollup", "cube", "grouping_sets", "totals")
        ):
            raise Unsupported("GROUP BY ROLLUP/CUBE/GROUPING SETS/WITH TOTALS")
        key_nodes = list(group.expressions) if group is not None else []
        frames = [Frame(source.cols, row.values) for row in source.rows]
        keys: list[list[Val]] = []
        for frame in frames:
            row_scope = Scope((*scope.frames, frame), None, aliases)
            keys.append([self._group_key(node, row_scope, select) for node in key_nodes])
        rows: list[Row] = []
        order_keys: list[list[Val]] = []
        # Without GROUP BY there is exactly one group (even over no rows); with it, any row may lead one.
        leaders = list(range(len(source.rows))) if key_nodes else [0]
        for i in leaders:
            self.check_deadline()
            if key_nodes:
                same = [
                    z3.And(*[V.same_value(a, b) for a, b in zip(keys[i], keys[j], strict=True)])
                    for j in range(len(source.rows))
                ]
                members = [
                    (z3.And(source.rows[j].present, same[j]), frames[j]) for j in range(len(source.rows))
                ]
                earlier = [z3.And(source.rows[j].present, same[j]) for j in range(i)]
                present = z3.And(source.rows[i].present, z3.Not(z3.Or(*earlier)) if earlier else TRUE)
            else:
                members = [(row.present, frame) for row, frame in zip(source.rows, frames, strict=True)]
                present = TRUE
            group_scope = Scope((*scope.frames, frames[i]), Group(members), aliases)
            if having is not None:
                present = z3.And(present, V.is_true(self.boolean(having.this, group_scope)))
            outputs = self._project_row(select, source, group_scope)
            rows.append(Row(present, outputs))
            order_keys.append(self._order_values(select.args.get("order"), group_scope, outputs, select))
        if not rows:
            raise Unsupported("aggregate over an empty FROM")
        cols = self._output_cols(select, source, rows[0].values)
        return Relation(cols, rows), order_keys

    def _group_key(self, node: exp.Expr, row_scope: Scope, select: exp.Select) -> Val:
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            position = int(node.this)
            if 1 <= position <= len(select.expressions):
                return self.expr(select.expressions[position - 1], row_scope)
        return self.expr(node, row_scope)

    def _distinct(self, relation: Relation, order_keys: list[list[Val]]) -> tuple[Relation, list[list[Val]]]:
        rows: list[Row] = []
        for i, row in enumerate(relation.rows):
            earlier = [z3.And(other.present, self.rows_equal(row, other)) for other in relation.rows[:i]]
            rows.append(Row(z3.And(row.present, z3.Not(z3.Or(*earlier)) if earlier else TRUE), row.values))
        return Relation(relation.cols, rows), order_keys

    @staticmethod
    def rows_equal(a: Row, b: Row) -> z3.BoolRef:
        if len(a.values) != len(b.values):
            return FALSE
        return z3.And(*[V.same_value(x, y) for x, y in zip(a.values, b.values, strict=True)])

    # --- ORDER BY / LIMIT -------------------------------------------------------------------------

    def _order_and_limit(
        self, relation: Relation, order_keys: list[list[Val]], node: exp.Expr, order: exp.Order | None
    ) -> Relation:
        limit_node = node.args.get("limit")
        offset_node = node.args.get("offset")
        if order is None and limit_node is None and offset_node is None:
            return relation
        if order is None:
            raise Unsupported("LIMIT without ORDER BY (nondeterministic)")
        directions = [(bool(o.args.get("desc")), self._nulls_first(o)) for o in self._order_items(order)]
        ranks = self._ranks(relation, order_keys, directions)
        limit = self._constant_int(limit_node)
        offset = self._constant_int(offset_node) or 0
        rows = []
        for row, rank in zip(relation.rows, ranks, strict=True):
            inside = rank >= offset
            if limit is not None:
                inside = z3.And(inside, rank < offset + limit)
            rows.append(Row(z3.And(row.present, inside), row.values))
        return Relation(relation.cols, rows, [rank - offset for rank in ranks])

    def _ranks(
        self,
        relation: Relation,
        order_keys: list[list[Val]],
        directions: list[tuple[bool, bool]],
        groups: list[list[Val]] | None = None,
    ) -> list[z3.ArithRef]:
        """Each row's 0-based position in ORDER BY order among present rows (of its group, when
        `groups` gives each row's group key); ties are broken by row index."""
        ranks = []
        for i in range(len(relation.rows)):
            self.check_deadline()
            ahead = [
                z3.If(
                    z3.And(
                        other.present,
                        *(
                            [V.same_value(a, b) for a, b in zip(groups[i], groups[j], strict=True)]
                            if groups is not None
                            else []
                        ),
                        self._sorts_before(order_keys[j], order_keys[i], directions, tie_breaker=j < i),
                    ),
                    1,
                    0,
                )
                for j, other in enumerate(relation.rows)
                if j != i
            ]
            ranks.append(z3.Sum(*ahead) if ahead else z3.IntVal(0))
        return ranks

    def _nulls_first(self, ordered: exp.Ordered) -> bool:
        explicit = ordered.args.get("nulls_first")
        if explicit is not None:
            return bool(explicit)
        ascending_first = self.dialect.nulls_first_ascending
        return ascending_first if not ordered.args.get("desc") else not ascending_first

    def _sorts_before(
        self, a: list[Val], b: list[Val], directions: list[tuple[bool, bool]], *, tie_breaker: bool
    ) -> z3.BoolRef:
        """Lexicographic `a` before `b`; equal keys keep table order (the engine may break ties otherwise)."""
        result: z3.BoolRef = z3.BoolVal(tie_breaker)
        for key_a, key_b, (desc, nulls_first) in reversed(list(zip(a, b, directions, strict=True))):
            if key_a.kind == "bool" or key_b.kind == "bool":
                raise Unsupported("ORDER BY a boolean expression")
            strictly = V.less_than(key_b, key_a) if desc else V.less_than(key_a, key_b)
            both = z3.And(z3.Not(key_a.null), z3.Not(key_b.null))
            null_first = z3.And(key_a.null, z3.Not(key_b.null))
            null_last = z3.And(key_b.null, z3.Not(key_a.null))
            before = z3.Or(z3.And(both, strictly), null_first if nulls_first else null_last)
            equal = V.same_value(key_a, key_b)
            result = z3.Or(before, z3.And(equal, result))
        return result

    def _constant_int(self, node: exp.Expr | None) -> int | None:
        if node is None:
            return None
        if isinstance(node, exp.Fetch):
            options = node.args.get("limit_options")
            if options is not None and (options.args.get("percent") or options.args.get("with_ties")):
                raise Unsupported("FETCH ... PERCENT / WITH TIES")
            value = node.args.get("count")
        else:
            value = node.args.get("expression") or node.this
        if isinstance(value, exp.Literal) and not value.is_string:
            return int(value.this)
        raise Unsupported("non-constant LIMIT/OFFSET")

    def _with_order_limit(self, relation: Relation, node: exp.Expr, scope: Scope) -> Relation:
        if node.args.get("order") is None and node.args.get("limit") is None:
            return relation
        order = node.args.get("order")
        keys = [self._positional_keys(relation, row, order) for row in relation.rows]
        return self._order_and_limit(relation, keys, node, order)

    def _positional_keys(self, relation: Relation, row: Row, order: exp.Order | None) -> list[Val]:
        scope = Scope((Frame(relation.cols, row.values),))
        keys = []
        for ordered in self._order_items(order):
            term = ordered.this
            if isinstance(term, exp.Literal) and not term.is_string:
                keys.append(row.values[int(term.this) - 1])
            else:
                keys.append(self.expr(term, scope))
        return keys

    # --- set operations ---------------------------------------------------------------------------

    def _set_operation(self, node: exp.Expr, scope: Scope) -> Relation:
        left = self.query(node.this, scope)
        right = self.query(node.expression, scope)
        if len(left.cols) != len(right.cols):
            raise Unsupported("set operation with different column counts")
        distinct = node.args.get("distinct")
        if isinstance(node, exp.Union):
            if distinct is None and not self.dialect.bare_union_is_distinct:
                raise Unsupported("UNION without ALL/DISTINCT (ClickHouse refuses it)")
            combined = Relation(left.cols, left.rows + right.rows)
            if distinct is not False:
                combined, _ = self._distinct(combined, [])
        else:
            if distinct is False:
                raise Unsupported(f"{node.key.upper()} ALL")
            left_distinct, _ = self._distinct(Relation(left.cols, left.rows), [])
            rows = []
            for row in left_distinct.rows:
                found = z3.Or(*[z3.And(other.present, self.rows_equal(row, other)) for other in right.rows])
                keep = found if isinstance(node, exp.Intersect) else z3.Not(found)
                rows.append(Row(z3.And(row.present, keep), row.values))
            combined = Relation(left.cols, rows)
        return self._with_order_limit(combined, node, scope)

    # --- expressions ------------------------------------------------------------------------------

    def boolean(self, node: exp.Expr, scope: Scope) -> Val:
        return self.truth(self.expr(node, scope))

    def truth(self, value: Val) -> Val:
        """A value in a boolean context (WHERE, ON, AND/OR operands)."""
        if value.kind == "bool":
            return value
        if value.kind == "null":
            return V.bool_val(FALSE, TRUE)
        if value.kind in ("int", "real"):
            return V.bool_val(value.v != 0, value.null)
        if value.kind == "string":
            if not self.dialect.strings_as_booleans:
                raise Unsupported("string in a boolean context (ClickHouse rejects it)")
            if isinstance(value.literal, str):
                return V.bool_val(z3.BoolVal(V.numeric_prefix(value.literal) != 0), value.null)
            raise Unsupported("string column in a boolean context")
        raise Unsupported(f"{value.kind} in a boolean context")

    def expr(self, node: exp.Expr, scope: Scope) -> Val:
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            return handler(self, node, scope)
        for klass, fallback in _HANDLERS.items():
            if isinstance(node, klass):
                return fallback(self, node, scope)
        if isinstance(node, exp.Window):
            raise Unsupported("window function")
        if isinstance(node, exp.AggFunc):
            raise Unsupported(f"aggregate {node.sql()[:40]}")
        raise Unsupported(f"{node.key} ({node.sql()[:60]})")

    def resolve(self, node: exp.Column, scope: Scope) -> Val:
        name = node.name.lower()
        qualifier = node.table.lower() if node.table else ""
        if scope.prefer_aliases and not qualifier and name in scope.aliases:
            return self._alias(name, scope)
        for frame in reversed(scope.frames):
            for col, value in zip(frame.cols, frame.values, strict=True):
                if col.name.lower() == name and (not qualifier or col.qualifier == qualifier):
                    return value
        if not qualifier and name in scope.aliases:
            return self._alias(name, scope)
        raise UnresolvedColumn(node.sql())

    def _alias(self, name: str, scope: Scope) -> Val:
        target = scope.aliases[name]
        inner = Scope(scope.frames, scope.group, {k: v for k, v in scope.aliases.items() if k != name})
        return self.expr(target, inner)

    def subquery(self, node: exp.Expr, scope: Scope) -> Relation:
        """Uncorrelated subqueries are encoded once; correlated ones per outer row (bounded unrolling)."""
        key = id(node)
        if key in self._uncorrelated:
            return self._uncorrelated[key]
        try:
            relation = self.query(node, Scope())
        except UnresolvedColumn:
            return self.query(node, Scope(scope.frames))
        self._uncorrelated[key] = relation
        return relation

    def fresh_name(self, stem: str) -> str:
        self._fresh += 1
        return f"{stem}_{self._fresh}"


# --- expression handlers ---------------------------------------------------------------------------


def _literal(enc: Encoder, node: exp.Literal, scope: Scope) -> Val:
    if node.is_string:
        return V.string_const(node.this)
    text = node.this
    if re.fullmatch(r"[+-]?\d+", text):
        return V.int_const(int(text))
    return V.real_const(Fraction(text))


def _column(enc: Encoder, node: exp.Column, scope: Scope) -> Val:
    if isinstance(node.this, exp.Star):
        raise Unsupported("qualified * outside the select list")
    return enc.resolve(node, scope)


def _arith(enc: Encoder, node: exp.Binary, scope: Scope) -> Val:
    left_node, right_node = node.this, node.expression
    if isinstance(right_node, exp.Interval) or isinstance(left_node, exp.Interval):
        return _date_interval(enc, node, scope)
    a, b = enc.expr(left_node, scope), enc.expr(right_node, scope)
    a, b = _coerce_pair(a, b)
    if a.kind == "string" or b.kind == "string":
        raise Unsupported(f"arithmetic on strings ({node.sql()[:40]})")
    x, y, kind = V.unify_numeric(a, b)
    null = z3.Or(a.null, b.null)
    if isinstance(node, exp.Add):
        return Val(kind if kind != "date" else _date_sum_kind(a, b), x + y, null)
    if isinstance(node, exp.Sub):
        result_kind = "int" if a.kind == "date" and b.kind == "date" else (kind if kind != "date" else "date")
        return Val(result_kind, x - y, null)
    if isinstance(node, exp.Mul):
        return Val(kind if kind != "date" else "int", x * y, null)
    if isinstance(node, exp.Div):
        if kind == "int" and enc.dialect.int_division_truncates:
            truncated = z3.If(x * y >= 0, z3.Abs(x) / z3.Abs(y), -(z3.Abs(x) / z3.Abs(y)))
            return Val("int", truncated, z3.Or(null, y == 0))
        rx = x if kind == "real" else z3.ToReal(x)
        ry = y if kind == "real" else z3.ToReal(y)
        return Val("real", rx / ry, z3.Or(null, ry == 0))
    if isinstance(node, exp.Mod):
        if kind != "int":
            raise Unsupported("modulo of non-integers")
        remainder = z3.If(x >= 0, z3.Abs(x) % z3.Abs(y), -(z3.Abs(x) % z3.Abs(y)))
        return Val("int", remainder, z3.Or(null, y == 0))
    raise Unsupported(node.key)


def _date_sum_kind(a: Val, b: Val) -> str:
    return "date" if "date" in (a.kind, b.kind) else "int"


def _interval_days(enc: Encoder, interval: exp.Interval) -> tuple[int, str]:
    amount = interval.this
    unit = (interval.text("unit") or "DAY").upper().rstrip("S")
    if isinstance(amount, exp.Literal):
        text = amount.this.strip()
        parts = text.split()
        if len(parts) == 2:
            text, unit = parts[0], parts[1].upper().rstrip("S")
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text), unit
    raise Unsupported(f"interval {interval.sql()}")


def _shift_date(enc: Encoder, base: Val, amount: int, unit: str) -> Val:
    if base.kind != "date":
        coerced = V.coerce_literal(base, "date")
        if coerced is None:
            raise Unsupported(f"interval arithmetic on {base.kind}")
        base = coerced
    if unit == "DAY":
        return Val("date", base.v + amount, base.null)
    if unit == "WEEK":
        return Val("date", base.v + 7 * amount, base.null)
    if unit in ("MONTH", "QUARTER", "YEAR"):
        months = amount * {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
        return Val("date", enc.calendar.add_months(base.v, months), base.null)
    raise Unsupported(f"interval unit {unit}")


def _date_interval(enc: Encoder, node: exp.Binary, scope: Scope) -> Val:
    if isinstance(node.this, exp.Interval):
        interval, base_node = node.this, node.expression
    else:
        interval, base_node = node.expression, node.this
    amount, unit = _interval_days(enc, interval)
    sign = -1 if isinstance(node, exp.Sub) else 1
    return _shift_date(enc, enc.expr(base_node, scope), sign * amount, unit)


def _neg(enc: Encoder, node: exp.Neg, scope: Scope) -> Val:
    value = enc.expr(node.this, scope)
    if value.kind not in ("int", "real"):
        raise Unsupported(f"negation of {value.kind}")
    literal = -value.literal if isinstance(value.literal, int | Fraction) else None
    return Val(value.kind, -value.v, value.null, literal)


def _coerce_pair(a: Val, b: Val) -> tuple[Val, Val]:
    if a.kind == "null":
        a = V.with_kind(a, b.kind if b.kind != "null" else "int")
    if b.kind == "null":
        b = V.with_kind(b, a.kind)
    if a.kind != b.kind:
        coerced = V.coerce_literal(b, a.kind)
        if coerced is not None:
            return a, coerced
        coerced = V.coerce_literal(a, b.kind)
        if coerced is not None:
            return coerced, b
    return a, b


def _compare(enc: Encoder, node: exp.Binary, scope: Scope) -> Val:
    a, b = enc.expr(node.this, scope), enc.expr(node.expression, scope)
    return compare_values(enc, type(node), a, b)


def compare_values(enc: Encoder, op: type, a: Val, b: Val) -> Val:
    a, b = _coerce_pair(a, b)
    null = z3.Or(a.null, b.null)
    if a.kind == "bool" or b.kind == "bool":
        a, b = _bool_as_int(a), _bool_as_int(b)
    mixed = {a.kind, b.kind}
    if mixed in ({"string", "int"}, {"string", "real"}):
        # SQLite orders every number before every string; ClickHouse refuses the comparison.
        if not enc.dialect.strings_as_booleans:
            raise Unsupported("comparison of a string with a number")
        number_first = a.kind != "string"
        truth: z3.BoolRef = {
            exp.EQ: FALSE,
            exp.NEQ: TRUE,
            exp.LT: z3.BoolVal(number_first),
            exp.LTE: z3.BoolVal(number_first),
            exp.GT: z3.BoolVal(not number_first),
            exp.GTE: z3.BoolVal(not number_first),
        }[op]  # type: ignore[index]
        return V.bool_val(truth, null)
    if mixed == {"string", "date"}:
        raise Unsupported("comparison of a date with a non-literal string")
    if op is exp.EQ:
        truth = V.terms_equal(a, b) if a.kind == b.kind else _numeric_eq(a, b)
    elif op is exp.NEQ:
        truth = z3.Not(V.terms_equal(a, b) if a.kind == b.kind else _numeric_eq(a, b))
    elif op is exp.LT:
        truth = V.less_than(a, b)
    elif op is exp.GT:
        truth = V.less_than(b, a)
    elif op is exp.LTE:
        truth = z3.Not(V.less_than(b, a))
    elif op is exp.GTE:
        truth = z3.Not(V.less_than(a, b))
    else:
        raise Unsupported(op.__name__)
    return V.bool_val(truth, null)


def _numeric_eq(a: Val, b: Val) -> z3.BoolRef:
    x, y, _ = V.unify_numeric(a, b)
    return x == y


def _bool_as_int(value: Val) -> Val:
    if value.kind != "bool":
        return value
    return Val("int", z3.If(value.v, 1, 0), value.null)


def _and(enc: Encoder, node: exp.And, scope: Scope) -> Val:
    return V.and3(enc.boolean(node.this, scope), enc.boolean(node.expression, scope))


def _or(enc: Encoder, node: exp.Or, scope: Scope) -> Val:
    return V.or3(enc.boolean(node.this, scope), enc.boolean(node.expression, scope))


def _not(enc: Encoder, node: exp.Not, scope: Scope) -> Val:
    return V.not3(enc.boolean(node.this, scope))


def _paren(enc: Encoder, node: exp.Paren, scope: Scope) -> Val:
    return enc.expr(node.this, scope)


def _alias_node(enc: Encoder, node: exp.Alias, scope: Scope) -> Val:
    return enc.expr(node.this, scope)


def _null(enc: Encoder, node: exp.Null, scope: Scope) -> Val:
    return V.null_val()


def _boolean(enc: Encoder, node: exp.Boolean, scope: Scope) -> Val:
    return V.bool_val(z3.BoolVal(bool(node.this)))


def _is(enc: Encoder, node: exp.Is, scope: Scope) -> Val:
    if isinstance(node.expression, exp.Boolean):
        value = enc.boolean(node.this, scope)
        wanted = value.v if node.expression.this else z3.Not(value.v)
        return V.bool_val(z3.And(z3.Not(value.null), wanted))
    if not isinstance(node.expression, exp.Null):
        raise Unsupported(f"IS {node.expression.sql()}")
    return V.bool_val(enc.expr(node.this, scope).null)


def _null_safe_eq(enc: Encoder, node: exp.Binary, scope: Scope) -> Val:
    a, b = _coerce_pair(enc.expr(node.this, scope), enc.expr(node.expression, scope))
    a, b = _bool_as_int(a), _bool_as_int(b)
    same = V.same_value(a, b)
    return V.bool_val(same if isinstance(node, exp.NullSafeEQ) else z3.Not(same))


def _between(enc: Encoder, node: exp.Between, scope: Scope) -> Val:
    value = enc.expr(node.this, scope)
    low = compare_values(enc, exp.GTE, value, enc.expr(node.args["low"], scope))
    high = compare_values(enc, exp.LTE, value, enc.expr(node.args["high"], scope))
    return V.and3(low, high)


def _in(enc: Encoder, node: exp.In, scope: Scope) -> Val:
    if isinstance(node.this, exp.Tuple):
        return _tuple_in(enc, node, scope)
    needle = enc.expr(node.this, scope)
    candidates: list[tuple[z3.BoolRef, Val]] = []
    query = node.args.get("query")
    if query is not None:
        relation = enc.subquery(query.this if isinstance(query, exp.Subquery) else query, scope)
        if len(relation.cols) != 1:
            raise Unsupported("IN with a multi-column subquery")
        candidates = [(row.present, row.values[0]) for row in relation.rows]
    else:
        if node.args.get("unnest") or node.args.get("field"):
            raise Unsupported("IN UNNEST")
        candidates = [(TRUE, enc.expr(item, scope)) for item in node.expressions]
    matches, unknowns = [], []
    for present, candidate in candidates:
        result = compare_values(enc, exp.EQ, needle, candidate)
        matches.append(z3.And(present, V.is_true(result)))
        if enc.dialect.in_ignores_null_elements:
            unknowns.append(z3.And(present, needle.null))
        else:
            unknowns.append(z3.And(present, result.null))
    found = z3.Or(*matches) if matches else FALSE
    unknown = z3.And(z3.Not(found), z3.Or(*unknowns)) if unknowns else FALSE
    return V.bool_val(found, unknown)


def _tuple_in(enc: Encoder, node: exp.In, scope: Scope) -> Val:
    """(a, b) IN (SELECT x, y ...): TRUE on a row equal in every position, NULL when only NULLs block it."""
    needles = [enc.expr(item, scope) for item in node.this.expressions]
    query = node.args.get("query")
    if query is None:
        raise Unsupported("tuple IN a list")
    relation = enc.subquery(query.this if isinstance(query, exp.Subquery) else query, scope)
    if len(relation.cols) != len(needles):
        raise Unsupported("tuple IN with a different column count")
    found_terms, unknown_terms = [], []
    for row in relation.rows:
        parts = [compare_values(enc, exp.EQ, n, v) for n, v in zip(needles, row.values, strict=True)]
        equal = parts[0]
        for part in parts[1:]:
            equal = V.and3(equal, part)
        found_terms.append(z3.And(row.present, V.is_true(equal)))
        unknown_terms.append(z3.And(row.present, equal.null))
    found = z3.Or(*found_terms)
    return V.bool_val(found, z3.And(z3.Not(found), z3.Or(*unknown_terms)))


def _exists(enc: Encoder, node: exp.Exists, scope: Scope) -> Val:
    inner = node.this
    limit = inner.args.get("limit")
    count = limit.expression if limit is not None else None
    if isinstance(count, exp.Literal) and inner.args.get("order") is None and int(count.this) >= 1:
        # Which rows a LIMIT keeps does not matter to EXISTS, only whether any row is left.
        inner = inner.copy()
        inner.set("limit", None)
    relation = enc.subquery(inner, scope)
    return V.bool_val(z3.Or(*[row.present for row in relation.rows]))


def _scalar_subquery(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    inner = node.this if isinstance(node, exp.Subquery) else node
    if isinstance(node, exp.Subquery) and (node.args.get("order") or node.args.get("limit")):
        inner = node
    relation = enc.subquery(inner, scope)
    if len(relation.cols) != 1:
        raise Unsupported("scalar subquery with several columns")
    kind = relation.cols[0].kind
    result = V.null_val(kind)
    # The first present row gives the value (SQLite); ClickHouse errors on several rows.
    for row in reversed(relation.rows):
        value = V.with_kind(row.values[0], kind)
        result = Val(kind, z3.If(row.present, value.v, result.v), z3.If(row.present, value.null, result.null))
    return result


def _case(enc: Encoder, node: exp.Case, scope: Scope) -> Val:
    operand = node.this
    branches = []
    for branch in node.args.get("ifs") or []:
        if operand is not None:
            condition = compare_values(enc, exp.EQ, enc.expr(operand, scope), enc.expr(branch.this, scope))
        else:
            condition = enc.boolean(branch.this, scope)
        branches.append((V.is_true(condition), enc.expr(branch.args["true"], scope)))
    default_node = node.args.get("default")
    default = enc.expr(default_node, scope) if default_node is not None else V.null_val()
    return _choose(branches, default)


def _choose(branches: list[tuple[z3.BoolRef, Val]], default: Val) -> Val:
    kinds = {v.kind for _, v in branches} | {default.kind}
    kinds.discard("null")
    if len(kinds) > 1:
        if kinds <= {"int", "real"}:
            kind = "real"
        else:
            raise Unsupported(f"CASE mixing {sorted(kinds)}")
    else:
        kind = kinds.pop() if kinds else "int"

    def term(value: Val) -> z3.ExprRef:
        value = V.with_kind(value, kind)
        return V.as_real(value) if kind == "real" and value.kind == "int" else value.v

    result_v, result_null = term(default), V.with_kind(default, kind).null
    for condition, value in reversed(branches):
        result_v = z3.If(condition, term(value), result_v)
        result_null = z3.If(condition, value.null, result_null)
    return Val(kind, result_v, result_null)


def _if(enc: Encoder, node: exp.If, scope: Scope) -> Val:
    condition = V.is_true(enc.boolean(node.this, scope))
    false_node = node.args.get("false")
    default = enc.expr(false_node, scope) if false_node is not None else V.null_val()
    return _choose([(condition, enc.expr(node.args["true"], scope))], default)


def _coalesce(enc: Encoder, node: exp.Coalesce, scope: Scope) -> Val:
    values = [enc.expr(node.this, scope)] + [enc.expr(e, scope) for e in node.expressions]
    branches = [(z3.Not(v.null), v) for v in values[:-1]]
    return _choose(branches, values[-1])


def _nullif(enc: Encoder, node: exp.Nullif, scope: Scope) -> Val:
    value = enc.expr(node.this, scope)
    equal = V.is_true(compare_values(enc, exp.EQ, value, enc.expr(node.expression, scope)))
    return Val(value.kind, value.v, z3.Or(value.null, equal))


def _like(enc: Encoder, node: exp.Like | exp.ILike, scope: Scope) -> Val:
    value = enc.expr(node.this, scope)
    pattern = node.expression
    if not isinstance(pattern, exp.Literal) or not pattern.is_string or node.args.get("escape"):
        raise Unsupported("LIKE with a non-literal pattern")
    if value.kind != "string":
        raise Unsupported(f"LIKE on {value.kind}")
    insensitive = isinstance(node, exp.ILike) or enc.dialect.like_ascii_case_insensitive
    regex = _like_regex(
        pattern.this, insensitive, any_char=enc.any_char, backslash_escapes=enc.dialect.name == "clickhouse"
    )
    truth = z3.InRe(value.v, regex)
    result = V.bool_val(truth, value.null)
    return V.not3(result) if node.args.get("negate") else result


def _like_regex(pattern: str, insensitive: bool, *, any_char: z3.ReRef, backslash_escapes: bool) -> z3.ReRef:
    parts: list[z3.ReRef] = []
    escaped = False
    for char in pattern:
        if backslash_escapes and char == "\\" and not escaped:
            escaped = True
            continue
        if not escaped and char == "%":
            parts.append(z3.Star(any_char))
        elif not escaped and char == "_":
            parts.append(any_char)
        elif insensitive and char.isascii() and char.isalpha():
            parts.append(z3.Union(z3.Re(char.lower()), z3.Re(char.upper())))
        else:
            parts.append(z3.Re(char))
        escaped = False
    if not parts:
        return z3.Re("")
    return parts[0] if len(parts) == 1 else z3.Concat(*parts)


def _length(enc: Encoder, node: exp.Length, scope: Scope) -> Val:
    value = enc.expr(node.this, scope)
    if value.kind != "string":
        raise Unsupported(f"length of {value.kind}")
    return Val("int", z3.Length(value.v), value.null)


def _concat(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    parts = [
        enc.expr(e, scope) for e in (node.expressions if node.expressions else [node.this, node.expression])
    ]
    if any(p.kind != "string" for p in parts):
        raise Unsupported("concatenation of non-strings")
    return Val("string", z3.Concat(*[p.v for p in parts]), z3.Or(*[p.null for p in parts]))


def _abs(enc: Encoder, node: exp.Abs, scope: Scope) -> Val:
    value = enc.expr(node.this, scope)
    if value.kind not in ("int", "real"):
        raise Unsupported(f"abs of {value.kind}")
    return Val(value.kind, z3.If(value.v >= 0, value.v, -value.v), value.null)


def _cast(enc: Encoder, node: exp.Cast, scope: Scope) -> Val:
    value = enc.expr(node.this, scope)
    target = node.to.sql(dialect=enc.dialect.name).upper()
    from backend.domain.equivalence.schema import _kind_of

    kind = _kind_of(target.replace("NULLABLE(", ""))
    return cast_value(value, kind, sqlite_casts=enc.dialect.strings_as_booleans)


def cast_value(value: Val, kind: str, *, sqlite_casts: bool = False) -> Val:
    if value.kind == kind or value.kind == "null":
        return V.with_kind(value, kind)
    coerced = V.coerce_literal(value, kind)
    if coerced is not None:
        return coerced
    if kind == "real" and value.kind == "int":
        return Val("real", z3.ToReal(value.v), value.null)
    if kind == "int" and value.kind == "real":
        truncated = z3.If(value.v >= 0, z3.ToInt(value.v), -z3.ToInt(-value.v))
        return Val("int", truncated, value.null)
    if kind == "int" and value.kind == "bool":
        return _bool_as_int(value)
    if kind == "int" and value.kind == "string" and sqlite_casts:
        # SQLite reads the leading digits; exact for digit-only and for non-numeric strings (0).
        number = z3.StrToInt(value.v)
        return Val("int", z3.If(number >= 0, number, 0), value.null)
    raise Unsupported(f"cast of {value.kind} to {kind}")


def _calendar_part(enc: Encoder, node: exp.Expr, scope: Scope, part: int) -> Val:
    value = _as_date(enc.expr(node, scope))
    return Val("int", enc.calendar.parts(value.v)[part], value.null)


def _as_date(value: Val) -> Val:
    if value.kind == "date":
        return value
    coerced = V.coerce_literal(value, "date")
    if coerced is None:
        raise Unsupported(f"date function on {value.kind}")
    return coerced


def _start_of(enc: Encoder, node: exp.Expr, scope: Scope, unit: str) -> Val:
    value = _as_date(enc.expr(node, scope))
    if unit == "DAY":
        return value
    y, m, _ = enc.calendar.parts(value.v)
    if unit == "MONTH":
        return Val("date", enc.calendar.from_parts(y, m, z3.IntVal(1)), value.null)
    if unit == "YEAR":
        return Val("date", enc.calendar.from_parts(y, z3.IntVal(1), z3.IntVal(1)), value.null)
    if unit == "QUARTER":
        first = ((m - 1) / 3) * 3 + 1
        return Val("date", enc.calendar.from_parts(y, first, z3.IntVal(1)), value.null)
    raise Unsupported(f"truncation to {unit}")


def _trunc(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    unit = (node.text("unit") or "").upper()
    return _start_of(enc, node.this, scope, unit)


def _year(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    return _calendar_part(enc, node.this, scope, 0)


def _month(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    return _calendar_part(enc, node.this, scope, 1)


def _day(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    return _calendar_part(enc, node.this, scope, 2)


def _date_function(enc: Encoder, node: exp.Date, scope: Scope) -> Val:
    """DATE(x): a date literal, or (SQLite) NULL for text that is not exactly YYYY-MM-DD."""
    if node.expressions:
        raise Unsupported("DATE() with modifiers")
    argument = node.this
    if isinstance(argument, exp.Literal) and argument.is_string:
        text = argument.this
        parsed = V.parse_date_literal(text)
        if parsed is not None and len(text.strip()) == 10:
            return V.date_const(parsed)
        if enc.dialect.strings_as_booleans:
            return V.null_val("date")
        raise Unsupported(f"DATE({text!r})")
    return _as_date(enc.expr(argument, scope))


def _extract(enc: Encoder, node: exp.Extract, scope: Scope) -> Val:
    part = {"YEAR": 0, "MONTH": 1, "DAY": 2}.get(node.this.name.upper())
    if part is None:
        raise Unsupported(f"EXTRACT({node.this.name})")
    return _calendar_part(enc, node.expression, scope, part)


def _date_add(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    amount_node = node.expression
    if not isinstance(amount_node, exp.Literal) or amount_node.is_string:
        raise Unsupported(f"{node.key} with a non-constant amount")
    unit = (node.text("unit") or "DAY").upper().rstrip("S")
    sign = -1 if isinstance(node, exp.DateSub) else 1
    return _shift_date(enc, enc.expr(node.this, scope), sign * int(amount_node.this), unit)


def _anonymous(enc: Encoder, node: exp.Anonymous, scope: Scope) -> Val:
    name = node.name.lower()
    args = node.expressions
    parts = {"toyear": 0, "tomonth": 1, "todayofmonth": 2}
    if name in parts and len(args) == 1:
        return _calendar_part(enc, args[0], scope, parts[name])
    starts = {"tostartofmonth": "MONTH", "tostartofyear": "YEAR", "tostartofquarter": "QUARTER"}
    if name in starts and len(args) == 1:
        return _start_of(enc, args[0], scope, starts[name])
    if name in ("todate", "date", "to_date") and len(args) == 1:
        return _as_date(enc.expr(args[0], scope))
    shifts = {"adddays": "DAY", "subtractdays": "DAY", "addmonths": "MONTH", "subtractmonths": "MONTH"}
    if name in shifts and len(args) == 2 and isinstance(args[1], exp.Literal) and not args[1].is_string:
        sign = -1 if name.startswith("subtract") else 1
        return _shift_date(enc, enc.expr(args[0], scope), sign * int(args[1].this), shifts[name])
    if name == "intdiv" and len(args) == 2:
        a, b = enc.expr(args[0], scope), enc.expr(args[1], scope)
        if a.kind != "int" or b.kind != "int":
            raise Unsupported("intDiv of non-integers")
        x, y = a.v, b.v
        truncated = z3.If(x * y >= 0, z3.Abs(x) / z3.Abs(y), -(z3.Abs(x) / z3.Abs(y)))
        return Val("int", truncated, z3.Or(a.null, b.null, y == 0))
    casts = {
        "tofloat64": "real",
        "tofloat32": "real",
        "toint64": "int",
        "toint32": "int",
        "tostring": "string",
    }
    if name in casts and len(args) == 1:
        return cast_value(enc.expr(args[0], scope), casts[name])
    raise Unsupported(f"function {node.name}")


# --- aggregates ------------------------------------------------------------------------------------


def _aggregate(enc: Encoder, node: exp.AggFunc, scope: Scope) -> Val:
    if scope.group is None:
        raise Unsupported(f"aggregate {node.sql()[:40]} outside a grouped query")
    argument = node.this
    distinct = isinstance(argument, exp.Distinct)
    if distinct:
        if len(argument.expressions) != 1:
            raise Unsupported("aggregate over several DISTINCT expressions")
        argument = argument.expressions[0]
    if isinstance(node, exp.Count) and (argument is None or isinstance(argument, exp.Star)):
        return Val(
            "int", z3.Sum(*[z3.If(cond, 1, 0) for cond, _ in scope.group.members] or [z3.IntVal(0)]), FALSE
        )
    members = []
    for cond, frame in scope.group.members:
        member_scope = Scope((*scope.frames[:-1], frame), None, scope.aliases)
        value = enc.expr(argument, member_scope)
        members.append((z3.And(cond, z3.Not(value.null)), value))
    if distinct:
        members = [
            (z3.And(cond, *[z3.Not(z3.And(c2, V.terms_equal(v, v2))) for c2, v2 in members[:i]]), v)
            for i, (cond, v) in enumerate(members)
        ]
    return _fold_aggregate(enc, node, members)


def _filtered_group(enc: Encoder, condition: exp.Expr, scope: Scope) -> Scope:
    """The group restricted to the members where `condition` is TRUE (ClickHouse -If combinator)."""
    assert scope.group is not None
    members = []
    for cond, frame in scope.group.members:
        member_scope = Scope((*scope.frames[:-1], frame), None, scope.aliases)
        members.append((z3.And(cond, V.is_true(enc.boolean(condition, member_scope))), frame))
    return Scope(scope.frames, Group(members), scope.aliases)


def _count_if(enc: Encoder, node: exp.CountIf, scope: Scope) -> Val:
    if scope.group is None:
        raise Unsupported("countIf outside a grouped query")
    return _aggregate(enc, exp.Count(this=exp.Star()), _filtered_group(enc, node.this, scope))


_IF_COMBINED = {"sumif": exp.Sum, "avgif": exp.Avg, "minif": exp.Min, "maxif": exp.Max, "countif": exp.Count}


def _combined_aggregate(enc: Encoder, node: exp.CombinedAggFunc, scope: Scope) -> Val:
    base = _IF_COMBINED.get(node.name.lower())
    if base is None or scope.group is None or len(node.expressions) != 2:
        raise Unsupported(f"aggregate {node.name}")
    value, condition = node.expressions
    return _aggregate(enc, base(this=value.copy()), _filtered_group(enc, condition, scope))


def _arg_extreme(enc: Encoder, node: exp.ArgMax | exp.ArgMin, scope: Scope) -> Val:
    """argMax(a, b) / argMin(a, b): `a` of the first member with the largest / smallest `b`."""
    if scope.group is None:
        raise Unsupported(f"{node.key} outside a grouped query")
    best_a: Val | None = None
    best_b: Val | None = None
    seen: z3.BoolRef = FALSE
    for cond, frame in scope.group.members:
        member_scope = Scope((*scope.frames[:-1], frame), None, scope.aliases)
        a, b = enc.expr(node.this, member_scope), enc.expr(node.expression, member_scope)
        valid = z3.And(cond, z3.Not(b.null))
        if best_a is None or best_b is None:
            best_a, best_b, seen = a, b, valid
            continue
        better = V.less_than(best_b, b) if isinstance(node, exp.ArgMax) else V.less_than(b, best_b)
        take = z3.And(valid, z3.Or(z3.Not(seen), better))
        best_a = Val(a.kind, z3.If(take, a.v, best_a.v), z3.If(take, a.null, best_a.null))
        best_b = Val(b.kind, z3.If(take, b.v, best_b.v), FALSE)
        seen = z3.Or(seen, valid)
    if best_a is None:
        raise Unsupported(f"{node.key} over an empty FROM")
    default = Val(best_a.kind, V.default_term(best_a.kind), FALSE)
    return Val(best_a.kind, z3.If(seen, best_a.v, default.v), z3.If(seen, best_a.null, FALSE))


def _round(enc: Encoder, node: exp.Round, scope: Scope) -> Val:
    """round(x, n) as half-up rounding of the exact value (engines round binary floats; see README)."""
    value = enc.expr(node.this, scope)
    decimals_node = node.args.get("decimals")
    decimals = 0
    if decimals_node is not None:
        if not isinstance(decimals_node, exp.Literal) or decimals_node.is_string:
            raise Unsupported("round with non-constant decimals")
        decimals = int(decimals_node.this)
    if value.kind == "int" and decimals >= 0:
        return value
    if value.kind != "real" or decimals < 0:
        raise Unsupported(f"round of {value.kind}")
    scale = z3.RealVal(10**decimals)
    scaled = value.v * scale
    nearest = z3.If(scaled >= 0, z3.ToInt(scaled + z3.RealVal("1/2")), -z3.ToInt(-scaled + z3.RealVal("1/2")))
    return Val("real", z3.ToReal(nearest) / scale, value.null)


def _fold_aggregate(enc: Encoder, node: exp.AggFunc, members: list[tuple[z3.BoolRef, Val]]) -> Val:
    count = z3.Sum(*[z3.If(cond, 1, 0) for cond, _ in members]) if members else z3.IntVal(0)
    if isinstance(node, exp.Count):
        return Val("int", count, FALSE)
    kind = members[0][1].kind if members else "int"
    if kind == "bool":
        raise Unsupported("aggregate of a boolean")
    none = count == 0
    nullable_input = any(not z3.is_false(z3.simplify(v.null)) for _, v in members)
    default_on_empty = enc.dialect.empty_aggregates_default and not nullable_input
    if isinstance(node, exp.Sum | exp.Avg):
        if kind not in ("int", "real"):
            raise Unsupported(f"{node.key} of {kind}")
        total = z3.Sum(*[z3.If(cond, v.v, 0 if kind == "int" else z3.RealVal(0)) for cond, v in members])
        if isinstance(node, exp.Sum):
            return Val(kind, total, FALSE if default_on_empty else none)
        real_total = total if kind == "real" else z3.ToReal(total)
        return Val("real", z3.If(none, z3.RealVal(0), real_total / z3.ToReal(count)), none)
    if isinstance(node, exp.Min | exp.Max):
        better = V.less_than if isinstance(node, exp.Min) else (lambda a, b: V.less_than(b, a))
        result = Val(kind, V.default_term(kind), FALSE)
        seen: z3.BoolRef = FALSE
        for cond, value in members:
            take = z3.And(cond, z3.Or(z3.Not(seen), better(value, result)))
            result = Val(kind, z3.If(take, value.v, result.v), FALSE)
            seen = z3.Or(seen, cond)
        return Val(kind, result.v, FALSE if default_on_empty else none)
    raise Unsupported(f"aggregate {node.key}")


def _anonymous_aggregate(enc: Encoder, node: exp.AnonymousAggFunc, scope: Scope) -> Val:
    if node.name.lower() in _CLICKHOUSE_COUNT_DISTINCT and len(node.expressions) == 1:
        rewritten = exp.Count(this=exp.Distinct(expressions=[node.expressions[0].copy()]))
        return _aggregate(enc, rewritten, scope)
    raise Unsupported(f"aggregate {node.name}")


def _subquery_expr(enc: Encoder, node: exp.Expr, scope: Scope) -> Val:
    return _scalar_subquery(enc, node, scope)


_HANDLERS: dict[type, Callable[[Encoder, Any, Scope], Val]] = {
    exp.Literal: _literal,
    exp.Column: _column,
    exp.Add: _arith,
    exp.Sub: _arith,
    exp.Mul: _arith,
    exp.Div: _arith,
    exp.Mod: _arith,
    exp.Neg: _neg,
    exp.EQ: _compare,
    exp.NEQ: _compare,
    exp.GT: _compare,
    exp.GTE: _compare,
    exp.LT: _compare,
    exp.LTE: _compare,
    exp.And: _and,
    exp.Or: _or,
    exp.Not: _not,
    exp.Paren: _paren,
    exp.Alias: _alias_node,
    exp.Null: _null,
    exp.Boolean: _boolean,
    exp.Is: _is,
    exp.Between: _between,
    exp.In: _in,
    exp.Exists: _exists,
    exp.Subquery: _subquery_expr,
    exp.Select: _subquery_expr,
    exp.Case: _case,
    exp.If: _if,
    exp.Coalesce: _coalesce,
    exp.Nullif: _nullif,
    exp.Like: _like,
    exp.ILike: _like,
    exp.Length: _length,
    exp.Concat: _concat,
    exp.DPipe: _concat,
    exp.Abs: _abs,
    exp.Cast: _cast,
    exp.TimestampTrunc: _trunc,
    exp.DateTrunc: _trunc,
    exp.Year: _year,
    exp.Month: _month,
    exp.Day: _day,
    exp.DateAdd: _date_add,
    exp.Extract: _extract,
    exp.Date: _date_function,
    exp.NullSafeEQ: _null_safe_eq,
    exp.NullSafeNEQ: _null_safe_eq,
    exp.DateSub: _date_add,
    exp.Anonymous: _anonymous,
    exp.Count: _aggregate,
    exp.Sum: _aggregate,
    exp.Avg: _aggregate,
    exp.Min: _aggregate,
    exp.Max: _aggregate,
    exp.AnonymousAggFunc: _anonymous_aggregate,
    exp.CountIf: _count_if,
    exp.CombinedAggFunc: _combined_aggregate,
    exp.ArgMax: _arg_extreme,
    exp.ArgMin: _arg_extreme,
    exp.Round: _round,
}
