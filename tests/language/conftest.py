"""Language engine fixtures: one LanguageContext over the shared demo store, pinned to a fixed 'today'."""

from __future__ import annotations

from datetime import date

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.market.store import MarketStore


@pytest.fixture(scope="session")
def language_context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store, today=date(2026, 11, 30))
