"""Writes to the market store for the Django layer: thin calls into the domain packages."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from backend.apps.marketdata.store import get_market_store
from backend.domain.market.demo import DEFAULT_SEED, DemoSummary, generate_demo
from backend.domain.market.importers.loading import ensure_schema, row_counts
from backend.domain.market.importers.sp500 import Sp500Summary, import_sp500
from backend.domain.market.importers.tushare import ImportSummary, import_tushare_file


def default_sp500_dir() -> Path:
    """The shared us_sp500 folder next to the repository (override with VERISCREEN_SP500_DIR)."""
    configured = os.environ.get("VERISCREEN_SP500_DIR", "")
    return Path(configured) if configured else Path(settings.BASE_DIR).parent / "shared/data/market/us_sp500"


def init_market_schema() -> None:
    ensure_schema(get_market_store())


def market_is_empty() -> bool:
    store = get_market_store()
    ensure_schema(store)
    return not any(row_counts(store).values())


def generate_demo_market(
    *, seed: int = DEFAULT_SEED, n_stocks: int | None = None, replace: bool = False
) -> DemoSummary:
    return generate_demo(get_market_store(), seed=seed, n_stocks=n_stocks, replace=replace)


def import_tushare(table: str, path: Path) -> ImportSummary:
    store = get_market_store()
    ensure_schema(store)
    return import_tushare_file(store, table, path)


def import_sp500_set(directory: Path | None = None) -> Sp500Summary:
    store = get_market_store()
    ensure_schema(store)
    return import_sp500(store, directory or default_sp500_dir())
