"""LFU eviction policy of the paradigm library, as pure functions.

When the library is full, the paradigm with the fewest uses in the last 30 days goes first; among
equally used ones the oldest created; pinned paradigms never go. "The last 30 days" are the 30
calendar days ending today (today included), counted from per-day use counters, so the count is
exact at day resolution and needs no decay or estimate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

WINDOW_DAYS = 30


class NothingToEvict(RuntimeError):
    """The library is full and every paradigm that could make room is pinned."""


@dataclass(frozen=True)
class EvictionCandidate:
    paradigm_id: int
    created_at: datetime
    uses_in_window: int
    pinned: bool


def window_start(today: date, window_days: int = WINDOW_DAYS) -> date:
    """The first day counted in the window that ends with `today`."""
    if window_days < 1:
        raise ValueError("the window must hold at least one day")
    return today - timedelta(days=window_days - 1)


def uses_in_window(daily_uses: Mapping[date, int], today: date, window_days: int = WINDOW_DAYS) -> int:
    first = window_start(today, window_days)
    return sum(count for day, count in daily_uses.items() if first <= day <= today)


def eviction_order(candidates: Iterable[EvictionCandidate]) -> list[EvictionCandidate]:
    """Unpinned candidates, first to evict first. The id settles paradigms created at the same
    instant, so the order never depends on how the candidates were read."""
    evictable = [candidate for candidate in candidates if not candidate.pinned]
    return sorted(evictable, key=lambda item: (item.uses_in_window, item.created_at, item.paradigm_id))


def choose_victims(candidates: Iterable[EvictionCandidate], count: int) -> list[int]:
    """Ids of the `count` paradigms to evict, or NothingToEvict when pinning leaves too few."""
    if count <= 0:
        return []
    order = eviction_order(candidates)
    if len(order) < count:
        raise NothingToEvict(f"{count} paradigm(s) must go but only {len(order)} are not pinned")
    return [candidate.paradigm_id for candidate in order[:count]]
