"""Independent calls run side by side (the reverse checks, a round of probes) on threads the process
keeps, the calling thread working through them too.

A pool made for each run started its threads one by one, on the run's clock: `Thread.start()` waits
until the new thread has run, and on a loaded machine that thread waited for a core and then for the
GIL held by the worker already guarding its query — the last check of a run started tens of
milliseconds late (measured: benchmarks/validation/results/README.md). The threads kept here are idle
and waiting when a run comes: the run only hands them its calls.

The calling thread takes calls as well, so a run never waits for a thread to wake before its first
query, and a pool busy with other runs (several asks at once) slows a run down but never stalls it:
the caller finishes every call no helper took. At most `workers` calls of one run are in flight.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

POOL_THREADS = 8  # shared by every run of the process; a run holds at most its `workers` - 1 of them

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=POOL_THREADS, thread_name_prefix="side-by-side")
        return _pool


def _forget_pool() -> None:
    # A forked child has none of the parent's threads: it starts a pool of its own when it needs one.
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def side_by_side(calls: Sequence[Callable[[], T]], workers: int) -> list[T]:
    """Every call's result, in the order of `calls`, at most `workers` running at a time (1: one
    after another in the calling thread). Every call runs even when one raises; the first exception
    in the order of `calls` then propagates. Helpers run in a copy of the caller's context, so the
    store sees its requester, deadline and cancellation on every thread."""
    if workers <= 1 or len(calls) <= 1:
        return [call() for call in calls]
    taken = iter(range(len(calls)))
    take_lock = threading.Lock()
    results: dict[int, T] = {}
    errors: list[Exception | None] = [None] * len(calls)

    def work() -> None:
        while True:
            with take_lock:
                index = next(taken, None)
            if index is None:
                return
            try:
                results[index] = calls[index]()
            except Exception as error:  # kept for the caller, in the order of the calls
                errors[index] = error

    pool = _shared_pool()
    helpers: list[Future[None]] = [
        pool.submit(contextvars.copy_context().run, work) for _ in range(min(workers, len(calls)) - 1)
    ]
    work()
    for helper in helpers:
        if not helper.cancel():  # a helper that never started has nothing to finish
            helper.result()
    for error in errors:
        if error is not None:
            raise error
    return [results[index] for index in range(len(calls))]
