"""Shared fixtures: a per-process chdb store with a small synthetic demo, and empty stores.

chdb runs one embedded server per process, on one data directory, so every xdist worker gets its own
temporary directory and everything in that worker (the Django store included) uses it. Empty stores
are separate databases inside that same directory.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend.domain.market.config import StoreConfig
from backend.domain.market.demo import generate_demo
from backend.domain.market.importers.loading import ensure_schema
from backend.domain.market.store import MarketStore

DEMO_STOCKS = 300
DEMO_SEED = 20250908


@pytest.fixture(scope="session")
def chdb_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The chdb URL owned by this test process (never the developer's var/ directory)."""
    directory: Path = tmp_path_factory.mktemp("chdb")
    return f"chdb://{directory}"


@pytest.fixture(scope="session", autouse=True)
def _django_market_store_in_temp_dir(chdb_url: str) -> Iterator[None]:
    """Point Django's market store at this process's chdb directory for the whole session."""
    from django.conf import settings

    from backend.apps.marketdata import store as django_store

    previous = settings.CLICKHOUSE_URL
    settings.CLICKHOUSE_URL = chdb_url
    django_store._store = None
    yield
    settings.CLICKHOUSE_URL = previous
    django_store._store = None


class _LazyClient:
    """A client that opens this process's store on first use (never at session start, so that a
    test forking before any query does not inherit an open chdb engine)."""

    def __init__(self, store: MarketStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store.client(), name)


@pytest.fixture(scope="session", autouse=True)
def _equivalence_validator_on_the_same_engine(chdb_url: str) -> Iterator[None]:
    """chdb runs one engine path per process: the equivalence checker's ClickHouse validator would open
    a private directory and lock every later store out (and vice versa). Its documented way to share
    the process's engine is a client; hand it this process's (lazily opened) client for the session.
    """
    from backend.domain.equivalence.validate import ChdbValidator

    ChdbValidator._clients[os.getpid()] = _LazyClient(MarketStore(StoreConfig(url=chdb_url)))
    yield
    ChdbValidator._clients.pop(os.getpid(), None)


@pytest.fixture(scope="session")
def demo_store(chdb_url: str) -> MarketStore:
    """A store (database `market`) loaded with a ~300-stock demo over the full default date range.

    Read-only by convention: tests that write must use `empty_store`.
    """
    store = MarketStore(StoreConfig(url=chdb_url))
    generate_demo(store, seed=DEMO_SEED, n_stocks=DEMO_STOCKS)
    return store


@pytest.fixture
def empty_store(chdb_url: str) -> Iterator[MarketStore]:
    """A fresh database with the canonical schema and no rows, dropped afterwards."""
    store = MarketStore(StoreConfig(url=chdb_url, database=f"empty_{uuid.uuid4().hex[:12]}"))
    ensure_schema(store)
    yield store
    store.admin_command(f"DROP DATABASE IF EXISTS {store.database}")
