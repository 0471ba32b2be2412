"""Writes to the market store for the Django layer: thin calls into the domain packages."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from backend.apps.marketdata.models import MarketSync
from backend.apps.marketdata.store import get_market_store
from backend.domain.market.demo import DEFAULT_SEED, DemoSummary, generate_demo
from backend.domain.market.importers import sp500
from backend.domain.market.importers.loading import ensure_schema, row_counts
from backend.domain.market.importers.tushare import ImportSummary, import_tushare_file
from backend.domain.market.sync import akshare, transport
from backend.domain.market.sync.errors import SyncFailed
from backend.domain.market.sync.plan import SYNC_SOURCES, SYNC_TABLES
from backend.domain.market.sync.progress import Progress
from backend.domain.market.sync.runner import Source, SyncReport, run_sync
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


def sync_source(name: str, progress: Progress | None = None) -> Source:
    """The named source, configured from settings (TUSHARE_TOKEN; AKShare needs its package)."""
    if name == "tushare":
        return TushareSource(TushareClient(settings.TUSHARE_TOKEN, post=transport.urllib_post))
    if name == "akshare":
        return akshare.AkshareSource(akshare.akshare_call(), progress=progress)
    raise SyncFailed(f"unknown sync source {name!r}; available: {', '.join(SYNC_SOURCES)}")


def sync_market(
    *,
    source: str = "tushare",
    since: date | None = None,
    tables: Sequence[str] = SYNC_TABLES,
    progress: Progress | None = None,
) -> SyncReport:
    """Fetch the real A-share data the store is missing from `source`; every run, failed or not, leaves
    a MarketSync row (the data status page's last sync)."""
    started = timezone.now()
    try:
        report = run_sync(
            get_market_store(), sync_source(source, progress), tables=tables, since=since, progress=progress
        )
    except Exception as error:
        MarketSync.objects.create(
            source=source, started_at=started, finished_at=timezone.now(), succeeded=False, error=str(error)
        )
        raise
    MarketSync.objects.create(
        source=source,
        started_at=started,
        finished_at=timezone.now(),
        succeeded=True,
        rows_written=report.rows_written,
        rows_added=report.rows_added,
        tables={
            table: {"written": synced.rows, "added": report.added[table]}
            for table, synced in report.tables.items()
        },
    )
    return report
