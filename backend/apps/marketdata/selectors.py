"""Reads of market data for the REST layer: thin calls into the domain store, JSON-safe output."""

from __future__ import annotations

import hashlib
import logging
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import DatabaseError

from backend.apps.marketdata.models import MarketSync
from backend.apps.marketdata.store import get_market_store
from backend.domain.market.stats import TableStats, collect_stats
from backend.domain.market.store import MarketStore

logger = logging.getLogger(__name__)


def json_cell(value: Any) -> Any:
    """One result cell as a strict-JSON value (dates as ISO text, NaN/inf as null)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return json_cell(float(value))
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, list | tuple | set):
        return [json_cell(item) for item in value]
    if isinstance(value, dict):
        return {str(key): json_cell(item) for key, item in value.items()}
    return value


def json_rows(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    return [[json_cell(cell) for cell in row] for row in rows]


@dataclass(frozen=True)
class TableResult:
    columns: list[str]
    column_types: list[str]
    rows: list[list[Any]]
    elapsed_ms: float

    @property
    def row_count(self) -> int:
        return len(self.rows)


def run_console_query(sql: str) -> TableResult:
    """One analyst statement through the guard and the store's limits (raises MarketError)."""
    result = get_market_store().query(sql)
    return TableResult(
        columns=result.columns,
        column_types=result.column_types,
        rows=json_rows(result.rows),
        elapsed_ms=round(result.elapsed_ms, 3),
    )


@dataclass(frozen=True)
class DatasetInfo:
    dataset: str
    synthetic: bool
    description: str
    licence: str
    loaded_at: datetime


@dataclass(frozen=True)
class MarketOverview:
    database: str
    tables: list[TableStats]
    datasets: list[DatasetInfo]
    last_sync: MarketSync | None = None

    @property
    def synthetic(self) -> bool:
        return any(dataset.synthetic for dataset in self.datasets)


def dataset_infos(store: MarketStore) -> list[DatasetInfo]:
    """Provenance rows of the loaded data; none when the schema has not been created yet."""
    if "dataset_info" not in store.table_names():
        return []
    result = store.internal_query(
        f"SELECT dataset, synthetic, description, licence, loaded_at FROM {store.database}.dataset_info "
        "ORDER BY dataset"
    )
    return [
        DatasetInfo(str(name), bool(synthetic), str(description), str(licence), loaded_at)
        for name, synthetic, description, licence, loaded_at in result.rows
    ]


def market_overview() -> MarketOverview:
    """Counted once per state of the data (seconds on a large store), then answered from the cache
    for as long as the data's fingerprint (MarketStore.data_version) stays the same."""
    store = get_market_store()
    version = hashlib.sha256(repr((store.database, store.data_version())).encode()).hexdigest()
    key = f"market-overview:{version}"
    overview = cache.get(key)
    if not isinstance(overview, MarketOverview):
        overview = MarketOverview(
            database=store.database, tables=collect_stats(store), datasets=dataset_infos(store)
        )
        cache.set(key, overview, timeout=None)
    # Not cached: a failed sync changes no market data but is news for the status page.
    try:
        last_sync = MarketSync.objects.first()
    except DatabaseError:
        # The market data is described without the application database; only the sync record is not.
        logger.warning("the last market sync cannot be read from the application database", exc_info=True)
        last_sync = None
    return replace(overview, last_sync=last_sync)
