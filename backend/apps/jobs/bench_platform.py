"""What a benchmark command needs to run the platform on loopback: manage.py steps, servers and
workers (each with its log, stopped with SIGINT, then killed, when the benchmark ends), and users."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import IO

import httpx
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import CommandError

from backend.apps.accounts.services import create_user, issue_token


def run_manage(*arguments: str, environment: Mapping[str, str] | None = None) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=settings.BASE_DIR,
        env=dict(environment) if environment is not None else None,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise CommandError(f"manage.py {' '.join(arguments)} failed: {done.stderr[-2000:]}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running(
    arguments: list[str], log: IO[str], environment: Mapping[str, str] | None = None
) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        arguments,
        cwd=settings.BASE_DIR,
        env=dict(environment if environment is not None else os.environ),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_ready(base_url: str, process: subprocess.Popen[str], deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CommandError(f"the server exited with {process.returncode}; see its log")
        try:
            if httpx.get(base_url + "/api/health/live/", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise CommandError("the server did not answer in time")


def analyst_tokens(prefix: str, users: int) -> list[str]:
    """REST tokens of `users` analysts named <prefix>-<n>, created when missing."""
    tokens = []
    for number in range(users):
        name = f"{prefix}-{number}"
        user = User.objects.filter(username=name).first() or create_user(
            name, secrets.token_urlsafe(16), "analyst"
        )
        tokens.append(issue_token(user))
    return tokens
