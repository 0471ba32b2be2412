"""Nearest paradigms by tree edit distance: exhaustive reference scan and pruned search.

`ParadigmIndex.nearest` returns exactly what `exhaustive_nearest` returns — the paradigms within τ,
nearest first, ties by paradigm id, at most top_k — while running zss on few of them:

1. size and label/kind multisets, vectorised over the whole library (numpy), give a lower bound per
   paradigm; paradigms whose bound exceeds τ are never looked at again;
2. the rest are visited in increasing bound order. Each gets the sharper label bound (literals
   counted) and the traversal bound; one above the current cut-off is skipped;
3. the top-down mapping gives an upper bound, and when the trees share their root and its number
   of children, so does zss run only on the subtrees that differ; when an upper bound equals the lower
   bound it is the distance, otherwise zss computes it on the whole trees.

The cut-off is τ, lowered to the k-th best distance found once top_k results are in hand (a paradigm
whose bound equals that distance is still examined: it may tie and win on its id).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from backend.domain.language.qst import Node
from backend.domain.paradigms.costs import DEFAULT_COSTS, CostModel
from backend.domain.paradigms.distance import (
    TreeProfile,
    differs_at_root,
    label_bound,
    localized_distance,
    top_down_distance,
    traversal_bound,
    tree_distance,
)
from backend.domain.paradigms.trees import TreeNode, to_tree


@dataclass(frozen=True, order=True)
class Match:
    """A paradigm within τ. Ordered by distance, then id: the order results are returned in."""

    distance: float
    paradigm_id: int


@dataclass
class SearchStats:
    """How a search spent its time: how many paradigms each stage let through."""

    library: int = 0
    after_size_and_labels: int = 0  # vectorised bound ≤ cut-off
    visited: int = 0  # reached before the cut-off stopped the visit
    localized: int = 0  # the top-down bound was not enough: zss ran on the diverging subtrees only
    exact_by_bounds: int = 0  # a lower bound met an upper bound: no zss on the whole trees
    zss_calls: int = 0


def _keep_best(found: list[Match], match: Match, top_k: int | None) -> None:
    found.append(match)
    found.sort()
    if top_k is not None:
        del found[top_k:]


def exhaustive_nearest(
    library: Iterable[tuple[int, TreeNode]],
    query: TreeNode,
    *,
    tau: float,
    top_k: int | None = None,
    costs: CostModel = DEFAULT_COSTS,
) -> list[Match]:
    """The reference: zss against every paradigm."""
    within = [
        Match(distance, paradigm_id)
        for paradigm_id, tree in library
        if (distance := tree_distance(query, tree, costs)) <= tau
    ]
    within.sort()
    return within if top_k is None else within[:top_k]


@dataclass
class _Vocabulary:
    columns: dict[str, int] = field(default_factory=dict)

    def column(self, key: str) -> int:
        return self.columns.setdefault(key, len(self.columns))

    def vector(self, counts: dict[str, int]) -> npt.NDArray[np.int32]:
        vector = np.zeros(len(self.columns), dtype=np.int32)
        for key, count in counts.items():
            index = self.columns.get(key)
            if index is not None:  # a label no paradigm has cannot be shared with one
                vector[index] = count
        return vector


class _Matrix:
    """Label and kind counts of every paradigm, rows sorted by tree size so that the paradigms
    within reach of a size form one contiguous slice."""

    def __init__(self, profiles: dict[int, TreeProfile]) -> None:
        self.labels = _Vocabulary()
        self.heads = _Vocabulary()
        for profile in profiles.values():
            for label in profile.labels:
                self.labels.column(label)
            for head in profile.heads:
                self.heads.column(head)
        ordered = sorted(profiles.items(), key=lambda item: (item[1].size, item[0]))
        self.ids = np.array([paradigm_id for paradigm_id, _ in ordered], dtype=np.int64)
        self.sizes = np.array([profile.size for _, profile in ordered], dtype=np.int32)
        self.label_counts = np.zeros((len(ordered), len(self.labels.columns)), dtype=np.int32)
        self.head_counts = np.zeros((len(ordered), len(self.heads.columns)), dtype=np.int32)
        for row, (_, profile) in enumerate(ordered):
            for label, count in profile.labels.items():
                self.label_counts[row, self.labels.columns[label]] = count
            for head, count in profile.heads.items():
                self.head_counts[row, self.heads.columns[head]] = count

    def candidates(
        self, query: TreeProfile, cutoff: float, costs: CostModel
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Ids and bounds of the paradigms whose size/label bound is ≤ cutoff, by bound then id."""
        # size alone: every node without a partner costs `structure`
        reach = int(cutoff // costs.structure)
        start = int(np.searchsorted(self.sizes, query.size - reach, side="left"))
        stop = int(np.searchsorted(self.sizes, query.size + reach, side="right"))
        if start >= stop:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        same_labels = np.minimum(self.label_counts[start:stop], self.labels.vector(query.labels)).sum(axis=1)
        same_heads = np.minimum(self.head_counts[start:stop], self.heads.vector(query.heads)).sum(axis=1)
        # label_bound_from_counts with same_contents = same_labels: literals are not vectorised, and
        # assuming every same-label pair also shares its literal can only lower the bound.
        larger = np.maximum(self.sizes[start:stop], query.size)
        bounds = (
            costs.structure * larger
            - costs.detail * same_labels
            - (costs.structure - costs.detail) * same_heads
        ).astype(np.float64)
        ids = self.ids[start:stop]
        kept = bounds <= cutoff
        ids, bounds = ids[kept], bounds[kept]
        order = np.lexsort((ids, bounds))
        return ids[order], bounds[order]


class ParadigmIndex:
    """The paradigm library's QSTs, kept in memory for matching."""

    def __init__(self, costs: CostModel = DEFAULT_COSTS) -> None:
        self.costs = costs
        self._profiles: dict[int, TreeProfile] = {}
        self._matrix: _Matrix | None = None

    def __len__(self) -> int:
        return len(self._profiles)

    def __contains__(self, paradigm_id: object) -> bool:
        return paradigm_id in self._profiles

    def ids(self) -> list[int]:
        return sorted(self._profiles)

    def trees(self) -> list[tuple[int, TreeNode]]:
        return [(paradigm_id, self._profiles[paradigm_id].tree) for paradigm_id in self.ids()]

    def add(self, paradigm_id: int, qst: Node) -> None:
        self._profiles[paradigm_id] = TreeProfile.of(to_tree(qst))
        self._matrix = None  # rebuilt on the next search

    def remove(self, paradigm_id: int) -> None:
        if self._profiles.pop(paradigm_id, None) is not None:
            self._matrix = None

    def nearest(self, qst: Node, *, tau: float, top_k: int | None = None) -> list[Match]:
        return self.search(to_tree(qst), tau=tau, top_k=top_k)[0]

    def search(
        self, query_tree: TreeNode, *, tau: float, top_k: int | None = None
    ) -> tuple[list[Match], SearchStats]:
        if top_k is not None and top_k < 1:
            raise ValueError("top_k must be at least 1")
        stats = SearchStats(library=len(self._profiles))
        if not self._profiles or tau < 0:
            return [], stats
        if self._matrix is None:
            self._matrix = _Matrix(self._profiles)
        query = TreeProfile.of(query_tree)
        ids, bounds = self._matrix.candidates(query, tau, self.costs)
        stats.after_size_and_labels = len(ids)
        found: list[Match] = []
        for paradigm_id, vectorised_bound in zip(ids.tolist(), bounds.tolist(), strict=True):
            cutoff = found[-1].distance if top_k is not None and len(found) == top_k else tau
            if vectorised_bound > cutoff:
                break  # candidates come in increasing bound order: none of the rest can make it
            stats.visited += 1
            profile = self._profiles[paradigm_id]
            lower = label_bound(query, profile, self.costs)
            if lower > cutoff:
                continue
            lower = max(lower, traversal_bound(query, profile, cutoff, self.costs))
            if lower > cutoff:
                continue
            upper = top_down_distance(query_tree, profile.tree, self.costs)
            if upper != lower and not differs_at_root(query_tree, profile.tree):
                stats.localized += 1
                upper = min(upper, localized_distance(query_tree, profile.tree, self.costs))
            if upper == lower:
                stats.exact_by_bounds += 1
                distance = upper
            else:
                stats.zss_calls += 1
                distance = tree_distance(query_tree, profile.tree, self.costs)
            if distance <= cutoff:
                _keep_best(found, Match(distance, paradigm_id), top_k)
        return found, stats
