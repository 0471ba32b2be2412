"""The latency benchmark's two ways of doing the same work run in turns, not one block after the other."""

from __future__ import annotations

import time

from backend.domain.pipeline.bench.runner import _alternated


def test_each_side_warms_up_once_then_the_order_flips_every_round() -> None:
    calls: list[str] = []
    first, second = _alternated(lambda: calls.append("a"), lambda: calls.append("b"), repeats=3)
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]
    assert first.ms >= 0 and second.ms >= 0


def test_every_timed_run_starts_fresh_and_the_warm_up_does_not() -> None:
    calls: list[str] = []
    _alternated(
        lambda: calls.append("a"), lambda: calls.append("b"), repeats=2, fresh=lambda: calls.append("fresh")
    )
    assert calls == ["a", "b", "fresh", "a", "fresh", "b", "fresh", "b", "fresh", "a"]


def test_the_cores_a_run_got_are_its_cpu_time_over_its_wall_time() -> None:
    def busy() -> None:
        started = time.process_time()
        while time.process_time() - started < 0.02:
            pass

    working, sleeping = _alternated(busy, lambda: time.sleep(0.02), repeats=1)
    # A loaded machine stretches the busy run's wall time, never its CPU time beyond one thread's.
    assert sleeping.cores < 0.2 and sleeping.cores < working.cores <= 1.2
