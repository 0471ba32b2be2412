"""Admission to the store: a bounded number of running queries, a bounded queue, fairness between
requesters, and deadlines that count the time spent waiting.

Fairness: a requester never holds more than `per_requester` of the `slots`, so one user's heavy
queries leave room for others; when a slot frees, the waiting query whose requester runs the fewest
queries goes first (arrival order breaks ties). A requester may queue at most half the queue, so one
user cannot fill it and turn everyone else away.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from backend.domain.market.errors import QueryCancelled, QueryTimeout, StoreBusy
from backend.domain.market.execution.context import CancelToken


@dataclass(frozen=True)
class AdmissionLimits:
    slots: int = 4
    per_requester: int = 3
    queue_limit: int = 64

    def __post_init__(self) -> None:
        if self.slots < 1 or self.per_requester < 1 or self.queue_limit < 0:
            raise ValueError("slots and per_requester must be at least 1, queue_limit at least 0")

    @property
    def queued_per_requester(self) -> int:
        return max(1, self.queue_limit // 2)


class AdmissionObserver(Protocol):
    """Told what the queue does (the platform exports it as metrics). Called under the admission lock:
    implementations must be quick and must not call back into the admission."""

    def occupancy(self, running: int, waiting: int) -> None: ...

    def admitted(self, waited_seconds: float) -> None: ...

    def refused(self) -> None: ...


@dataclass(frozen=True)
class _Ticket:
    requester: str
    arrival: int


class FairAdmission:
    def __init__(
        self,
        limits: AdmissionLimits,
        clock: Callable[[], float] = time.monotonic,
        observer: AdmissionObserver | None = None,
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._observer = observer
        self._condition = threading.Condition()
        self._running: Counter[str] = Counter()
        self._waiting: list[_Ticket] = []
        self._arrivals = itertools.count()
        self._mean_run_seconds = 0.5  # running estimate for Retry-After

    @property
    def limits(self) -> AdmissionLimits:
        return self._limits

    def snapshot(self) -> tuple[int, int]:
        """(running, waiting) right now."""
        with self._condition:
            return sum(self._running.values()), len(self._waiting)

    @contextmanager
    def admitted(self, requester: str, deadline: float, cancel: CancelToken) -> Iterator[None]:
        """Hold a slot for the body; raises StoreBusy, QueryTimeout or QueryCancelled instead."""
        self._acquire(requester, deadline, cancel)
        started = self._clock()
        try:
            yield
        finally:
            self._release(requester, self._clock() - started)

    def _acquire(self, requester: str, deadline: float, cancel: CancelToken) -> None:
        with self._condition:
            self._refuse_when_full(requester)
            ticket = _Ticket(requester, next(self._arrivals))
            self._waiting.append(ticket)
            self._tell_occupancy()
            unregister = cancel.on_cancel(self._wake_all)
            waited_from = self._clock()
            try:
                while not self._may_start(ticket):
                    if cancel.cancelled:
                        raise QueryCancelled("the query was cancelled before it started: the client has gone")
                    remaining = deadline - self._clock()
                    if remaining <= 0:
                        raise QueryTimeout(
                            f"the query waited {self._clock() - waited_from:.1f} s for a free slot and ran "
                            "out of time before it could start; the store is busy, try again shortly"
                        )
                    self._condition.wait(remaining)
                if cancel.cancelled:
                    raise QueryCancelled("the query was cancelled before it started: the client has gone")
                self._running[requester] += 1
                if self._observer is not None:
                    self._observer.admitted(self._clock() - waited_from)
            finally:
                self._waiting.remove(ticket)
                unregister()
                self._condition.notify_all()  # the next in line may be someone else now
                self._tell_occupancy()

    def _refuse_when_full(self, requester: str) -> None:
        queued_by_requester = sum(1 for ticket in self._waiting if ticket.requester == requester)
        if len(self._waiting) >= self._limits.queue_limit or (
            queued_by_requester >= self._limits.queued_per_requester
        ):
            if self._observer is not None:
                self._observer.refused()
            retry_after = math.ceil(self._mean_run_seconds * (len(self._waiting) + 1) / self._limits.slots)
            raise StoreBusy(
                f"the store is busy: {len(self._waiting)} queries are waiting"
                f" ({queued_by_requester} of them yours); try again in {max(1, retry_after)} s",
                retry_after=max(1, retry_after),
            )

    def _may_start(self, ticket: _Ticket) -> bool:
        if sum(self._running.values()) >= self._limits.slots:
            return False
        eligible = [
            waiting
            for waiting in self._waiting
            if self._running[waiting.requester] < self._limits.per_requester
        ]
        if not eligible:
            return False
        first = min(eligible, key=lambda waiting: (self._running[waiting.requester], waiting.arrival))
        return first is ticket

    def _release(self, requester: str, run_seconds: float) -> None:
        with self._condition:
            self._running[requester] -= 1
            if self._running[requester] <= 0:
                del self._running[requester]
            self._mean_run_seconds = 0.8 * self._mean_run_seconds + 0.2 * run_seconds
            self._condition.notify_all()
            self._tell_occupancy()

    def _tell_occupancy(self) -> None:
        if self._observer is not None:
            self._observer.occupancy(sum(self._running.values()), len(self._waiting))

    def _wake_all(self) -> None:
        with self._condition:
            self._condition.notify_all()
