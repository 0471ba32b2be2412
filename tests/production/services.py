"""The real PostgreSQL and Redis the production-mode tests run against.

Defaults are the local services `scripts/ensure-services.sh` starts; VERISCREEN_TEST_DATABASE_URL
and VERISCREEN_TEST_REDIS_URL point elsewhere. A service that is down FAILS the test, naming it:
CI must provide it, and a silent skip would hide a broken production path.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import psycopg
import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
POSTGRES_URL = os.environ.get("VERISCREEN_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("VERISCREEN_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
START_HINT = "start it with scripts/ensure-services.sh (make test does)"


def _where(url: str) -> str:
    """host:port only, so a password in the URL never reaches the test output."""
    parsed = urlparse(url)
    return f"{parsed.hostname}:{parsed.port}"


def require_postgres() -> None:
    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=5) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as error:
        pytest.fail(f"PostgreSQL at {_where(POSTGRES_URL)} is not reachable ({error}); {START_HINT}")


def require_redis() -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=5).ping()
    except redis.RedisError as error:
        pytest.fail(f"Redis at {_where(REDIS_URL)} is not reachable ({error}); {START_HINT}")


@contextmanager
def fresh_postgres_database() -> Iterator[str]:
    """A new, empty database on the test server; its URL is yielded and it is dropped afterwards."""
    require_postgres()
    name = f"veriscreen_prod_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunparse(urlparse(POSTGRES_URL)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def subprocess_environment(**overrides: str) -> dict[str, str]:
    """The current environment without test-only Django settings, plus `overrides`."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    environment["DJANGO_SETTINGS_MODULE"] = "backend.project.settings"
    environment.update(overrides)
    return environment
