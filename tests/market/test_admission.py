"""Fair admission: bounded slots, per-requester caps, a bounded queue, deadlines that count the wait,
cancellation while waiting. Real threads; each test bounds its waits."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from backend.domain.market.errors import QueryCancelled, QueryTimeout, StoreBusy
from backend.domain.market.execution import AdmissionLimits, CancelToken, FairAdmission


def _far() -> float:
    return time.monotonic() + 30


class _Holder:
    """Holds a slot for `requester` until released."""

    def __init__(self, admission: FairAdmission, requester: str) -> None:
        self.admitted = threading.Event()
        self.release = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(admission, requester), daemon=True)
        self.thread.start()

    def _run(self, admission: FairAdmission, requester: str) -> None:
        try:
            with admission.admitted(requester, _far(), CancelToken()):
                self.admitted.set()
                self.release.wait(30)
        except BaseException as error:  # reported to the test
            self.error = error

    def finish(self) -> None:
        self.release.set()
        self.thread.join(10)


def _wait_until(condition: Callable[[], bool], seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.005)


def test_never_more_running_than_slots() -> None:
    admission = FairAdmission(AdmissionLimits(slots=2, per_requester=2, queue_limit=10))
    holders = [_Holder(admission, f"user-{index}") for index in range(5)]
    _wait_until(lambda: admission.snapshot() == (2, 3))
    assert sum(holder.admitted.is_set() for holder in holders) == 2
    for holder in holders:
        holder.finish()
    assert admission.snapshot() == (0, 0)
    assert all(holder.admitted.is_set() and holder.error is None for holder in holders)


def test_another_requester_gets_the_free_slot_before_a_heavy_users_backlog() -> None:
    admission = FairAdmission(AdmissionLimits(slots=3, per_requester=2, queue_limit=10))
    heavy = [_Holder(admission, "heavy") for _ in range(4)]
    _wait_until(lambda: admission.snapshot() == (2, 2))  # the per-requester cap leaves a slot free
    light = _Holder(admission, "light")
    assert light.admitted.wait(5), "a light user's query must start at once beside a heavy backlog"
    light.finish()
    for holder in heavy:
        holder.finish()
    assert all(holder.error is None for holder in heavy)


def test_fewest_running_goes_first_when_a_slot_frees() -> None:
    admission = FairAdmission(AdmissionLimits(slots=2, per_requester=2, queue_limit=10))
    first, second = _Holder(admission, "a"), _Holder(admission, "a")
    _wait_until(lambda: admission.snapshot() == (2, 0))
    backlog = _Holder(admission, "a")
    _wait_until(lambda: admission.snapshot() == (2, 1))
    other = _Holder(admission, "b")
    _wait_until(lambda: admission.snapshot() == (2, 2))
    first.finish()
    assert other.admitted.wait(5)
    assert not backlog.admitted.is_set(), "b runs nothing, a runs one: b goes first although it came later"
    for holder in (second, backlog, other):
        holder.finish()


def test_a_full_queue_answers_busy_with_a_retry_delay() -> None:
    admission = FairAdmission(AdmissionLimits(slots=1, per_requester=1, queue_limit=2))
    running = _Holder(admission, "a")
    _wait_until(lambda: admission.snapshot() == (1, 0))
    waiting = [_Holder(admission, "b"), _Holder(admission, "c")]
    _wait_until(lambda: admission.snapshot() == (1, 2))
    with pytest.raises(StoreBusy, match="busy") as refused, admission.admitted("d", _far(), CancelToken()):
        pytest.fail("must not be admitted")
    assert refused.value.retry_after >= 1
    for holder in (running, *waiting):
        holder.finish()


def test_one_requester_cannot_fill_the_whole_queue() -> None:
    admission = FairAdmission(AdmissionLimits(slots=1, per_requester=1, queue_limit=4))
    running = _Holder(admission, "a")
    _wait_until(lambda: admission.snapshot() == (1, 0))
    backlog = [_Holder(admission, "a") for _ in range(2)]  # half the queue
    _wait_until(lambda: admission.snapshot() == (1, 2))
    with pytest.raises(StoreBusy, match="2 of them yours"), admission.admitted("a", _far(), CancelToken()):
        pytest.fail("must not be admitted")
    other = _Holder(admission, "b")  # someone else still gets in line
    _wait_until(lambda: admission.snapshot() == (1, 3))
    for holder in (running, *backlog, other):
        holder.finish()
    assert other.error is None


def test_waiting_counts_against_the_deadline() -> None:
    admission = FairAdmission(AdmissionLimits(slots=1, per_requester=1, queue_limit=4))
    running = _Holder(admission, "a")
    _wait_until(lambda: admission.snapshot() == (1, 0))
    started = time.monotonic()
    with (
        pytest.raises(QueryTimeout, match="waited"),
        admission.admitted("b", time.monotonic() + 0.3, CancelToken()),
    ):
        pytest.fail("must not be admitted")
    assert 0.25 <= time.monotonic() - started < 3
    assert admission.snapshot() == (1, 0)
    running.finish()


def test_cancelling_a_waiting_query_removes_it_without_running_it() -> None:
    admission = FairAdmission(AdmissionLimits(slots=1, per_requester=1, queue_limit=4))
    running = _Holder(admission, "a")
    _wait_until(lambda: admission.snapshot() == (1, 0))
    cancel = CancelToken()
    outcome: list[BaseException] = []

    def wait_in_line() -> None:
        try:
            with admission.admitted("b", _far(), cancel):
                pytest.fail("must not be admitted")
        except QueryCancelled as error:
            outcome.append(error)

    thread = threading.Thread(target=wait_in_line)
    thread.start()
    _wait_until(lambda: admission.snapshot() == (1, 1))
    cancel.cancel()
    thread.join(5)
    assert len(outcome) == 1 and admission.snapshot() == (1, 0)
    running.finish()


def test_cancel_token_runs_late_callbacks_at_once_and_only_once() -> None:
    token = CancelToken()
    calls: list[str] = []
    unregister = token.on_cancel(lambda: calls.append("early"))
    removed = token.on_cancel(lambda: calls.append("removed"))
    removed()
    token.cancel()
    token.cancel()
    token.on_cancel(lambda: calls.append("late"))
    unregister()
    assert calls == ["early", "late"]
