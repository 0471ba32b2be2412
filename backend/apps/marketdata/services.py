"""Writes to the market store for the Django layer: thin calls into the domain packages."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from backend.apps.marketdata.store import get_market_store
from backend.domain.market.demo import DEFAULT_SEED, DemoSummary, generate_demo
from backend.domain.market.importers import sp500
from backend.domain.market.importers.loading import ensure_schema, row_counts
from backend.domain.market.importers.tushare import ImportSummary, import_tushare_file


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


def import_sp500_set(
    directory: Path | None = None, *, as_of: date | None = None, prices: Path | None = None
) -> sp500.Sp500Summary:
    """The bundled S&P 500 reference set (or the same files in `directory`), optionally with prices."""
    store = get_market_store()
    ensure_schema(store)
    return sp500.import_sp500(
        store, directory or sp500.REFERENCE_DIR, as_of=as_of or sp500.SNAPSHOT_AS_OF, prices=prices
    )
