"""Re-executing both queries on a counterexample database with a real engine.

A solver model is only a candidate: the encoding may over-approximate an operator, so a
counterexample counts (is *confirmed*) only when the real engine returns different results.
`ChdbValidator` runs ClickHouse SQL in embedded ClickHouse (chdb); `SqliteValidator` runs
SQLite-dialect SQL (the external benchmark pairs) in an in-memory SQLite database. Both run the
queries under the same limits as every analyst query (`QueryLimits`): ClickHouse SQL through a market
store's guarded `query()`, SQLite SQL read-only with the time and row limits.
"""

from __future__ import annotations

import math
import sqlite3
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from decimal import Decimal
from typing import Any, Protocol

import sqlglot
from sqlglot import exp

from backend.domain.equivalence.counterexample import Counterexample, CounterexampleTable
from backend.domain.equivalence.schema import DATE, INT, REAL
from backend.domain.market.config import QueryLimits, StoreConfig
from backend.domain.market.embedded import current_embedded_path
from backend.domain.market.errors import MarketError
from backend.domain.market.store import MarketStore

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


def rows_differ(a: Rows, b: Rows, semantics: str, *, ordered: bool) -> bool:
    """Concrete comparison; list semantics applies only when both queries are ordered."""
    left, right = normalise_rows(a), normalise_rows(b)
    if semantics == "list" and ordered:
        return left != right
    if semantics == "set":
        return set(left) != set(right)
    return Counter(left) != Counter(right)


# What a query may do in SQLite: read tables and call functions, nothing else (no ATTACH, PRAGMA,
# writes or schema changes) — the counterpart of the ClickHouse guard for the SQLite-dialect pairs.
_SQLITE_READ_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION})
_SQLITE_READ_ACTIONS |= {sqlite3.SQLITE_RECURSIVE}  # WITH RECURSIVE reads too
SQLITE_PROGRESS_STEPS = 10_000  # SQLite virtual-machine steps between two deadline checks


def _sqlite_read_only(action: int, *_names: str | None) -> int:
    return sqlite3.SQLITE_OK if action in _SQLITE_READ_ACTIONS else sqlite3.SQLITE_DENY


class SqliteValidator:
    dialect = "sqlite"

    def __init__(self, limits: QueryLimits | None = None) -> None:
        self._limits = limits or QueryLimits()

    def execute(self, sqls: Sequence[str], database: Counterexample) -> list[Rows]:
        connection = sqlite3.connect(":memory:")
        try:
            for table in database.tables.values():
                _sqlite_create(connection, table)
            connection.set_authorizer(_sqlite_read_only)
            return [self._rows(connection, sql) for sql in sqls]
        finally:
            connection.close()

    def _rows(self, connection: sqlite3.Connection, sql: str) -> Rows:
        deadline = time.monotonic() + self._limits.max_execution_seconds
        # A non-zero answer of the progress handler interrupts the running statement.
        connection.set_progress_handler(lambda: int(time.monotonic() > deadline), SQLITE_PROGRESS_STEPS)
        try:
            rows = connection.execute(sql).fetchmany(self._limits.max_result_rows + 1)
        except sqlite3.Error as error:
            if time.monotonic() > deadline:
                raise ValidationFailed("the query ran past its time limit and was stopped") from error
            raise ValidationFailed(f"SQLite refused the query: {error}") from error
        if len(rows) > self._limits.max_result_rows:
            raise ValidationFailed(f"the result has more than {self._limits.max_result_rows} rows")
        return rows


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
    """Runs ClickHouse SQL on the counterexample through a market store's guarded `query()`: the SQL
    guard, read-only mode, the time, row and memory limits and fair admission apply as to any analyst
    query. The counterexample lives in a throw-away `equiv_<hex>` Memory database, dropped afterwards.

    With `store` (e.g. the process's market store) that database is created there and the store's
    limits apply. Without one, each execution opens a store with `limits` on the embedded server the
    process already runs (chdb runs one per process), else in a scratch directory that is deleted
    afterwards, whatever happens.
    """

    dialect = "clickhouse"

    def __init__(self, store: MarketStore | None = None, *, limits: QueryLimits | None = None) -> None:
        self._store = store
        self._limits = limits or QueryLimits()

    @contextmanager
    def _scratch_store(self) -> Iterator[MarketStore]:
        if self._store is not None:
            yield self._store
            return
        # Cleanups run last-in first-out: the store is closed before its scratch folder is deleted.
        with ExitStack() as cleanup:
            directory = current_embedded_path() or cleanup.enter_context(
                tempfile.TemporaryDirectory(prefix="equiv-chdb-")
            )
            store = MarketStore(StoreConfig(url=f"chdb://{directory}", limits=self._limits))
            cleanup.callback(store.close)
            yield store

    def execute(self, sqls: Sequence[str], database: Counterexample) -> list[Rows]:
        name = f"equiv_{uuid.uuid4().hex[:12]}"
        with self._scratch_store() as store:
            try:
                store.admin_command(f"CREATE DATABASE {name} ENGINE = Memory")
                try:
                    for table in database.tables.values():
                        _chdb_create(store, name, table)
                    return [store.query(qualify_tables(sql, name, database)).rows for sql in sqls]
                finally:
                    store.admin_command(f"DROP DATABASE IF EXISTS {name}")
            except MarketError as error:  # the guard's refusal, a limit, ClickHouse's own refusal
                raise ValidationFailed(f"{error.code}: {error}") from error


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


def _chdb_create(store: MarketStore, database: str, table: CounterexampleTable) -> None:
    columns = ", ".join(
        f"`{c.name}` {_clickhouse_type(c.kind, c.sql_type, c.nullable)}" for c in table.columns
    )
    store.admin_command(f"CREATE TABLE {database}.`{table.name}` ({columns}) ENGINE = Memory")
    if table.rows:
        # Every value is rendered as an escaped ClickHouse literal: no query text reaches admin_command.
        names = ", ".join(f"`{c.name}`" for c in table.columns)
        rows = ", ".join(
            "(" + ", ".join(exp.convert(value).sql(dialect="clickhouse") for value in row) + ")"
            for row in table.rows
        )
        store.admin_command(f"INSERT INTO {database}.`{table.name}` ({names}) VALUES {rows}")


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
