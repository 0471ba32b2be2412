"""Shared fixtures: a per-process chdb store with a small synthetic demo, and empty stores.

chdb runs one embedded server per process, on one data directory, so every xdist worker gets its own
temporary directory and everything in that worker (the Django store included) uses it. Empty stores
are separate databases inside that same directory.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

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
