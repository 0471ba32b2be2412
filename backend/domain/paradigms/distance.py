"""The exact distance (Zhang–Shasha through `zss`) and the cheap bounds that let a search skip it.

Every bound here holds for any tree edit mapping under `CostModel`; README.md gives the proofs.
- `label_bound`: relaxes the mapping to any one-to-one pairing of nodes (no tree constraints), so it
  only looks at sizes and label/kind/literal multisets;
- `traversal_bound`: a tree mapping is also an alignment of the preorder (and of the postorder)
  label sequences, so the string edit distance of those sequences is a lower bound;
- `top_down_distance`: the cost of one particular valid mapping (roots mapped, children aligned
  recursively), hence an upper bound. When it meets a lower bound, it *is* the distance;
- `localized_distance`: identity where the trees agree, zss inside the subtrees where they diverge —
  another valid mapping, hence another upper bound, exact for one local change.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import zss

from backend.domain.paradigms.costs import DEFAULT_COSTS, CostModel
from backend.domain.paradigms.trees import TreeNode, postorder, preorder


def _children(node: TreeNode) -> tuple[TreeNode, ...]:
    return node.children


def tree_distance(first: TreeNode, second: TreeNode, costs: CostModel = DEFAULT_COSTS) -> float:
    """Zhang–Shasha tree edit distance under the cost model (exact; a few ms in pure Python)."""
    return float(
        zss.distance(
            first,
            second,
            get_children=_children,
            insert_cost=costs.insert,
            remove_cost=costs.remove,
            update_cost=costs.update,
        )
    )


def _intersection_size(first: Counter[str], second: Counter[str]) -> int:
    if len(first) > len(second):
        first, second = second, first
    return sum(min(count, second[key]) for key, count in first.items())


@dataclass(frozen=True, eq=False)
class TreeProfile:
    """What the bounds read from one tree, computed once per tree."""

    tree: TreeNode
    labels: Counter[str]
    heads: Counter[str]
    contents: Counter[str]  # label and literal together: nodes that can be matched at cost 0
    preorder: tuple[TreeNode, ...]
    postorder: tuple[TreeNode, ...]

    @property
    def size(self) -> int:
        return self.tree.size

    @classmethod
    def of(cls, tree: TreeNode) -> TreeProfile:
        nodes = tuple(preorder(tree))
        return cls(
            tree=tree,
            labels=Counter(node.label for node in nodes),
            heads=Counter(node.head for node in nodes),
            contents=Counter(f"{node.label}\x00{node.literal}" for node in nodes),
            preorder=nodes,
            postorder=tuple(postorder(tree)),
        )


def label_bound_from_counts(
    larger_size: int, same_labels: int, same_heads: int, same_contents: int, costs: CostModel
) -> float:
    """structure·max(n₁, n₂) − (detail − literal)·c − (structure − detail)·h − literal·v, where c, h,
    v are the sizes of the label, kind and label+literal multiset intersections (README.md)."""
    return (
        costs.structure * larger_size
        - (costs.detail - costs.literal) * same_labels
        - (costs.structure - costs.detail) * same_heads
        - costs.literal * same_contents
    )


def label_bound(first: TreeProfile, second: TreeProfile, costs: CostModel = DEFAULT_COSTS) -> float:
    return label_bound_from_counts(
        max(first.size, second.size),
        _intersection_size(first.labels, second.labels),
        _intersection_size(first.heads, second.heads),
        _intersection_size(first.contents, second.contents),
        costs,
    )


def _banded_sequence_distance(
    first: tuple[TreeNode, ...], second: tuple[TreeNode, ...], limit: float, costs: CostModel
) -> float:
    """String edit distance of two node sequences, exact whenever it is ≤ `limit`.

    An alignment costing ≤ limit has at most limit/structure insertions and deletions, so it never
    strays further than that from the diagonal: the DP only fills that band. Outside it every cell is
    infinite, so a result > limit is only known to exceed the limit (which is all a search needs).
    """
    band = int(limit // costs.structure)
    rows, columns = len(first), len(second)
    if abs(rows - columns) > band:
        return float("inf")
    infinity = float("inf")
    gap = costs.structure
    previous = [gap * column if column <= band else infinity for column in range(columns + 1)]
    for row in range(1, rows + 1):
        current = [infinity] * (columns + 1)
        if row <= band:
            current[0] = gap * row
        node = first[row - 1]
        for column in range(max(1, row - band), min(columns, row + band) + 1):
            current[column] = min(
                previous[column] + gap,
                current[column - 1] + gap,
                previous[column - 1] + costs.update(node, second[column - 1]),
            )
        previous = current
    return previous[columns]


def traversal_bound(
    first: TreeProfile, second: TreeProfile, limit: float, costs: CostModel = DEFAULT_COSTS
) -> float:
    """max(preorder, postorder) string edit distance: a lower bound of the tree distance, exact
    as a string distance when ≤ `limit`, and > limit exactly when the string distance is."""
    in_preorder = _banded_sequence_distance(first.preorder, second.preorder, limit, costs)
    if in_preorder > limit:
        return in_preorder
    return max(in_preorder, _banded_sequence_distance(first.postorder, second.postorder, limit, costs))


def differs_at_root(first: TreeNode, second: TreeNode) -> bool:
    """Different label, literal or number of children: where `localized_distance` hands over to zss."""
    return (
        first.label != second.label
        or first.literal != second.literal
        or len(first.children) != len(second.children)
    )


def _identical(first: TreeNode, second: TreeNode) -> bool:
    return not differs_at_root(first, second) and all(
        _identical(left, right) for left, right in zip(first.children, second.children, strict=True)
    )


def localized_distance(first: TreeNode, second: TreeNode, costs: CostModel = DEFAULT_COSTS) -> float:
    """Upper bound that runs zss only where the trees diverge: identical nodes with as many children
    are mapped to each other and their children compared pairwise; the first pair that differs in
    label, literal or number of children gets zss. Identity above, optimal mappings inside disjoint
    subtrees: a valid mapping, so ≥ the tree edit distance — and equal to it when the difference is
    one local change, such as an inner node inserted (which the top-down bound cannot follow)."""
    if differs_at_root(first, second):
        return tree_distance(first, second, costs)
    return sum(
        localized_distance(left, right, costs)
        for left, right in zip(first.children, second.children, strict=True)
        if not _identical(left, right)
    )


def top_down_distance(first: TreeNode, second: TreeNode, costs: CostModel = DEFAULT_COSTS) -> float:
    """Cost of the best top-down mapping (Selkow): roots mapped, children sequences aligned with
    whole-subtree insertions and deletions. A valid edit script, hence ≥ the tree edit distance."""
    cost = costs.update(first, second)
    left, right = first.children, second.children
    if not left and not right:
        return cost
    gap = costs.structure
    previous = [0.0]
    for child in right:
        previous.append(previous[-1] + gap * child.size)
    for left_child in left:
        current = [previous[0] + gap * left_child.size]
        for column, right_child in enumerate(right, start=1):
            current.append(
                min(
                    previous[column] + gap * left_child.size,
                    current[column - 1] + gap * right_child.size,
                    previous[column - 1] + top_down_distance(left_child, right_child, costs),
                )
            )
        previous = current
    return cost + previous[-1]
