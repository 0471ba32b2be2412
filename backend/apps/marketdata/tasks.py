"""Celery tasks of the market app: thin wrappers around selectors and services."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from backend.apps.marketdata import services
from backend.apps.marketdata.selectors import run_console_query


@shared_task(name="marketdata.run_guarded_query")
def run_guarded_query(sql: str) -> dict[str, Any]:
    """Run one analyst statement through the guard and the limits on this worker's market store.

    Returns JSON-safe `columns`, `rows` and `elapsed_ms`; a refused or failing statement raises the
    store's MarketError, which Celery hands back to the caller.
    """
    result = run_console_query(sql)
    return {"columns": result.columns, "rows": result.rows, "elapsed_ms": result.elapsed_ms}


@shared_task(name="marketdata.sync_market")
def sync_market() -> dict[str, Any]:
    """The scheduled daily sync (settings.CELERY_BEAT_SCHEDULE) from MARKET_SYNC_SOURCE: rows written
    and added per table."""
    report = services.sync_market(source=settings.MARKET_SYNC_SOURCE)
    return {
        "source": report.source,
        "rows": {table: synced.rows for table, synced in report.tables.items()},
        "added": report.added,
    }
