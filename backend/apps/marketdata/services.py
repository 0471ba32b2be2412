"""Writes to the market store for the Django layer: thin calls into the domain packages."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from django.conf import settings

from backend.apps.marketdata.store import get_market_store
from backend.domain.market.demo import DEFAULT_SEED, DemoSummary, generate_demo
from backend.domain.market.importers import sp500
from backend.domain.market.importers.loading import ensure_schema, row_counts
from backend.domain.market.importers.tushare import ImportSummary, import_tushare_file
from backend.domain.market.sync import transport
from backend.domain.market.sync.errors import SyncFailed
from backend.domain.market.sync.plan import SYNC_TABLES
from backend.domain.market.sync.progress import Progress
from backend.domain.market.sync.runner import SyncReport, run_sync
from backend.domain.market.sync.tushare import TushareClient, TushareSource


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


def sync_market(
    *,
    source: str = "tushare",
    since: date | None = None,
    tables: Sequence[str] = SYNC_TABLES,
    progress: Progress | None = None,
) -> SyncReport:
    """Fetch the real A-share data the store is missing from `source` (settings: TUSHARE_TOKEN)."""
    if source != "tushare":
        raise SyncFailed(f"unknown sync source {source!r}; available: tushare")
    client = TushareClient(settings.TUSHARE_TOKEN, post=transport.urllib_post)
    return run_sync(get_market_store(), TushareSource(client), tables=tables, since=since, progress=progress)
