"""ClickHouse (the production path: a server over clickhouse-connect) unreachable or hanging, with real
loopback sockets: a closed port, and a server that accepts the connection and never answers.

What the user sees: the job ends (`done`, answer status `store_unavailable`) with a message that says
the market data cannot be read and why, naming no host or port; readiness answers 503 within seconds
naming the check. The job and its closing event are stored; no half-read result is shown.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.test import Client

from backend.apps.jobs import services
from backend.apps.jobs.models import Job, JobEvent
from backend.apps.marketdata import store as django_store
from backend.domain.market.config import QueryLimits, StoreConfig
from backend.domain.market.errors import StoreUnavailable
from backend.domain.market.store import MarketStore
from tests.jobs.conftest import SEED_QUESTION, Person

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A loopback TCP server that accepts every connection and never answers; yields its port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(32)
    listener.settimeout(0.2)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    listener.close()


@pytest.fixture
def server_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Django's store is rebuilt from settings.CLICKHOUSE_URL, as the test sets it."""
    monkeypatch.setattr(django_store, "_store", None)
    yield
    django_store._store = None


def _ask_and_run(person: Person) -> tuple[Job, float]:
    job_id = person.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]
    started = time.monotonic()
    services.run_job(job_id)
    return Job.objects.get(pk=job_id), time.monotonic() - started


def _events(job: Job) -> list[dict[str, object]]:
    return list(JobEvent.objects.filter(job=job).order_by("seq").values_list("payload", flat=True))


def test_clickhouse_refusing_connections_ends_the_job_with_a_clear_answer(
    alice: Person, held_jobs: list[int], server_store: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _closed_port()
    monkeypatch.setattr(settings, "CLICKHOUSE_URL", f"clickhouse://reader:secret@127.0.0.1:{port}")

    job, seconds = _ask_and_run(alice)

    assert (job.status, job.answer_status) == ("done", "store_unavailable")
    assert job.message == (
        "the market data cannot be read: the ClickHouse server cannot be reached right now: "
        "it refused the connection"
    )
    assert str(port) not in job.message and "secret" not in job.message
    assert seconds < 15
    # The market data could not be read, so no pipeline step ran: the stream is the closing event.
    [finished] = _events(job)
    assert (finished["type"], finished["seq"], finished["answer_status"]) == (
        "job_finished",
        1,
        "store_unavailable",
    )
    ready = Client().get("/api/health/ready/")
    assert ready.status_code == 503
    [clickhouse] = [check for check in ready.json()["checks"] if check["name"] == "clickhouse"]
    assert clickhouse["state"] == "failed" and str(port) not in clickhouse["detail"]


def test_a_clickhouse_server_that_never_answers_times_out_and_readiness_stays_quick(
    alice: Person,
    held_jobs: list[int],
    server_store: None,
    silent_server: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(settings, "CLICKHOUSE_URL", f"clickhouse://reader@127.0.0.1:{silent_server}")
    started = time.monotonic()
    ready = Client().get("/api/health/ready/")
    probe_seconds = time.monotonic() - started
    assert ready.status_code == 503 and probe_seconds < 10
    [clickhouse] = [check for check in ready.json()["checks"] if check["name"] == "clickhouse"]
    assert (
        clickhouse["detail"]
        == "StoreUnavailable: the ClickHouse server cannot be reached: it did not answer in time"
    )

    # The query path waits the query time limit plus the client's margin (30 s), then says so.
    monkeypatch.setattr(settings, "QUERY_MAX_EXECUTION_SECONDS", 1)
    job, seconds = _ask_and_run(alice)
    assert (job.status, job.answer_status) == ("done", "store_unavailable")
    assert job.message.endswith("cannot be reached right now: it did not answer in time")
    assert 30 <= seconds < 90
    assert _events(job)[-1]["type"] == "job_finished"


def test_a_store_on_a_closed_port_refuses_each_query_without_its_address() -> None:
    store = MarketStore(
        StoreConfig(
            url=f"clickhouse://reader@127.0.0.1:{_closed_port()}", limits=QueryLimits(max_execution_seconds=1)
        )
    )
    for _ in range(2):  # no handle is kept from a failed open: each query tries again
        with pytest.raises(StoreUnavailable, match="it refused the connection") as refused:
            store.query("SELECT 1")
        assert "127.0.0.1" not in str(refused.value)
