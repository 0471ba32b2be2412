"""Semantic-model browse, health, the market stats cache and the OpenAPI schema of the platform."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.core.cache import cache
from rest_framework.test import APIClient

from backend.apps.marketdata import selectors as market_selectors
from backend.apps.marketdata import store as django_store
from backend.domain.language.catalogue import default_catalogue
from backend.domain.language.semantic import default_model
from backend.domain.market.store import MarketStore
from tests.jobs.conftest import Person

pytestmark = pytest.mark.django_db


def test_the_semantic_model_lists_metrics_with_units_and_words(alice: Person) -> None:
    body = alice.client.get("/api/semantic/").json()

    model = default_model()
    assert body["version"] == model.version
    metrics = {metric["key"]: metric for metric in body["metrics"]}
    assert set(metrics) == set(model.metrics)
    total_mv = next(metric for metric in body["metrics"] if metric["column"] == "total_mv")
    assert total_mv["words"]["zh"] and total_mv["stored_unit"]
    assert "SSE" in body["exchanges"] and body["units"]["scale"]["亿"] == 1e8


def test_the_concept_catalogue_is_served_and_filtered(alice: Person) -> None:
    every = alice.client.get("/api/semantic/concepts/").json()
    planned = alice.client.get("/api/semantic/concepts/", {"status": "planned"}).json()

    assert [concept["key"] for concept in every] == [concept.key for concept in default_catalogue().concepts]
    assert planned and all(concept["status"] == "planned" for concept in planned)
    assert len(planned) < len(every)


def test_liveness_and_readiness_in_embedded_mode(demo_store: MarketStore) -> None:
    assert APIClient().get("/api/health/live/").json() == {"status": "ok", "checks": []}

    ready = APIClient().get("/api/health/ready/")

    assert ready.status_code == 200
    states = {check["name"]: check["state"] for check in ready.json()["checks"]}
    assert states == {"orm": "ok", "channel_layer": "ok", "broker": "skipped", "clickhouse": "ok"}


def test_readiness_is_503_naming_the_failed_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "CLICKHOUSE_URL", "clickhouse://default:@127.0.0.1:9")
    monkeypatch.setattr(django_store, "_store", None)

    ready = APIClient().get("/api/health/ready/")

    assert ready.status_code == 503 and ready.json()["status"] == "unavailable"
    [clickhouse] = [check for check in ready.json()["checks"] if check["name"] == "clickhouse"]
    assert clickhouse["state"] == "failed" and "StoreUnavailable" in clickhouse["detail"]


def test_market_stats_are_cached_and_answer_within_200_ms(
    demo_store: MarketStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.clear()
    client = APIClient()
    counted: list[int] = []
    original = market_selectors.collect_stats
    monkeypatch.setattr(market_selectors, "collect_stats", lambda store: counted.append(1) or original(store))

    first = client.get("/api/market/stats/")
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        cached = client.get("/api/market/stats/")
        timings.append((time.perf_counter() - started) * 1000)

    assert first.status_code == cached.status_code == 200 and first.json() == cached.json()
    assert first.json()["tables"][2]["rows"] > 0
    assert counted == [1] and sorted(timings)[2] <= 200, f"cached market stats took {timings} ms"


def test_new_data_changes_the_fingerprint_and_the_stats_are_counted_again(
    empty_store: MarketStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.clear()
    monkeypatch.setattr(settings, "CLICKHOUSE_DATABASE", empty_store.database)
    monkeypatch.setattr(django_store, "_store", None)
    client = APIClient()

    def trade_cal_rows() -> int:
        tables = client.get("/api/market/stats/").json()["tables"]
        return int(next(table["rows"] for table in tables if table["table"] == "trade_cal"))

    assert trade_cal_rows() == 0
    version = empty_store.data_version()
    empty_store.admin_command(
        f"INSERT INTO {empty_store.database}.trade_cal (exchange, cal_date, is_open) "
        "VALUES ('SSE', '2025-01-02', 1)"
    )

    assert empty_store.data_version() != version
    assert trade_cal_rows() == 1
    built = django_store._store
    if built is not None:
        built.close()
    cache.clear()
