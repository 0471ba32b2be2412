"""Differential concurrency test against the real server: many clients at once send a mix of normal
queries, queries over the row limit, queries that run past the time limit and queries whose client
disconnects; every answer must equal the same query's answer when it runs alone.

Before the fix, a query stopped by the row limit handed its leftover rows to the next query."""

from __future__ import annotations

import json
import random
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.live_server import LiveServer, Reply, load_demo, running_server

pytestmark = pytest.mark.xdist_group("live-server")

ROW_LIMIT = 20_000
# Generous, so that a normal query never runs out of time in the queue on a loaded 2-core machine.
TIME_LIMIT_SECONDS = 10
NORMAL = (
    "SELECT name FROM market.stock_basic WHERE ts_code = '600519.SH'",
    "SELECT count() AS stocks FROM market.stock_basic",
    "SELECT ts_code, close FROM market.daily ORDER BY trade_date DESC, ts_code LIMIT 25",
    "SELECT exchange, count() AS n FROM market.stock_basic GROUP BY exchange ORDER BY exchange",
    "SELECT max(trade_date) AS last_day, min(trade_date) AS first_day FROM market.daily",
    "SELECT ts_code, pe FROM market.daily_basic WHERE pe > 0 ORDER BY pe, ts_code, trade_date LIMIT 40",
)
OVER_LIMIT = "SELECT ts_code FROM market.daily"
# Runs past any time limit on one core (numbers() is a single stream). Batches hold at most two at a
# time, leaving CPU for the others: what is tested is isolation, not what two cores can carry.
SLOW = "SELECT sum(sipHash64(number)) FROM numbers(50000000000)"
MAX_SLOW = 2
DISCONNECT = "disconnect"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir: Path = tmp_path_factory.mktemp("live-server")
    load_demo(data_dir, stocks=120)
    with running_server(
        data_dir,
        QUERY_MAX_RESULT_ROWS=str(ROW_LIMIT),
        QUERY_MAX_EXECUTION_SECONDS=str(TIME_LIMIT_SECONDS),
        QUERY_MAX_CONCURRENCY="6",
        QUERY_PER_USER_RUNNING="3",
        QUERY_QUEUE_LIMIT="200",
    ) as live:
        yield live


@pytest.fixture(scope="module")
def alone(server: LiveServer) -> dict[str, tuple[int, object]]:
    """Each query's answer with nothing else running: (status, rows or error code)."""
    return {
        sql: _outcome(server.request("POST", "/api/sql/", {"sql": sql}, cookie="alone=1"))
        for sql in (*NORMAL, OVER_LIMIT)
    }


def _outcome(reply: Reply) -> tuple[int, object]:
    if reply.status == 200:
        return 200, (reply.body["columns"], reply.body["rows"])
    return reply.status, reply.body["error"]["code"]


def _disconnecting_client(server: LiveServer, after_seconds: float) -> None:
    """Send a slow query, then hang up before the answer."""
    body = json.dumps({"sql": SLOW}).encode()
    head = (
        f"POST /api/sql/ HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nCookie: gone={random.random()}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(head + body)
        time.sleep(after_seconds)


def _run(server: LiveServer, index: int, kind: str) -> tuple[int, object] | None:
    if kind == DISCONNECT:
        _disconnecting_client(server, after_seconds=0.3)
        return None
    return _outcome(server.request("POST", "/api/sql/", {"sql": kind}, cookie=f"client={index}"))


def _check_batch(server: LiveServer, alone: dict[str, tuple[int, object]], batch: list[str]) -> None:
    with ThreadPoolExecutor(max_workers=len(batch)) as pool:
        outcomes = list(pool.map(lambda item: _run(server, *item), enumerate(batch)))
    for kind, outcome in zip(batch, outcomes, strict=True):
        if kind in alone:
            assert outcome == alone[kind], f"{kind!r} answered differently beside other queries"
        elif kind == SLOW:
            assert outcome == (504, "query_timeout")


def test_the_alone_answers_are_what_the_limits_say(alone: dict[str, tuple[int, object]]) -> None:
    assert alone[OVER_LIMIT] == (413, "result_too_large")
    assert all(alone[sql][0] == 200 for sql in NORMAL)


def test_sixty_concurrent_clients_each_get_their_own_answer(
    server: LiveServer, alone: dict[str, tuple[int, object]]
) -> None:
    batch = [*NORMAL * 7, *[OVER_LIMIT] * 10, *[SLOW] * MAX_SLOW, OVER_LIMIT, *[DISCONNECT] * 5]
    random.Random(7).shuffle(batch)
    assert len(batch) == 60
    _check_batch(server, alone, batch)


def test_disconnected_clients_do_not_hold_the_store(server: LiveServer) -> None:
    """Six hung-up slow queries would fill all six slots for the full time limit if they kept running."""
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda _: _disconnecting_client(server, after_seconds=0.3), range(6)))
    started = time.monotonic()
    reply = server.request("POST", "/api/sql/", {"sql": NORMAL[1]}, cookie="after=1")
    assert reply.status == 200
    assert time.monotonic() - started < TIME_LIMIT_SECONDS / 2, "the hung-up queries kept running"


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(st.sampled_from([*NORMAL, OVER_LIMIT, SLOW, DISCONNECT]), min_size=2, max_size=14))
def test_any_mix_of_concurrent_queries_keeps_answers_apart(
    server: LiveServer, alone: dict[str, tuple[int, object]], batch: list[str]
) -> None:
    # One slow query at most (each holds a slot for the whole time limit), so that no normal query can
    # run out of time in the queue (that is a clean 504, but not the same answer as alone).
    slow_ones = [index for index, kind in enumerate(batch) if kind == SLOW]
    for index in slow_ones[1:]:
        batch[index] = OVER_LIMIT
    _check_batch(server, alone, batch)
