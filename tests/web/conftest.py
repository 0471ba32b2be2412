"""Fixtures of the web API tests: a DRF client and a Django market store with chosen limits."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from backend.apps.marketdata import store as django_store
from backend.domain.market.store import MarketStore


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def django_store_with(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Rebuild the Django app's market store from changed settings, for one test.

    The store is cached per process; monkeypatch restores both the settings and the cached store.
    """

    def rebuild(**overrides: object) -> None:
        for name, value in overrides.items():
            monkeypatch.setattr(settings, name, value)
        monkeypatch.setattr(django_store, "_store", None)

    yield rebuild
    built = django_store._store
    if isinstance(built, MarketStore) and built is not None:
        built.close()
