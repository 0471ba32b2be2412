"""Liveness and readiness.

Live: the process answers. Ready: the ORM database answers, a message goes through the channel layer,
the Celery broker accepts a connection (when jobs run on workers), ClickHouse answers a query —
except when jobs run on workers over an embedded chdb directory: only one process may open it and the
worker owns it, so the web process does not (the check says `skipped`) — and, when LLM_PROVIDER
names one, each model endpoint lists its models (`GET <base URL>/models` with the role's key; one
check per endpoint, naming the roles that use it).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal
from urllib.parse import urlparse

import httpx
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from kombu import Connection

from backend.apps.marketdata.store import get_market_store
from backend.domain.language.llm.settings import RoleSettings
from backend.domain.market.config import StoreConfig

CheckState = Literal["ok", "failed", "skipped"]
BROKER_TIMEOUT_SECONDS = 3.0
LLM_TIMEOUT_SECONDS = 3.0
CLICKHOUSE_TIMEOUT_SECONDS = 3.0
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"  # what the client calls when no base URL is set


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
    get_market_store().ping(CLICKHOUSE_TIMEOUT_SECONDS)
    return "embedded chdb" if StoreConfig(url=settings.CLICKHOUSE_URL).is_embedded else "ClickHouse server"


def _llm_endpoint(base_url: str, api_key: str) -> str:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    answer = httpx.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=LLM_TIMEOUT_SECONDS)
    where = urlparse(base_url).netloc
    if answer.status_code != 200:
        raise RuntimeError(f"{where} answered HTTP {answer.status_code} to GET /models")
    return f"{where} answers"


def _llm_checks() -> list[tuple[str, Callable[[], str]]]:
    """One check per distinct endpoint (base URL and key) of the configured roles."""
    if not settings.LLM_SETTINGS.uses_llm:
        return []
    endpoints: dict[tuple[str, str], list[RoleSettings]] = {}
    for role in settings.LLM_SETTINGS.roles.values():
        endpoints.setdefault((role.base_url or OPENAI_DEFAULT_BASE_URL, role.api_key), []).append(role)
    return [
        (f"llm:{','.join(role.role for role in roles)}", partial(_llm_endpoint, base_url, api_key))
        for (base_url, api_key), roles in endpoints.items()
    ]


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
        *(_run(name, check) for name, check in _llm_checks()),
    ]
