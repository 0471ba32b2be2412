"""The process's embedded ClickHouse (chdb): one data directory per process, shared by every user.

chdb runs a single embedded server per process: once a directory is open, opening another one fails
("EmbeddedServer already initialized") until every handle on the first is closed. The market store
and scratch users (the equivalence checker's counterexample databases) therefore open handles here:
several handles on the open directory are fine, a different directory is refused with a clear error
while any handle is open, and the state never crosses a fork.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import clickhouse_connect
from clickhouse_connect.driver.client import Client

from backend.domain.market.errors import StoreUnavailable


@dataclass
class _EmbeddedServer:
    pid: int | None = None
    path: str | None = None
    handles: int = 0


_lock = threading.Lock()
_server = _EmbeddedServer()


def _reset_after_fork() -> None:
    if _server.pid != os.getpid():
        _server.pid, _server.path, _server.handles = os.getpid(), None, 0


def open_embedded(path: str) -> Client:
    """A new client handle on the embedded server at `path` (created if missing)."""
    with _lock:
        _reset_after_fork()
        if _server.path is not None and _server.path != path:
            raise StoreUnavailable(
                f"this process already runs embedded ClickHouse on {_server.path}; chdb allows one data "
                f"directory per process, so {path} cannot be opened beside it"
            )
        os.makedirs(path, exist_ok=True)
        client = clickhouse_connect.get_client(dsn=f"chdb://{path}")
        _server.path = path
        _server.handles += 1
        return client


def close_embedded(client: Client) -> None:
    with _lock:
        _reset_after_fork()
        client.close()
        _server.handles = max(_server.handles - 1, 0)
        if _server.handles == 0:
            _server.path = None


def current_embedded_path() -> str | None:
    """The directory this process's embedded server runs on, if a handle is open."""
    with _lock:
        _reset_after_fork()
        return _server.path
