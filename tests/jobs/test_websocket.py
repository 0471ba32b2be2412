"""The job stream through the whole ASGI application (origin check, session/token auth, routing) with
channels.testing.WebsocketCommunicator: a client that connects late or reconnects gets every event in
order, each once; a client watching while the job runs gets the same."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator

from backend.apps.jobs import services
from backend.apps.jobs.consumers import CLOSE_TRY_AGAIN_LATER
from backend.project.asgi import application
from tests.jobs.conftest import SEED_QUESTION, Person

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

ORIGIN = (b"origin", b"http://127.0.0.1")


def communicator(job_id: int, token: str | None, after: int | None = None) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"authorization", f"Token {token}".encode())] if token else [])
    query = "" if after is None else f"?after={after}"
    return WebsocketCommunicator(application, f"/ws/jobs/{job_id}/{query}", headers=headers)


async def read_until_finished(client: WebsocketCommunicator, timeout: float = 120) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] != "job_finished":
        message = await client.receive_json_from(timeout=timeout)
        assert message["type"] == "event"
        events.append(message["event"])
    return events


def finished_job(person: Person) -> int:
    job_id = person.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]
    services.run_job(job_id)
    return int(job_id)


def test_a_late_client_gets_the_whole_history_in_order_and_a_reconnect_only_what_follows(
    demo_store: object, alice: Person, held_jobs: list[int]
) -> None:
    job_id = finished_job(alice)
    stored = alice.client.get(f"/api/jobs/{job_id}/events/").json()["events"]

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
        late = communicator(job_id, alice.token)
        connected, _ = await late.connect()
        assert connected
        history = await read_until_finished(late)
        nothing_more = await late.receive_nothing(timeout=0.3)
        await late.disconnect()
        again = communicator(job_id, alice.token, after=5)
        await again.connect()
        rest = await read_until_finished(again)
        await again.disconnect()
        return history, rest, nothing_more

    history, rest, nothing_more = asyncio.run(scenario())

    assert history == stored and nothing_more
    assert [event["seq"] for event in history] == list(range(1, len(stored) + 1))
    assert rest == stored[5:]


def test_clients_watching_a_running_job_get_every_event_once_in_order(
    demo_store: object, alice: Person, admin: Person, held_jobs: list[int]
) -> None:
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        early = communicator(job_id, alice.token)
        assert (await early.connect())[0]
        running = asyncio.create_task(asyncio.to_thread(services.run_job, job_id))
        first = [(await early.receive_json_from(timeout=60))["event"] for _ in range(3)]
        # The admin joins mid-run: stored history first, then the live events, no repeats.
        midway = communicator(job_id, admin.token)
        assert (await midway.connect())[0]
        early_events = first + await read_until_finished(early)
        midway_events = await read_until_finished(midway)
        await running
        await early.disconnect()
        await midway.disconnect()
        return early_events, midway_events

    early_events, midway_events = asyncio.run(scenario())

    stored = alice.client.get(f"/api/jobs/{job_id}/events/").json()["events"]
    assert early_events == midway_events == stored
    assert [event["seq"] for event in stored] == list(range(1, len(stored) + 1))


@pytest.mark.parametrize(("who", "code"), [("anonymous", 4401), ("bob", 4404)])
def test_only_the_owner_or_an_admin_may_watch(
    alice: Person, bob: Person, held_jobs: list[int], who: str, code: int
) -> None:
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]

    async def scenario() -> dict[str, Any]:
        client = communicator(job_id, bob.token if who == "bob" else None)
        await client.connect()
        closed = await client.receive_output(timeout=5)
        await client.disconnect()
        return closed

    assert asyncio.run(scenario()) == {"type": "websocket.close", "code": code}


def test_a_socket_from_a_foreign_origin_is_refused(alice: Person, held_jobs: list[int]) -> None:
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]

    async def scenario() -> bool:
        client = WebsocketCommunicator(
            application,
            f"/ws/jobs/{job_id}/",
            headers=[
                (b"origin", b"https://evil.example"),
                (b"authorization", f"Token {alice.token}".encode()),
            ],
        )
        connected, _ = await client.connect()
        await client.disconnect()
        return bool(connected)

    assert asyncio.run(scenario()) is False


@pytest.fixture
def unanswering_redis() -> Iterator[str]:
    """A loopback port whose connections are accepted (the kernel completes the handshake for a listening
    socket) and never answered: a Redis that hangs, as a restarting or overloaded one may."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"


def test_a_channel_layer_that_never_answers_gives_the_history_then_a_close_to_reconnect_on(
    demo_store: object, alice: Person, held_jobs: list[int], unanswering_redis: str, settings: Any
) -> None:
    job_id = finished_job(alice)
    stored = alice.client.get(f"/api/jobs/{job_id}/events/").json()["events"]
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": unanswering_redis, "socket_timeout": 30}]},
        }
    }
    settings.CHANNEL_LAYER_JOIN_TIMEOUT_SECONDS = 0.5

    async def scenario() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        client = communicator(job_id, alice.token)
        assert (await client.connect())[0]
        history = await read_until_finished(client, timeout=10)
        closed = await client.receive_output(timeout=10)
        await client.disconnect()
        return history, closed

    history, closed = asyncio.run(scenario())

    # Not a socket that stays silent until the layer's 30 s socket timeout: what is stored, then a close
    # the browser reconnects on (1013 is not one of its final codes).
    assert history == stored
    assert closed == {"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER}
