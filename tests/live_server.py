"""A real VeriScreen server process (daphne, the ASGI application) on a loopback port, with its own
data directory holding a small synthetic demo market. For tests that must go through the real
server: HTTP parsing, the ASGI disconnect path, threads per request, one process owning chdb."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def server_environment(data_dir: Path, **overrides: str) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    environment.update(
        DJANGO_SETTINGS_MODULE="backend.project.settings",
        VERISCREEN_DATA_DIR=str(data_dir),
        CLICKHOUSE_URL=f"chdb://{data_dir / 'chdb'}",
        DATABASE_URL=f"sqlite:///{data_dir / 'veriscreen.sqlite3'}",
    )
    environment.pop("REDIS_URL", None)
    environment.update(overrides)
    return environment


def load_demo(data_dir: Path, stocks: int) -> None:
    """Schema, tables and a small demo market in `data_dir` (run before the server owns it)."""
    environment = server_environment(data_dir)
    for arguments in (
        ["migrate", "--noinput", "-v", "0"],
        ["market", "init"],
        ["market", "generate", "--stocks", str(stocks)],
    ):
        done = subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {' '.join(arguments)} failed: {done.stderr[-2000:]}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass(frozen=True)
class LiveServer:
    port: int
    data_dir: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        payload: dict[str, Any] | None = None,
        cookie: str = "",
        timeout: float = 60,
    ) -> Reply:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if cookie:
            request.add_header("Cookie", cookie)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return Reply(response.status, dict(response.headers), json.loads(response.read()))
        except urllib.error.HTTPError as error:
            return Reply(error.code, dict(error.headers), json.loads(error.read()))


@contextmanager
def running_server(data_dir: Path, **settings: str) -> Iterator[LiveServer]:
    port = free_port()
    log_path = data_dir / "server.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "backend.project.asgi:application",
            ],
            cwd=ROOT,
            env=server_environment(data_dir, **settings),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        server = LiveServer(port, data_dir)
        try:
            _wait_until_serving(server, process, log_path)
            yield server
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def _wait_until_serving(server: LiveServer, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited at start: {log_path.read_text()[-2000:]}")
        try:
            if server.request("GET", "/api/market/stats/", timeout=5).status == 200:
                return
        except (OSError, json.JSONDecodeError):
            time.sleep(0.2)
    raise RuntimeError(f"the server did not answer within 60 s: {log_path.read_text()[-2000:]}")
