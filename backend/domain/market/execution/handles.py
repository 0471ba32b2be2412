"""Connection handles, one per running query, never reused after anything went wrong.

Root cause of rows leaking between queries: when chdb stops a query with an exception (row limit
with `result_overflow_mode='throw'`, timeout, memory limit, cancellation), the rows it had already
produced stay in that handle's output buffer and are returned in front of the next query's result on
the same handle. Buffers are per handle: a handle that saw any exception is closed and never handed
out again, so a query only ever reads from a handle whose every previous query completed cleanly.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

Handle = TypeVar("Handle")


class HandlePool(Generic[Handle]):
    """Idle handles of the current process; a handle is leased to one query at a time."""

    def __init__(self, open_handle: Callable[[], Handle], close_handle: Callable[[Handle], None]) -> None:
        self._open_handle = open_handle
        self._close_handle = close_handle
        self._lock = threading.Lock()
        self._idle: list[Handle] = []
        self._pid = os.getpid()
        self.discarded = 0  # handles dropped after a failure (observable in tests and stats)

    @contextmanager
    def lease(self) -> Iterator[Handle]:
        handle = self._take_idle() or self._open_handle()
        try:
            yield handle
        except BaseException:
            self._discard(handle)
            raise
        self._give_back(handle)

    def close_all(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
            inherited = self._pid != os.getpid()
            self._pid = os.getpid()
        if inherited:
            return  # handles opened before fork() belong to the parent: never touch them
        for handle in idle:
            self._close_handle(handle)

    def _take_idle(self) -> Handle | None:
        with self._lock:
            if self._pid != os.getpid():
                self._idle, self._pid = [], os.getpid()  # forked: the parent's handles are not ours
            return self._idle.pop() if self._idle else None

    def _give_back(self, handle: Handle) -> None:
        with self._lock:
            if self._pid == os.getpid():
                self._idle.append(handle)
                return
        self._close_handle(handle)

    def _discard(self, handle: Handle) -> None:
        with self._lock:
            self.discarded += 1
        with contextlib.suppress(Exception):  # a broken handle may fail to close; it is dropped anyway
            self._close_handle(handle)
