"""Re-executing both queries on a counterexample database with a real engine.

A solver model is only a candidate: the encoding may over-approximate an operator, so a
counterexample counts (is *confirmed*) only when the real engine returns different results.
`ChdbValidator` runs ClickHouse SQL in embedded ClickHouse (chdb); `SqliteValidator` runs
SQLite-dialect SQL (the external benchmark pairs) in an in-memory SQLite database.
"""

from __future__ import annotations

import math
import os
import sqlite3
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, Protocol

import sqlglot
from sqlglot import exp

from backend.domain.equivalence.counterexample import Counterexample, CounterexampleTable
from backend.domain.equivalence.schema import DATE, INT, REAL
from backend.domain.market.embedded import close_embedded, current_embedded_path, open_embedded
from backend.domain.market.errors import StoreUnavailable

Rows = list[tuple[Any, ...]]


class ValidationFailed(Exception):
    """The engine could not run a query on the counterexample database."""


class CounterexampleValidator(Protocol):
    dialect: str

    def execute(self, sqls: Sequence[str], database: Counterexample) -> list[Rows]:
        """Create `database`, run each SQL on it and return the rows of each, in order."""
        ...


def _normalise(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        rounded = round(value, 6)
        return int(rounded) if rounded == int(rounded) else rounded
    return value


def normalise_rows(rows: Rows) -> list[tuple[Any, ...]]:
    return [tuple(_normalise(v) for v in row) for row in rows]


def is_ordered(sql: str, dialect: str) -> bool:
    tree = sqlglot.parse_one(sql, read=dialect)
    return tree.args.get("order") is not None


def rows_differ(a: Rows, b: Rows, semantics: str, *, ordered: bool) -> bool:
    """Concrete comparison; list semantics applies only when both queries are ordered."""
    left, right = normalise_rows(a), normalise_rows(b)
    if semantics == "list" and ordered:
        return left != right
    if semantics == "set":
        return set(left) != set(right)
    return Counter(left) != Counter(right)


class SqliteValidator:
    dialect = "sqlite"

    def execute(self, sqls: Sequence[str], database: Counterexample) -> list[Rows]:
        connection = sqlite3.connect(":memory:")
        try:
            for table in database.tables.values():
                _sqlite_create(connection, table)
            results = []
            for sql in sqls:
                try:
                    results.append(connection.execute(sql).fetchall())
                except sqlite3.Error as error:
                    raise ValidationFailed(f"SQLite refused the query: {error}") from error
            return results
        finally:
            connection.close()


def _sqlite_type(kind: str) -> str:
    return {INT: "INTEGER", REAL: "REAL"}.get(kind, "TEXT")


def _sqlite_create(connection: sqlite3.Connection, table: CounterexampleTable) -> None:
    columns = ", ".join(f'"{c.name}" {_sqlite_type(c.kind)}' for c in table.columns)
    connection.execute(f'CREATE TABLE "{table.name}" ({columns})')
    if table.rows:
        marks = ", ".join("?" for _ in table.columns)
        rows = [tuple(v.isoformat() if hasattr(v, "isoformat") else v for v in row) for row in table.rows]
        connection.executemany(f'INSERT INTO "{table.name}" VALUES ({marks})', rows)


class ChdbValidator:
    """Runs ClickHouse SQL on the counterexample in a throw-away database of an embedded ClickHouse.

    Pass `client` (a clickhouse-connect client) to use a given connection. Without it the validator
    takes a handle on the process's embedded server (chdb runs one per process, e.g. the market
    store's) and only creates and drops its own `equiv_<hex>` database there; when none runs, it
    opens a private scratch directory for the check and closes it afterwards, so a store opened
    later in the process is not locked out.
    """

    dialect = "clickhouse"

    def __init__(self, client: Any = None) -> None:
        self._client = client

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        if self._client is not None:
            yield self._client
            return
        try:
            client = open_embedded(current_embedded_path() or _scratch_directory())
        except StoreUnavailable as error:
            raise ValidationFailed(str(error)) from error
        try:
            yield client
        finally:
            close_embedded(client)

    def execute(self, sqls: Sequence[str], database: Counterexample) -> list[Rows]:
        with self._connection() as client:
            name = f"equiv_{uuid.uuid4().hex[:12]}"
            client.command(f"CREATE DATABASE {name} ENGINE = Memory")
            try:
                for table in database.tables.values():
                    _chdb_create(client, name, table)
                results = []
                for sql in sqls:
                    try:
                        results.append(list(client.query(qualify_tables(sql, name, database)).result_rows))
                    except Exception as error:  # the driver raises several unrelated classes
                        message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
                        raise ValidationFailed(f"ClickHouse refused the query: {message}") from error
                return results
            finally:
                client.command(f"DROP DATABASE IF EXISTS {name}")


_scratch_directories: dict[int, str] = {}


def _scratch_directory() -> str:
    """One private chdb directory per process for validation when no embedded server runs."""
    pid = os.getpid()
    if pid not in _scratch_directories:
        _scratch_directories[pid] = tempfile.mkdtemp(prefix=f"equiv-chdb-{pid}-")
    return _scratch_directories[pid]


def _clickhouse_type(kind: str, sql_type: str, nullable: bool) -> str:
    base = (
        sql_type.removeprefix("Nullable(").removesuffix(")") if sql_type.startswith("Nullable(") else sql_type
    )
    if not _looks_like_clickhouse_type(base):
        base = {INT: "Int64", REAL: "Float64", DATE: "Date"}.get(kind, "String")
    return f"Nullable({base})" if nullable and not base.startswith("LowCardinality") else base


def _looks_like_clickhouse_type(text: str) -> bool:
    return text.split("(")[0] in {
        "String", "LowCardinality", "Date", "Date32", "Float64", "Float32", "Int8", "Int16", "Int32",
        "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Bool",
    }  # fmt: skip


def _chdb_create(client: Any, database: str, table: CounterexampleTable) -> None:
    columns = ", ".join(
        f"`{c.name}` {_clickhouse_type(c.kind, c.sql_type, c.nullable)}" for c in table.columns
    )
    client.command(f"CREATE TABLE {database}.`{table.name}` ({columns}) ENGINE = Memory")
    if table.rows:
        names = [c.name for c in table.columns]
        client.insert(table.name, [list(row) for row in table.rows], column_names=names, database=database)


def qualify_tables(sql: str, database: str, counterexample: Counterexample) -> str:
    """Point every table the counterexample defines at the throw-away database (CTE names excepted)."""
    tree = sqlglot.parse_one(sql, read="clickhouse")
    cte_names = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if table.name.lower() in counterexample.tables and table.name.lower() not in cte_names:
            table.set("this", exp.to_identifier(counterexample.tables[table.name.lower()].name))
            table.set("db", exp.to_identifier(database))
            table.set("catalog", None)
    return tree.sql(dialect="clickhouse")


def default_validator(dialect: str) -> CounterexampleValidator:
    return ChdbValidator() if dialect == "clickhouse" else SqliteValidator()
