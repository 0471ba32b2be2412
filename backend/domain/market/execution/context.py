"""Who is asking and whether they still want the answer, carried to the store without threading it
through every call: a context variable set by the caller (a web request, a job, the terminal).

Context variables follow `asgiref`'s sync_to_async and `contextvars.copy_context().run`, so a thread
that runs a request's work sees the request's context; a thread pool that fans out checks must submit
through `copy_context().run` to keep it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

SYSTEM_REQUESTER = "system"


class CancelToken:
    """Set once when the client is gone; callbacks registered before or after run exactly once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._next_id = 0

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            callbacks = list(self._callbacks.values())
            self._callbacks.clear()
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` on cancellation (at once if already cancelled); returns an unregister function."""
        with self._lock:
            if not self._cancelled:
                key = self._next_id
                self._next_id += 1
                self._callbacks[key] = callback
                return lambda: self._unregister(key)
        callback()
        return lambda: None

    def _unregister(self, key: int) -> None:
        with self._lock:
            self._callbacks.pop(key, None)


@dataclass(frozen=True)
class ExecutionContext:
    """`requester` is the fairness key (a user, a token, an address); `deadline` is a monotonic time
    after which nothing should start or keep running for this caller, queue wait included."""

    requester: str = SYSTEM_REQUESTER
    cancel: CancelToken = field(default_factory=CancelToken)
    deadline: float | None = None


_current: ContextVar[ExecutionContext | None] = ContextVar("veriscreen_execution_context", default=None)


def current_context() -> ExecutionContext:
    return _current.get() or ExecutionContext()


@contextmanager
def execution_context(
    requester: str, cancel: CancelToken | None = None, deadline: float | None = None
) -> Iterator[ExecutionContext]:
    context = ExecutionContext(requester=requester, cancel=cancel or CancelToken(), deadline=deadline)
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)
