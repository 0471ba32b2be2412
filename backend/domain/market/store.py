"""The one way into ClickHouse: a lazily opened clickhouse-connect client with guarded queries.

chdb locks its data directory (one process per directory) and a client opened before `fork()`
hangs in the child, so the client is opened on first use and tied to the process that opened it.
Threads of that process share it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import clickhouse_connect
from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import ClickHouseError, DatabaseError, OperationalError

from backend.domain.market.config import StoreConfig
from backend.domain.market.embedded import close_embedded, open_embedded
from backend.domain.market.errors import (
    MemoryLimitExceeded,
    QueryFailed,
    QueryTimeout,
    ResultTooLarge,
    StoreUnavailable,
)
from backend.domain.market.guard import check_read_only

# ClickHouse error codes that deserve their own error class.
_TIMEOUT_CODES = {159, 160, 209}  # TIMEOUT_EXCEEDED, TOO_SLOW, SOCKET_TIMEOUT
_TOO_MANY_ROWS_CODES = {396}  # TOO_MANY_ROWS_OR_BYTES
_MEMORY_CODES = {241}  # MEMORY_LIMIT_EXCEEDED
_READONLY_CODES = {164}  # READONLY: a write or a settings change refused under readonly=1


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    column_types: list[str]
    rows: list[tuple[Any, ...]]
    elapsed_ms: float

    def as_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def _error_code(error: Exception) -> int | None:
    text = str(error)
    marker = "Code: "
    start = text.find(marker)
    if start < 0:
        return None
    digits = ""
    for char in text[start + len(marker) :]:
        if not char.isdigit():
            break
        digits += char
    return int(digits) if digits else None


def _translate(error: Exception, sql: str) -> QueryFailed:
    code = _error_code(error)
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if code in _TIMEOUT_CODES:
        return QueryTimeout(f"the query ran past its time limit and was stopped: {message}")
    if code in _TOO_MANY_ROWS_CODES:
        return ResultTooLarge(
            f"the result has more rows than the limit allows; narrow the screen or add a limit: {message}"
        )
    if code in _MEMORY_CODES:
        return MemoryLimitExceeded(f"the query needed more memory than allowed: {message}")
    if code in _READONLY_CODES:
        return QueryFailed(f"ClickHouse refused it in read-only mode (screens may only read): {message}")
    return QueryFailed(f"ClickHouse refused the query: {message}")


class MarketStore:
    """Guarded access to the market database.

    `query()` runs analyst SQL (guarded, read-only, limited). `admin_command()` and `insert_arrow()`
    are for VeriScreen's own schema and loaders only and never receive user text.
    """

    def __init__(self, config: StoreConfig) -> None:
        self._config = config
        self._client: Client | None = None
        self._owner_pid: int | None = None
        self._lock = threading.Lock()

    @property
    def config(self) -> StoreConfig:
        return self._config

    @property
    def database(self) -> str:
        return self._config.database

    def client(self) -> Client:
        with self._lock:
            if self._client is not None and self._owner_pid == os.getpid():
                return self._client
            # A client inherited through fork() must not be touched: open our own.
            self._client = self._open()
            self._owner_pid = os.getpid()
            return self._client

    def _open(self) -> Client:
        try:
            if self._config.is_embedded:
                return open_embedded(self._config.chdb_path)
            return clickhouse_connect.get_client(
                **self._config.server_connect_kwargs(), connect_timeout=5, send_receive_timeout=120
            )
        except (ClickHouseError, OSError, RuntimeError) as error:
            where = self._config.chdb_path if self._config.is_embedded else self._config.url.split("@")[-1]
            raise StoreUnavailable(f"cannot open the ClickHouse store at {where}: {error}") from error

    def close(self) -> None:
        with self._lock:
            if self._client is not None and self._owner_pid == os.getpid():
                if self._config.is_embedded:
                    close_embedded(self._client)
                else:
                    self._client.close()
            self._client = None
            self._owner_pid = None

    def query(self, sql: str, parameters: Mapping[str, Any] | None = None) -> QueryResult:
        """Run one analyst read statement through the guard, with the configured limits."""
        check_read_only(sql)
        return self._run(sql, parameters, self._config.limits.as_settings())

    def internal_query(self, sql: str, parameters: Mapping[str, Any] | None = None) -> QueryResult:
        """Read for VeriScreen's own bookkeeping (stats, loaders): still read-only, no row limit."""
        check_read_only(sql)
        settings = self._config.limits.as_settings()
        settings.pop("max_result_rows")
        settings.pop("result_overflow_mode")
        return self._run(sql, parameters, settings)

    def _run(self, sql: str, parameters: Mapping[str, Any] | None, settings: dict[str, Any]) -> QueryResult:
        client = self.client()
        started = time.perf_counter()
        try:
            result = client.query(sql, parameters=dict(parameters or {}), settings=settings)
        except OperationalError as error:
            raise StoreUnavailable(f"ClickHouse is not reachable: {error}") from error
        except (DatabaseError, ClickHouseError) as error:
            if _error_code(error) in _READONLY_CODES:
                # chdb can keep `readonly=1` in the session after refusing a write, which would make
                # every later call on this handle fail: drop the handle, the next call opens a fresh one.
                self.close()
            raise _translate(error, sql) from error
        elapsed = (time.perf_counter() - started) * 1000
        return QueryResult(
            columns=list(result.column_names),
            column_types=[column_type.name for column_type in result.column_types],
            rows=[tuple(row) for row in result.result_rows],
            elapsed_ms=elapsed,
        )

    def admin_command(self, sql: str) -> None:
        """DDL and writes issued by VeriScreen itself (schema, loaders). Never pass user text here."""
        try:
            self.client().command(sql)
        except OperationalError as error:
            raise StoreUnavailable(f"ClickHouse is not reachable: {error}") from error
        except (DatabaseError, ClickHouseError) as error:
            raise _translate(error, sql) from error

    def insert_arrow(self, table: str, arrow_table: Any) -> None:
        """Bulk insert a pyarrow Table into `<database>.<table>`."""
        try:
            self.client().insert_arrow(table, arrow_table, database=self._config.database)
        except OperationalError as error:
            raise StoreUnavailable(f"ClickHouse is not reachable: {error}") from error
        except (DatabaseError, ClickHouseError) as error:
            raise _translate(error, f"INSERT INTO {table}") from error

    def table_names(self) -> Sequence[str]:
        result = self.client().query(
            "SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name",
            parameters={"db": self._config.database},
        )
        return [row[0] for row in result.result_rows]
