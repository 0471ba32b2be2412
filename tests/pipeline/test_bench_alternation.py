"""The latency benchmark's two ways of doing the same work run in turns, not one block after the other."""

from __future__ import annotations

from backend.domain.pipeline.bench.runner import _alternated


def test_each_side_warms_up_once_then_the_order_flips_every_round() -> None:
    calls: list[str] = []
    first_ms, second_ms = _alternated(lambda: calls.append("a"), lambda: calls.append("b"), repeats=3)
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]
    assert first_ms >= 0 and second_ms >= 0
