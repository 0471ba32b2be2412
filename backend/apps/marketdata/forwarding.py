"""The terminal beside the server: commands that read the market store while `manage.py serve` runs.

In embedded mode one process owns the chdb directory (see backend/domain/market/ownership.py). A
command that reads data asks first: when a live VeriScreen server owns the directory, the command
sends the same request the browser would to that server's REST API over loopback HTTP and prints
the answer exactly as it prints its own; otherwise it claims the directory (a server started
meanwhile then refuses) and opens the store itself. With a ClickHouse server (CLICKHOUSE_URL) there is
nothing to own and every command runs locally.

This module is on the fast path of every forwarded command: it imports nothing heavy (no store, no
language engine), and the commands import those only when they run locally.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from backend.domain.market.config import StoreConfig
from backend.domain.market.ownership import DirectoryInUse, Owner, claim, server_or_claim

# A server that holds the directory but does not listen yet is still importing the app: wait for it.
SERVER_START_WAIT_SECONDS = 30.0
# The server stops a query at QUERY_MAX_EXECUTION_SECONDS itself; the margin covers queueing and
# translation, so the terminal only gives up on a server that no longer answers at all.
REPLY_MARGIN_SECONDS = 30.0


class ServerUnreachable(Exception):
    """The owning server could not be asked; the message is one line for the terminal."""


@dataclass(frozen=True)
class ServerReply:
    status: int
    body: dict[str, Any]

    @property
    def error(self) -> tuple[str, str] | None:
        """(code, message) of an `{error: {code, message}}` body."""
        detail = self.body.get("error")
        if self.status < 400 or not isinstance(detail, dict):
            return None
        return str(detail.get("code", "error")), str(detail.get("message", ""))


def embedded_directory() -> Path | None:
    """The chdb directory this process's settings point at; None with a ClickHouse server."""
    config = StoreConfig(url=settings.CLICKHOUSE_URL)
    # realpath: the URL chdb:////abs/dir names //abs/dir, which messages should show as /abs/dir.
    return Path(os.path.realpath(config.chdb_path)) if config.is_embedded else None


def _describe(owner: Owner) -> str:
    return f"the VeriScreen server that owns the market data (pid {owner.pid} on {owner.host}:{owner.port})"


def loopback_address(owner: Owner) -> str:
    """The address that reaches the server through the loopback interface only."""
    host = (owner.host or "").strip("[]")
    if host in {"", "localhost"}:
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None and address.is_loopback:
        return str(address)
    if address is not None and address.is_unspecified:
        return "::1" if address.version == 6 else "127.0.0.1"
    raise ServerUnreachable(
        f"{_describe(owner)} listens on {owner.host} only; the terminal reaches it through loopback: "
        "serve on 127.0.0.1 or 0.0.0.0"
    )


def ask_server(owner: Owner, method: str, path: str, payload: dict[str, Any] | None = None) -> ServerReply:
    """Send one API request to the owning server; its JSON answer whatever the HTTP status."""
    connection = http.client.HTTPConnection(
        loopback_address(owner),
        owner.port,
        timeout=settings.QUERY_MAX_EXECUTION_SECONDS + REPLY_MARGIN_SECONDS,
    )
    body = None if payload is None else json.dumps(payload).encode("utf-8")
    headers = {"Accept": "application/json", "Content-Type": "application/json"}
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read()
    except (OSError, http.client.HTTPException) as error:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        raise ServerUnreachable(f"cannot reach {_describe(owner)}: {reason}") from error
    finally:
        connection.close()
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ServerUnreachable(
            f"{_describe(owner)} answered {method} {path} with HTTP {response.status}, not JSON"
        )
    return ServerReply(response.status, data)


class TerminalCommand(BaseCommand):
    """A management command that works beside a running server on the same embedded data directory.

    `server_reply()` forwards one API request when a server owns the directory and returns None
    otherwise (the directory is then this process's, and the command reads the store itself).
    Commands that write call `claim_store()` instead: they never run beside a server.
    """

    # System checks import every URL and view, hence the language engine (seconds of start-up); the
    # server runs them when it starts.
    requires_system_checks: tuple[str, ...] = ()

    @cached_property
    def _server(self) -> Owner | None:
        directory = embedded_directory()
        if directory is None:
            return None
        try:
            return server_or_claim(directory, Owner.of_this_process(), SERVER_START_WAIT_SECONDS)
        except DirectoryInUse as refusal:
            raise CommandError(str(refusal)) from refusal

    def server_reply(
        self, method: str, path: str, payload: dict[str, Any] | None = None
    ) -> ServerReply | None:
        if self._server is None:
            return None
        try:
            return ask_server(self._server, method, path, payload)
        except ServerUnreachable as error:
            raise CommandError(str(error)) from error

    def claim_store(self) -> None:
        directory = embedded_directory()
        if directory is None:
            return
        try:
            claim(directory, Owner.of_this_process())
        except DirectoryInUse as refusal:
            raise CommandError(str(refusal)) from refusal
