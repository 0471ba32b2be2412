"""A production service that is down fails the test and names the service, never a silent skip."""

from __future__ import annotations

import pytest

from tests.production import services


def test_unreachable_redis_fails_naming_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "REDIS_URL", "redis://127.0.0.1:1/0")
    with pytest.raises(pytest.fail.Exception, match=r"Redis at 127\.0\.0\.1:1 is not reachable"):
        services.require_redis()


def test_unreachable_postgres_fails_naming_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "POSTGRES_URL", "postgres://postgres@127.0.0.1:1/postgres")
    with pytest.raises(pytest.fail.Exception, match=r"PostgreSQL at 127\.0\.0\.1:1 is not reachable"):
        services.require_postgres()
