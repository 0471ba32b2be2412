"""Calls run side by side on the process's kept threads, the caller one of the workers: results in the
order of the calls, at most `workers` at once, every call run, the caller's context on every thread,
and a pool busy with other runs never stalls a run."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from backend.domain.pipeline import side_by_side as module
from backend.domain.pipeline.side_by_side import side_by_side

_asker: contextvars.ContextVar[str] = contextvars.ContextVar("asker", default="nobody")


def _sleeping(seconds: float, value: int) -> Callable[[], int]:
    def call() -> int:
        time.sleep(seconds)
        return value

    return call


def test_results_come_in_the_order_of_the_calls_whatever_finishes_first() -> None:
    calls = [_sleeping(0.03 * (4 - n), n) for n in range(4)]
    assert side_by_side(calls, workers=3) == [0, 1, 2, 3]


def test_one_worker_runs_every_call_in_the_calling_thread() -> None:
    threads: list[int] = []

    def call() -> int:
        threads.append(threading.get_ident())
        return len(threads)

    assert side_by_side([call, call, call], workers=1) == [1, 2, 3]
    assert set(threads) == {threading.get_ident()}


def test_calls_run_at_the_same_time_and_never_more_than_workers() -> None:
    both = threading.Barrier(2, timeout=10)  # passes only when two calls run at once
    lock = threading.Lock()
    started, running, most = 0, 0, 0

    def call() -> None:
        nonlocal started, running, most
        with lock:
            started, running = started + 1, running + 1
            most, first_two = max(most, running), started <= 2
        if first_two:
            both.wait()
        time.sleep(0.02)
        with lock:
            running -= 1

    side_by_side([call] * 8, workers=2)
    assert most == 2


def test_every_call_runs_and_the_first_failure_in_order_propagates() -> None:
    ran: list[int] = []

    def call(n: int) -> Callable[[], int]:
        def run() -> int:
            ran.append(n)
            if n in (1, 2):
                raise ValueError(f"call {n}")
            return n

        return run

    with pytest.raises(ValueError, match="call 1"):
        side_by_side([call(n) for n in range(5)], workers=3)
    assert sorted(ran) == [0, 1, 2, 3, 4]


def test_helpers_see_the_callers_context() -> None:
    both = threading.Barrier(2, timeout=10)
    seen: list[tuple[int, str]] = []

    def call() -> None:
        both.wait()
        seen.append((threading.get_ident(), _asker.get()))

    token = _asker.set("analyst-7")
    try:
        side_by_side([call, call], workers=2)
    finally:
        _asker.reset(token)
    assert len({thread for thread, _ in seen}) == 2
    assert {asker for _, asker in seen} == {"analyst-7"}


@pytest.fixture
def busy_pool() -> Iterator[None]:
    """Every kept thread blocked by another run."""
    release = threading.Event()
    blockers = [module._shared_pool().submit(release.wait, 10) for _ in range(module.POOL_THREADS)]
    try:
        yield
    finally:
        release.set()
        for blocker in blockers:
            blocker.result()


def test_a_busy_pool_slows_a_run_but_never_stalls_it(busy_pool: None) -> None:
    started = time.perf_counter()
    assert side_by_side([_sleeping(0.01, n) for n in range(4)], workers=3) == [0, 1, 2, 3]
    assert time.perf_counter() - started < 5  # the caller ran them all; the blockers wait 10 s
