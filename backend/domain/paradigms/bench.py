"""Matching benchmark: libraries grown from real QSTs, pruned search timed, exhaustive zss compared.

For each library size, the library is the real QSTs plus random variations of them
(variations.QstVariations). A query set mixes real QSTs and fresh variations. Every query is timed
through `ParadigmIndex.nearest` (QST in, matches out) with the configured top-k and with no top-k
(all paradigms within τ). On a subsample of the queries the exhaustive zss scan runs in the same
process, and both result lists must be identical to it.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, TypeVar

from backend.domain.language.qst import Node
from backend.domain.paradigms.costs import DEFAULT_COSTS, CostModel
from backend.domain.paradigms.matching import Match, ParadigmIndex, SearchStats, exhaustive_nearest
from backend.domain.paradigms.trees import TreeNode, to_tree
from backend.domain.paradigms.variations import QstVariations

Result = TypeVar("Result")


@dataclass(frozen=True)
class Measure:
    wall_ms: float
    cpu_ms: float  # this process's CPU time: what the figure would be on an idle machine


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(0.95 * len(ordered)) - 1))]


@dataclass(frozen=True)
class Timing:
    """Wall-clock figures, and the same in process CPU time: the machine is shared, so waiting for
    a core shows in the wall clock only."""

    runs: int
    median_ms: float
    p95_ms: float
    max_ms: float
    cpu_median_ms: float
    cpu_p95_ms: float

    @classmethod
    def of(cls, measures: Sequence[Measure]) -> Timing:
        wall = [measure.wall_ms for measure in measures]
        cpu = [measure.cpu_ms for measure in measures]
        return cls(
            runs=len(measures),
            median_ms=round(statistics.median(wall), 3),
            p95_ms=round(_p95(wall), 3),
            max_ms=round(max(wall), 3),
            cpu_median_ms=round(statistics.median(cpu), 3),
            cpu_p95_ms=round(_p95(cpu), 3),
        )


@dataclass
class LibraryRun:
    size: int
    build_ms: float
    pruned_top_k: Timing
    pruned_within_tau: Timing
    mean_stats_within_tau: dict[str, float]
    exhaustive_queries: int
    exhaustive: Timing
    pruned_on_same_queries: Timing
    speedup: float  # exhaustive median / pruned (within τ) median on the same queries
    cpu_speedup: float  # the same in CPU time
    identical: bool
    mismatches: list[dict[str, Any]] = field(default_factory=list)


def _timed(call: Callable[[], Result]) -> tuple[Result, Measure]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, Measure((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)


def _exhaustive(trees: list[tuple[int, TreeNode]], qst: Node, tau: float, costs: CostModel) -> list[Match]:
    return exhaustive_nearest(trees, to_tree(qst), tau=tau, costs=costs)


def _search_within_tau(index: ParadigmIndex, qst: Node, tau: float) -> tuple[list[Match], SearchStats]:
    return index.search(to_tree(qst), tau=tau)


def _mean_stats(stats: Sequence[SearchStats]) -> dict[str, float]:
    names = ("after_size_and_labels", "visited", "localized", "exact_by_bounds", "zss_calls")
    return {name: round(statistics.mean(getattr(item, name) for item in stats), 2) for name in names}


def _as_pairs(matches: list[Match]) -> list[tuple[int, float]]:
    return [(match.paradigm_id, match.distance) for match in matches]


def run_library(
    library: Sequence[Node],
    queries: Sequence[Node],
    *,
    tau: float,
    top_k: int,
    exhaustive_queries: int,
    costs: CostModel = DEFAULT_COSTS,
) -> LibraryRun:
    if exhaustive_queries < 1 or not queries:
        raise ValueError("the benchmark needs queries and at least one exhaustive scan to compare with")
    index = ParadigmIndex(costs)

    def build_index() -> None:
        for paradigm_id, qst in enumerate(library, start=1):
            index.add(paradigm_id, qst)
        index.nearest(queries[0], tau=tau, top_k=top_k)  # builds the vectorised bounds

    _none, build_time = _timed(build_index)
    top_k_times: list[Measure] = []
    top_k_results: list[list[Match]] = []
    within_times: list[Measure] = []
    within_results: list[list[Match]] = []
    within_stats: list[SearchStats] = []
    for qst in queries:
        found, elapsed = _timed(partial(index.nearest, qst, tau=tau, top_k=top_k))
        top_k_results.append(found)
        top_k_times.append(elapsed)
        (found, stats), elapsed = _timed(partial(_search_within_tau, index, qst, tau))
        within_results.append(found)
        within_stats.append(stats)
        within_times.append(elapsed)

    trees = index.trees()
    exhaustive_times: list[Measure] = []
    mismatches: list[dict[str, Any]] = []
    for position, qst in enumerate(queries[:exhaustive_queries]):
        reference, elapsed = _timed(partial(_exhaustive, trees, qst, tau, costs))
        exhaustive_times.append(elapsed)
        for mode, pruned, expected in (
            ("within_tau", within_results[position], reference),
            (f"top_{top_k}", top_k_results[position], reference[:top_k]),
        ):
            if pruned != expected:
                mismatches.append(
                    {
                        "query": position,
                        "mode": mode,
                        "pruned": _as_pairs(pruned),
                        "exhaustive": _as_pairs(expected),
                    }
                )
    exhaustive = Timing.of(exhaustive_times)
    pruned_same = Timing.of(within_times[:exhaustive_queries])
    return LibraryRun(
        size=len(library),
        build_ms=round(build_time.wall_ms, 1),
        pruned_top_k=Timing.of(top_k_times),
        pruned_within_tau=Timing.of(within_times),
        mean_stats_within_tau=_mean_stats(within_stats),
        exhaustive_queries=len(exhaustive_times),
        exhaustive=exhaustive,
        pruned_on_same_queries=pruned_same,
        speedup=round(exhaustive.median_ms / max(pruned_same.median_ms, 1e-3), 1),
        cpu_speedup=round(exhaustive.cpu_median_ms / max(pruned_same.cpu_median_ms, 1e-3), 1),
        identical=not mismatches,
        mismatches=mismatches,
    )


def run_benchmark(
    real_qsts: Sequence[Node],
    *,
    sizes: Sequence[int],
    queries: int,
    exhaustive_queries: dict[int, int],
    tau: float,
    top_k: int,
    seed: int,
    costs: CostModel = DEFAULT_COSTS,
) -> dict[str, Any]:
    """The report: settings, and one LibraryRun per library size (as plain data)."""
    rng = random.Random(seed)
    variations = QstVariations(real_qsts, rng)
    # half real questions (present in the library), half unseen variations of them
    query_set = [
        rng.choice(variations.real)
        if number % 2 == 0
        else variations.vary(rng.choice(variations.real), rng.randint(1, 3))
        for number in range(queries)
    ]
    runs = []
    for size in sizes:
        library = variations.grow(size)
        runs.append(
            run_library(
                library,
                query_set,
                tau=tau,
                top_k=top_k,
                exhaustive_queries=exhaustive_queries[size],
                costs=costs,
            )
        )
    return {
        "real_qsts": len(real_qsts),
        "queries": queries,
        "tau": tau,
        "top_k": top_k,
        "seed": seed,
        "costs": asdict(costs),
        "libraries": [asdict(run) for run in runs],
        "identical": all(run.identical for run in runs),
    }
