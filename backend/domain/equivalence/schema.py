"""Schemas the equivalence checker reasons over: column kinds, nullability and integrity constraints.

A schema comes from DDL text (`Schema.from_ddl`) or from the canonical market schema
(`Schema.market()`). Only what the SMT encoding needs is kept: each column's value kind, whether it
may be NULL, primary keys, foreign keys and simple value ranges (unsigned integers, CHECK ranges).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

# Value kinds of the encoding. "bool" columns are stored as 0/1 integers (SQLite and ClickHouse agree).
INT, REAL, STRING, DATE = "int", "real", "string", "date"

_INT_TYPES = ("INT", "SERIAL", "BIT", "BOOL", "UINT")
_REAL_TYPES = ("FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC", "NUMBER", "MONEY")
_STRING_TYPES = ("CHAR", "TEXT", "STRING", "CLOB", "ENUM", "UUID", "JSON", "BLOB", "BINARY")


@dataclass(frozen=True)
class ColumnDef:
    name: str
    kind: str
    nullable: bool
    sql_type: str
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]


@dataclass(frozen=True)
class TableDef:
    name: str
    columns: tuple[ColumnDef, ...]
    primary_key: tuple[str, ...] = ()
    unique_keys: tuple[tuple[str, ...], ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()

    def column(self, name: str) -> ColumnDef | None:
        lowered = name.lower()
        for column in self.columns:
            if column.name.lower() == lowered:
                return column
        return None


@dataclass
class Schema:
    """Tables by lower-case name, plus the DDL dialect used to recreate them on a real engine."""

    tables: dict[str, TableDef] = field(default_factory=dict)

    def table(self, name: str) -> TableDef | None:
        return self.tables.get(name.lower()) or self.tables.get(name.lower().split(".")[-1])

    @classmethod
    def from_ddl(cls, text: str, dialect: str = "clickhouse") -> Schema:
        """Read every CREATE TABLE of `text`; statements that do not parse are skipped."""
        schema = cls()
        for statement in _split_statements(text):
            create = _parse_create(statement, dialect)
            if create is not None:
                table = _table_from_create(create, dialect)
                schema.tables[table.name.lower()] = table
        _resolve_implicit_references(schema)
        return schema

    @classmethod
    def market(cls, *, assume_foreign_keys: bool = False) -> Schema:
        """The canonical market schema (backend.domain.market.schema.TABLES), keys as primary keys.

        The canonical schema declares no foreign keys. `assume_foreign_keys=True` adds the ones the
        loaders keep in practice (every stock code in the fact tables is in `stock_basic`, every index
        code in `index_basic`), so a query that joins `stock_basic` only to read a column is not
        told apart from one that does not join — an assumption about the data, hence opt-in.
        """
        from backend.domain.market.schema import TABLES

        schema = cls()
        for table in TABLES:
            columns = tuple(_column_from_clickhouse_type(c.name, c.type) for c in table.columns)
            foreign = tuple(
                ForeignKey((child,), parent, (parent_column,))
                for name, child, parent, parent_column in _MARKET_REFERENCES
                if assume_foreign_keys and name == table.name
            )
            schema.tables[table.name.lower()] = TableDef(
                table.name, columns, primary_key=tuple(table.key), foreign_keys=foreign
            )
        return schema


_MARKET_REFERENCES = (
    ("daily", "ts_code", "stock_basic", "ts_code"),
    ("daily_basic", "ts_code", "stock_basic", "ts_code"),
    ("income", "ts_code", "stock_basic", "ts_code"),
    ("fina_indicator", "ts_code", "stock_basic", "ts_code"),
    ("index_weight", "con_code", "stock_basic", "ts_code"),
    ("index_weight", "index_code", "index_basic", "ts_code"),
)


def _split_statements(text: str) -> list[str]:
    without_comments = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    without_comments = re.sub(r"--[^\n]*", " ", without_comments)
    return [part for part in without_comments.split(";") if re.search(r"\bcreate\s+table\b", part, re.I)]


def _parse_create(statement: str, dialect: str) -> exp.Create | None:
    for read in dict.fromkeys((dialect, "mysql", "sqlite", "postgres")):
        try:
            parsed = sqlglot.parse_one(statement, read=read)
        except (ParseError, TokenError, ValueError):
            continue
        if isinstance(parsed, exp.Create) and isinstance(parsed.this, exp.Schema):
            return parsed
    return None


def _kind_of(type_text: str) -> str:
    upper = type_text.upper()
    if "DATETIME" in upper or "TIMESTAMP" in upper or upper == "TIME":
        return STRING
    if upper.startswith("DATE") or "(DATE" in upper:
        return DATE
    for kind, names in ((REAL, _REAL_TYPES), (INT, _INT_TYPES), (STRING, _STRING_TYPES)):
        if any(name in upper for name in names):
            return kind
    return STRING


def _column_from_clickhouse_type(name: str, type_text: str) -> ColumnDef:
    nullable = type_text.startswith("Nullable(")
    inner = type_text[len("Nullable(") : -1] if nullable else type_text
    kind = _kind_of(inner)
    if inner.startswith("DateTime"):
        kind = "datetime"
    minimum = 0 if inner.startswith("UInt") else None
    maximum = 255 if inner == "UInt8" else None
    return ColumnDef(name, kind, nullable, type_text, minimum, maximum)


def _identifier_names(node: exp.Expr | None) -> tuple[str, ...]:
    if node is None:
        return ()
    return tuple(ident.name for ident in node.find_all(exp.Identifier))


def _table_from_create(create: exp.Create, dialect: str) -> TableDef:
    target = create.this
    assert isinstance(target, exp.Schema)
    table_name = target.this.name
    columns: list[ColumnDef] = []
    primary: tuple[str, ...] = ()
    uniques: list[tuple[str, ...]] = []
    foreign: list[ForeignKey] = []
    for item in target.expressions:
        if isinstance(item, exp.ColumnDef):
            column, is_primary, is_unique, reference = _column_from_def(item, dialect)
            columns.append(column)
            if is_primary:
                primary = (column.name,)
            if is_unique:
                uniques.append((column.name,))
            if reference is not None:
                foreign.append(ForeignKey((column.name,), reference[0], reference[1]))
        elif isinstance(item, exp.PrimaryKey):
            primary = _identifier_names(exp.Tuple(expressions=item.expressions))
        elif isinstance(item, exp.ForeignKey):
            reference = item.args.get("reference")
            parent = reference.find(exp.Table) if reference is not None else None
            if reference is not None and parent is not None:
                schema_node = reference.find(exp.Schema)
                parent_columns = tuple(e.name for e in schema_node.expressions) if schema_node else ()
                foreign.append(
                    ForeignKey(tuple(e.name for e in item.expressions), parent.name, parent_columns)
                )
        elif isinstance(item, exp.UniqueColumnConstraint):
            uniques.append(_identifier_names(item.this))
    # Key columns can never be NULL, whatever the column definition says.
    key_columns = {name.lower() for name in primary}
    columns = [
        ColumnDef(
            c.name, c.kind, c.nullable and c.name.lower() not in key_columns, c.sql_type, c.minimum, c.maximum
        )
        for c in columns
    ]
    return TableDef(table_name, tuple(columns), primary, tuple(uniques), tuple(foreign))


def _column_from_def(
    item: exp.ColumnDef, dialect: str
) -> tuple[ColumnDef, bool, bool, tuple[str, tuple[str, ...]] | None]:
    type_node = item.args.get("kind")
    type_text = type_node.sql(dialect=dialect) if type_node is not None else "TEXT"
    if dialect == "clickhouse":
        column = _column_from_clickhouse_type(item.name, type_text)
    else:
        column = ColumnDef(item.name, _kind_of(type_text), True, type_text)
    nullable, primary, unique = column.nullable, False, False
    reference: tuple[str, tuple[str, ...]] | None = None
    for constraint in item.args.get("constraints") or []:
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.NotNullColumnConstraint):
            nullable = bool(kind.args.get("allow_null"))
        elif isinstance(kind, exp.PrimaryKeyColumnConstraint):
            primary, nullable = True, False
        elif isinstance(kind, exp.UniqueColumnConstraint):
            unique = True
        elif isinstance(kind, exp.Reference):
            parent = kind.find(exp.Table)
            schema_node = kind.find(exp.Schema)
            parent_columns = tuple(e.name for e in schema_node.expressions) if schema_node else ()
            if parent is not None:
                reference = (parent.name, parent_columns)
    return (
        ColumnDef(column.name, column.kind, nullable, column.sql_type, column.minimum, column.maximum),
        primary,
        unique,
        reference,
    )


def _resolve_implicit_references(schema: Schema) -> None:
    """`REFERENCES parent` without columns points at the parent's primary key; unknown parents are dropped."""
    for name, table in list(schema.tables.items()):
        resolved: list[ForeignKey] = []
        for key in table.foreign_keys:
            parent = schema.table(key.parent)
            if parent is None:
                continue
            parent_columns = key.parent_columns or parent.primary_key
            if len(parent_columns) != len(key.columns) or any(
                parent.column(c) is None for c in parent_columns
            ):
                continue
            if any(table.column(c) is None for c in key.columns):
                continue
            resolved.append(ForeignKey(key.columns, parent.name, parent_columns))
        schema.tables[name] = TableDef(
            table.name, table.columns, table.primary_key, table.unique_keys, tuple(resolved)
        )
