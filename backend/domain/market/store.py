"""The one way into ClickHouse: guarded analyst queries, admitted fairly, each on a clean handle.

chdb locks its data directory (one process per directory) and a handle opened before `fork()` hangs
in the child, so handles are opened on first use and belong to the process that opened them. Threads
of that process run queries concurrently, each on its own handle (see execution/handles.py for why a
handle is never reused after a failure), within a bounded number of slots (execution/admission.py).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import clickhouse_connect
from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import ClickHouseError, OperationalError

from backend.domain.market import clickhouse_errors, ownership
from backend.domain.market.config import StoreConfig
from backend.domain.market.embedded import close_embedded, open_embedded
from backend.domain.market.errors import QueryCancelled, QueryFailed, StoreUnavailable
from backend.domain.market.execution import AdmissionObserver, FairAdmission, HandlePool, current_context
from backend.domain.market.guard import require_read_only

logger = logging.getLogger(__name__)

# Every analyst query starts with this comment and a fresh id, so that it can be found in
# system.processes and stopped when its client goes away (chdb ignores clickhouse-connect's query_id).
_MARKER = "/* veriscreen-query:{} */ "


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    column_types: list[str]
    rows: list[tuple[Any, ...]]
    elapsed_ms: float

    def as_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class MarketStore:
    """Guarded access to the market database.

    `query()` runs analyst SQL (guarded, read-only, limited, admitted fairly per requester).
    `internal_query()` reads for VeriScreen's own bookkeeping. `admin_command()` and `insert_arrow()`
    are for VeriScreen's own schema and loaders only and never receive user text.
    """

    def __init__(self, config: StoreConfig, admission_observer: AdmissionObserver | None = None) -> None:
        self._config = config
        self._handles: HandlePool[Client] = HandlePool(self._open, self._close_handle)
        self._admission = FairAdmission(config.admission, observer=admission_observer)

    @property
    def config(self) -> StoreConfig:
        return self._config

    @property
    def database(self) -> str:
        return self._config.database

    @property
    def admission(self) -> FairAdmission:
        return self._admission

    @property
    def discarded_handles(self) -> int:
        return self._handles.discarded

    def _open(self) -> Client:
        try:
            if self._config.is_embedded:
                # chdb allows one process per directory: take it (a no-op when this process holds it),
                # so that a server started beside this process refuses instead of failing later.
                ownership.claim(Path(self._config.chdb_path), ownership.Owner.of_this_process())
                return open_embedded(self._config.chdb_path)
            return clickhouse_connect.get_client(
                **self._config.server_connect_kwargs(),
                connect_timeout=5,
                send_receive_timeout=self._config.limits.max_execution_seconds + 30,
                autogenerate_session_id=False,  # one server session cannot run two queries at once
            )
        except ownership.DirectoryInUse as refusal:
            logger.error("%s", refusal)  # names the directory and its owner: for the log, not the caller
            raise StoreUnavailable(
                "the embedded market database is in use by another VeriScreen process; ask through that "
                "process or stop it"
            ) from refusal
        except StoreUnavailable:
            raise
        except (ClickHouseError, OSError, RuntimeError) as error:
            # The data path or server address goes to the log, not to whoever asked.
            where = self._config.chdb_path if self._config.is_embedded else self._config.url.split("@")[-1]
            logger.error("cannot open the ClickHouse store at %s: %s", where, error)
            if self._config.is_embedded:
                reason = clickhouse_errors.readable_message(error)
                raise StoreUnavailable(
                    f"the embedded market database cannot be opened right now ({reason})"
                ) from error
            reason = (
                clickhouse_errors.unreachable_reason(error)
                if isinstance(error, OperationalError | OSError)
                else clickhouse_errors.readable_message(error)
            )
            raise StoreUnavailable(f"the ClickHouse server cannot be reached right now: {reason}") from error

    def _close_handle(self, client: Client) -> None:
        if self._config.is_embedded:
            close_embedded(client)
        else:
            client.close()

    def close(self) -> None:
        self._handles.close_all()

    def query(self, sql: str, parameters: Mapping[str, Any] | None = None) -> QueryResult:
        """Run one analyst read statement through the guard, with the configured limits."""
        require_read_only(sql)
        return self._run(sql, parameters, drop_row_limit=False)

    def internal_query(self, sql: str, parameters: Mapping[str, Any] | None = None) -> QueryResult:
        """Read for VeriScreen's own bookkeeping (stats, loaders): still read-only, no row limit."""
        require_read_only(sql)
        return self._run(sql, parameters, drop_row_limit=True)

    def _run(self, sql: str, parameters: Mapping[str, Any] | None, drop_row_limit: bool) -> QueryResult:
        context = current_context()
        limits = self._config.limits
        now = time.monotonic()
        deadline = now + limits.max_execution_seconds
        if context.deadline is not None:
            deadline = min(deadline, context.deadline)
        with self._admission.admitted(context.requester, deadline, context.cancel):
            settings = limits.as_settings(seconds_left=deadline - time.monotonic())
            if drop_row_limit:
                settings.pop("max_result_rows")
                settings.pop("result_overflow_mode")
            query_id = uuid.uuid4().hex
            marked_sql = _MARKER.format(query_id) + sql
            started = time.perf_counter()
            unregister = context.cancel.on_cancel(lambda: self._kill(query_id))
            try:
                with self._handles.lease() as client:
                    result = self._execute(client, marked_sql, parameters, settings)
            except QueryFailed as failure:
                # The kill waits for a free handle: on a busy store the query may reach its time limit
                # first. The client asked to stop it, so that is what happened to it.
                if context.cancel.cancelled and not isinstance(failure, QueryCancelled):
                    raise QueryCancelled("the query was cancelled: the client has gone") from failure
                raise
            finally:
                unregister()
            if context.cancel.cancelled:
                # Finished in the same instant the client left: nobody may read it now.
                raise QueryCancelled("the query was cancelled: the client has gone")
        return QueryResult(
            columns=list(result.column_names),
            column_types=[column_type.name for column_type in result.column_types],
            rows=[tuple(row) for row in result.result_rows],
            elapsed_ms=(time.perf_counter() - started) * 1000,
        )

    @staticmethod
    def _execute(
        client: Client, sql: str, parameters: Mapping[str, Any] | None, settings: dict[str, Any]
    ) -> Any:
        try:
            result = client.query(sql, parameters=dict(parameters or {}), settings=settings)
            result.result_rows  # noqa: B018 — decode inside the lease: a decoding error discards the handle
            return result
        except OperationalError as error:
            logger.error("ClickHouse query failed on the connection: %s", error)
            raise StoreUnavailable(
                f"ClickHouse is not reachable: {clickhouse_errors.unreachable_reason(error)}"
            ) from error
        except ClickHouseError as error:
            failure = clickhouse_errors.translate(error)
            logger.info("query refused: %s", failure)  # the sanitised text only: no rows, no settings
            raise failure from error

    def _kill(self, query_id: str) -> None:
        """Stop a running analyst query by its marker (called from the cancelling thread)."""
        marker = _MARKER.format(query_id)
        try:
            with self._handles.lease() as client:
                rows = client.query(
                    "SELECT query_id FROM system.processes WHERE startsWith(query, {marker:String})",
                    parameters={"marker": marker},
                ).result_rows
                for (running_id,) in rows:
                    client.command(
                        "KILL QUERY WHERE query_id = {id:String} ASYNC", parameters={"id": running_id}
                    )
        except (ClickHouseError, StoreUnavailable, QueryFailed) as error:
            logger.warning("could not stop a cancelled query: %s", clickhouse_errors.readable_message(error))

    def admin_command(self, sql: str) -> None:
        """DDL and writes issued by VeriScreen itself (schema, loaders). Never pass user text here."""
        with self._handles.lease() as client:
            try:
                client.command(sql)
            except OperationalError as error:
                logger.error("ClickHouse command failed on the connection: %s", error)
                raise StoreUnavailable(
                    f"ClickHouse is not reachable: {clickhouse_errors.unreachable_reason(error)}"
                ) from error
            except ClickHouseError as error:
                raise clickhouse_errors.translate(error) from error

    def insert_arrow(self, table: str, arrow_table: Any) -> None:
        """Bulk insert a pyarrow Table into `<database>.<table>`."""
        with self._handles.lease() as client:
            try:
                client.insert_arrow(table, arrow_table, database=self._config.database)
            except OperationalError as error:
                logger.error("ClickHouse command failed on the connection: %s", error)
                raise StoreUnavailable(
                    f"ClickHouse is not reachable: {clickhouse_errors.unreachable_reason(error)}"
                ) from error
            except ClickHouseError as error:
                raise clickhouse_errors.translate(error) from error

    def ping(self, timeout_seconds: float) -> None:
        """Answer `SELECT 1` within about `timeout_seconds` (readiness probes); raises StoreUnavailable.
        A server gets a client of its own with short timeouts, so a hanging server cannot hold the
        probe for the query time limit; the embedded engine answers in-process."""
        if self._config.is_embedded:
            self.internal_query("SELECT 1")
            return
        try:
            client = clickhouse_connect.get_client(
                **self._config.server_connect_kwargs(),
                connect_timeout=timeout_seconds,
                send_receive_timeout=timeout_seconds,
                autogenerate_session_id=False,
            )
            try:
                client.query("SELECT 1")
            finally:
                client.close()
        except (ClickHouseError, OSError) as error:
            raise StoreUnavailable(
                f"the ClickHouse server cannot be reached: {clickhouse_errors.unreachable_reason(error)}"
            ) from error

    def table_names(self) -> Sequence[str]:
        with self._handles.lease() as client:
            result = client.query(
                "SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name",
                parameters={"db": self._config.database},
            )
            return [row[0] for row in result.result_rows]

    def data_version(self) -> tuple[tuple[Any, ...], ...]:
        """A cheap fingerprint of the data: per table, its active parts' rows, count and newest
        modification time (ClickHouse's metadata, no table is read). Any insert, drop or recreation
        changes it (a background merge too, which only costs a cache miss)."""
        with self._handles.lease() as client:
            result = client.query(
                "SELECT table, sum(rows), count(), max(modification_time) FROM system.parts "
                "WHERE database = {db:String} AND active GROUP BY table ORDER BY table",
                parameters={"db": self._config.database},
            )
            return tuple(tuple(row) for row in result.result_rows)

    def scratch_client(self) -> Client:
        """A handle of its own for a caller that manages scratch databases (the equivalence checker's
        counterexamples); the caller closes it with `close_scratch_client`."""
        return self._open()

    def close_scratch_client(self, client: Client) -> None:
        self._close_handle(client)
