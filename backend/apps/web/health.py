"""Liveness and readiness.

Live: the process answers. Ready: the ORM database answers, a message goes through the channel layer,
the Celery broker accepts a connection (when jobs run on workers), and ClickHouse answers a query —
except when jobs run on workers over an embedded chdb directory: only one process may open it and the
worker owns it, so the web process does not (the check says `skipped`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from kombu import Connection

from backend.apps.marketdata.store import get_market_store
from backend.domain.market.config import StoreConfig

CheckState = Literal["ok", "failed", "skipped"]
BROKER_TIMEOUT_SECONDS = 3.0


@dataclass(frozen=True)
class CheckOutcome:
    name: str
    state: CheckState
    detail: str
    ms: float


def _orm() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def _channel_layer() -> str:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    channel = async_to_sync(layer.new_channel)()
    token = uuid.uuid4().hex
    async_to_sync(layer.send)(channel, {"type": "health.ping", "token": token})
    message = async_to_sync(layer.receive)(channel)
    if message.get("token") != token:
        raise RuntimeError("the channel layer returned another message")
    return type(layer).__name__


def _broker() -> str:
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=BROKER_TIMEOUT_SECONDS) as broker:
        broker.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
        return str(broker.transport_cls)


def _clickhouse() -> str:
    get_market_store().internal_query("SELECT 1")
    return "embedded chdb" if StoreConfig(url=settings.CLICKHOUSE_URL).is_embedded else "ClickHouse server"


def _run(name: str, check: Callable[[], str], skip_reason: str = "") -> CheckOutcome:
    if skip_reason:
        return CheckOutcome(name, "skipped", skip_reason, 0.0)
    started = time.perf_counter()
    try:
        detail = check()
        state: CheckState = "ok"
    except Exception as error:  # a readiness check reports any failure instead of raising it
        detail, state = (
            f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
            "failed",
        )
    return CheckOutcome(name, state, detail, round((time.perf_counter() - started) * 1000, 3))


def readiness() -> list[CheckOutcome]:
    on_workers = settings.JOB_RUNNER == "celery"
    embedded = StoreConfig(url=settings.CLICKHOUSE_URL).is_embedded
    return [
        _run("orm", _orm),
        _run("channel_layer", _channel_layer),
        _run("broker", _broker, "" if on_workers else "jobs run in this process (JOB_RUNNER=threads)"),
        _run(
            "clickhouse",
            _clickhouse,
            "the Celery worker owns the embedded market data" if on_workers and embedded else "",
        ),
    ]
