"""Recorded Tushare replies and a network fence for the sync tests.

`RecordedTushare` answers each request from tests/market/fixtures/sync/<api>__<param>-<value>….json
(written by hand in Tushare Pro's exact reply format) and fails the test on a request nothing was
recorded for. `fence_network` fails any test that opens a socket to an address outside loopback.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "sync"
TOKEN = "recorded-test-token"


def fixture_name(api_name: str, params: dict[str, str]) -> str:
    return api_name + "".join(f"__{key}-{value}" for key, value in sorted(params.items())) + ".json"


@dataclass
class RecordedTushare:
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def __call__(self, url: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert payload["token"] == TOKEN
        path = FIXTURES / fixture_name(payload["api_name"], payload["params"])
        assert path.is_file(), f"no recorded reply for {payload['api_name']} {payload['params']}"
        reply: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        assert set(payload["fields"].split(",")) >= set(reply["data"]["fields"]), "asked for fewer fields"
        self.requests.append((payload["api_name"], payload["params"]))
        return reply


def _is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address and isinstance(address[0], str):
        host = address[0]
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False  # a host name: resolving it already means leaving the machine
    return isinstance(address, str | bytes)  # AF_UNIX paths stay on the machine


class OffLoopback(OSError):
    pass


@contextmanager
def fence_network() -> Iterator[list[object]]:
    """Refuse (and record) every connection outside loopback while the block runs."""
    attempts: list[object] = []
    original_connect, original_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def check(address: object) -> None:
        if not _is_loopback(address):
            attempts.append(address)
            raise OffLoopback(f"test tried to reach {address!r} outside loopback")

    def connect(self: socket.socket, address: Any) -> None:
        check(address)
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return original_connect_ex(self, address)

    setattr(socket.socket, "connect", connect)  # noqa: B010 — patching a method the stubs type strictly
    setattr(socket.socket, "connect_ex", connect_ex)  # noqa: B010
    try:
        yield attempts
    finally:
        setattr(socket.socket, "connect", original_connect)  # noqa: B010
        setattr(socket.socket, "connect_ex", original_connect_ex)  # noqa: B010
