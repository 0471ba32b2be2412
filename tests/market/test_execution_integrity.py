"""Every query's result belongs to that query alone, whatever happened to the queries before it or
beside it: row overflow, timeout, memory limit, cancellation, an exception while reading.

Before the fix, a query stopped by the row limit left its rows in the chdb handle's buffer and the
next query on the handle returned them in front of its own result.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.domain.market.config import QueryLimits, StoreConfig
from backend.domain.market.errors import (
    MemoryLimitExceeded,
    QueryCancelled,
    QueryFailed,
    QueryTimeout,
    ResultTooLarge,
)
from backend.domain.market.execution import AdmissionLimits, CancelToken, execution_context
from backend.domain.market.store import MarketStore

LIMITED_SECONDS = 2
OVER_LIMIT = "SELECT ts_code, trade_date FROM market.daily"
SLOW = "SELECT sum(sipHash64(number)) FROM numbers(20000000000)"
MEMORY_HUNGRY = "SELECT length(groupArray(number)) FROM numbers(50000000)"
# Small answers of different shapes and types: leaked rows would change their length or fail to decode.
PROBES = (
    "SELECT name FROM market.stock_basic WHERE ts_code = '600519.SH'",
    "SELECT count() AS n FROM market.stock_basic",
    "SELECT ts_code, close FROM market.daily ORDER BY trade_date DESC, ts_code LIMIT 7",
    "SELECT max(trade_date) AS last_day FROM market.daily",
)


def _store(chdb_url: str, seconds: int) -> MarketStore:
    return MarketStore(
        StoreConfig(
            url=chdb_url,
            limits=QueryLimits(
                max_execution_seconds=seconds, max_result_rows=100_000, max_memory_bytes=64 * 1024**2
            ),
            admission=AdmissionLimits(slots=4, per_requester=4, queue_limit=64),
        )
    )


@pytest.fixture
def limited(chdb_url: str, demo_store: MarketStore) -> Iterator[MarketStore]:
    store = _store(chdb_url, seconds=LIMITED_SECONDS)
    yield store
    store.close()


@pytest.fixture
def roomy(chdb_url: str, demo_store: MarketStore) -> Iterator[MarketStore]:
    """A longer time limit, so that on a loaded machine no query runs out of time waiting in line."""
    store = _store(chdb_url, seconds=4)
    yield store
    store.close()


@pytest.fixture
def alone(limited: MarketStore) -> dict[str, list[tuple[Any, ...]]]:
    """Each probe's answer on a store that has seen nothing else."""
    return {sql: limited.query(sql).rows for sql in PROBES}


def _cancel_after(seconds: float) -> Callable[[MarketStore], None]:
    def run(store: MarketStore) -> None:
        token = CancelToken()
        threading.Timer(seconds, token.cancel).start()
        with execution_context("canceller", token):
            store.query(SLOW)

    return run


def _raise_while_reading(store: MarketStore) -> None:
    original = store._execute

    def broken(*args: Any) -> Any:
        original(*args)
        raise RuntimeError("the reader failed half-way")

    store._execute = broken  # type: ignore[method-assign]
    try:
        store.query("SELECT ts_code FROM market.stock_basic LIMIT 40")
    finally:
        del store._execute


FAILURES: dict[str, tuple[Callable[[MarketStore], None], type[BaseException]]] = {
    "row overflow": (lambda store: store.query(OVER_LIMIT) and None, ResultTooLarge),
    "timeout": (lambda store: store.query(SLOW) and None, QueryTimeout),
    "memory limit": (lambda store: store.query(MEMORY_HUNGRY) and None, MemoryLimitExceeded),
    "cancelled while running": (_cancel_after(0.2), QueryCancelled),
    "exception while reading": (_raise_while_reading, RuntimeError),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_a_failed_query_leaves_nothing_for_the_next_one(
    limited: MarketStore, alone: dict[str, list[tuple[Any, ...]]], failure: str
) -> None:
    run_failure, expected = FAILURES[failure]
    for _ in range(3):
        discarded = limited.discarded_handles
        with pytest.raises(expected):
            run_failure(limited)
        assert limited.discarded_handles == discarded + 1, "a handle that failed must not be reused"
        for sql in PROBES:
            assert limited.query(sql).rows == alone[sql]


def test_cancellation_stops_the_running_query_promptly(limited: MarketStore) -> None:
    started = time.monotonic()
    with pytest.raises(QueryCancelled):
        _cancel_after(0.1)(limited)
    assert time.monotonic() - started < LIMITED_SECONDS * 0.75, "cancelled well before its time limit"


def test_a_cancelled_query_that_runs_out_of_time_is_reported_cancelled(
    limited: MarketStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The kill waits for a free handle; on a busy store the time limit may come first. The client asked
    # to stop the query, so it is reported cancelled, not timed out (seen under load in the mixed batch).
    monkeypatch.setattr(limited, "_kill", lambda query_id: None)
    with pytest.raises(QueryCancelled):
        _cancel_after(0.1)(limited)


def test_a_cancelled_context_starts_nothing(limited: MarketStore) -> None:
    token = CancelToken()
    token.cancel()
    with execution_context("gone", token), pytest.raises(QueryCancelled):
        limited.query(PROBES[0])


def test_queries_run_concurrently_beside_a_slow_one(limited: MarketStore) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        slow = pool.submit(copy_context().run, limited.query, SLOW)
        time.sleep(0.1)
        started = time.monotonic()
        assert limited.query(PROBES[1]).rows
        light_seconds = time.monotonic() - started
        with pytest.raises(QueryTimeout):
            slow.result(10)
    assert light_seconds < LIMITED_SECONDS / 2, (
        f"the light query waited for the slow one ({light_seconds:.2f} s)"
    )


KINDS = st.sampled_from([*PROBES, OVER_LIMIT, SLOW, "cancel"])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(KINDS, min_size=2, max_size=10))
def test_concurrent_mixed_queries_each_get_their_own_answer(
    roomy: MarketStore, alone: dict[str, list[tuple[Any, ...]]], batch: list[str]
) -> None:
    # One slow query at most: each holds a slot for the whole time limit.
    batch = [
        kind if kind != SLOW or index == batch.index(SLOW) else OVER_LIMIT for index, kind in enumerate(batch)
    ]

    def run(index: int, kind: str) -> object:
        try:
            if kind == "cancel":
                _cancel_after(0.1)(roomy)
                return "no error"
            with execution_context(f"client-{index}"):
                return roomy.query(kind).rows
        except QueryFailed as error:
            return type(error)

    with ThreadPoolExecutor(max_workers=len(batch)) as pool:
        outcomes = list(pool.map(run, range(len(batch)), batch))
    for kind, outcome in zip(batch, outcomes, strict=True):
        if kind in alone:
            assert outcome == alone[kind]
        elif kind == OVER_LIMIT:
            assert outcome is ResultTooLarge
        elif kind == SLOW:
            assert outcome is QueryTimeout
        else:
            assert outcome is QueryCancelled
