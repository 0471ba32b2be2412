"""The process-wide market store, built from Django settings on first use (never before a fork)."""

from __future__ import annotations

import threading

from django.conf import settings

from backend.apps.web.metrics import AdmissionMetrics
from backend.domain.market.config import QueryLimits, StoreConfig
from backend.domain.market.execution import AdmissionLimits
from backend.domain.market.store import MarketStore

_store: MarketStore | None = None
_lock = threading.Lock()


def store_config() -> StoreConfig:
    return StoreConfig(
        url=settings.CLICKHOUSE_URL,
        database=settings.CLICKHOUSE_DATABASE,
        cluster=settings.CLICKHOUSE_CLUSTER,
        limits=QueryLimits(
            max_execution_seconds=settings.QUERY_MAX_EXECUTION_SECONDS,
            max_result_rows=settings.QUERY_MAX_RESULT_ROWS,
            max_memory_bytes=settings.QUERY_MAX_MEMORY_BYTES,
        ),
        admission=AdmissionLimits(
            slots=settings.QUERY_MAX_CONCURRENCY,
            per_requester=settings.QUERY_PER_USER_RUNNING,
            queue_limit=settings.QUERY_QUEUE_LIMIT,
        ),
    )


def get_market_store() -> MarketStore:
    global _store
    with _lock:
        if _store is None:
            _store = MarketStore(store_config(), admission_observer=AdmissionMetrics())
        return _store
