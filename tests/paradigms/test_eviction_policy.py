"""The LFU policy as pure functions: frequency first, then age, never pinned; the 30-day window."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from backend.domain.paradigms.eviction import (
    EvictionCandidate,
    NothingToEvict,
    choose_victims,
    eviction_order,
    uses_in_window,
    window_start,
)

EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def candidate(paradigm_id: int, uses: int, age_days: int, pinned: bool = False) -> EvictionCandidate:
    return EvictionCandidate(paradigm_id, EPOCH - timedelta(days=age_days), uses, pinned)


def test_fewest_uses_go_first_then_the_oldest() -> None:
    candidates = [
        candidate(1, uses=5, age_days=100),
        candidate(2, uses=0, age_days=1),
        candidate(3, uses=0, age_days=50),
        candidate(4, uses=2, age_days=200),
    ]
    assert [item.paradigm_id for item in eviction_order(candidates)] == [3, 2, 4, 1]
    assert choose_victims(candidates, 2) == [3, 2]


def test_same_uses_and_same_instant_are_settled_by_id() -> None:
    candidates = [candidate(9, 1, 10), candidate(4, 1, 10), candidate(7, 1, 10)]
    assert choose_victims(reversed(candidates), 3) == [4, 7, 9]


def test_pinned_paradigms_are_never_chosen() -> None:
    candidates = [candidate(1, 0, 300, pinned=True), candidate(2, 9, 1), candidate(3, 0, 2, pinned=True)]
    assert choose_victims(candidates, 1) == [2]
    with pytest.raises(NothingToEvict, match="only 1 are not pinned"):
        choose_victims(candidates, 2)
    assert choose_victims(candidates, 0) == []


def test_the_window_is_the_thirty_days_ending_today() -> None:
    today = date(2025, 9, 30)
    assert window_start(today) == date(2025, 9, 1)
    daily = {
        date(2025, 8, 31): 100,  # 30 days before today: outside
        date(2025, 9, 1): 1,  # first day inside
        date(2025, 9, 15): 2,
        date(2025, 9, 30): 4,  # today
        date(2025, 10, 1): 1000,  # after today (a clock ahead): not counted
    }
    assert uses_in_window(daily, today) == 7
    assert uses_in_window(daily, today, window_days=1) == 4
    with pytest.raises(ValueError, match="at least one day"):
        window_start(today, 0)
