"""The cost model of the tree edit distance between QSTs (numbers and reasons in README.md).

Three tiers, cheapest first:
- `literal`: same label, different literal (a date, a threshold, an exchange) — the SQL keeps its
  shape and only a value changes, which slot filling can adapt;
- `detail`: same kind of node, different label (attribute:close → attribute:open, operator:> →
  operator:<, aggregate:avg → aggregate:max, time:latest → time:date) — the SQL keeps its shape but
  reads another column or applies another comparison;
- `structure`: inserting or deleting a node, or turning a node into another kind (where → having)
  — the SQL changes shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.domain.paradigms.trees import TreeNode

# Costs are multiples of 1/64 so that every sum of costs is an exact binary float: distances,
# bounds and τ then compare exactly, and pruning can never disagree with zss by a rounding error.
_COST_GRAIN = 64


class CostModelError(ValueError):
    """A cost model the lower bounds would not be valid for."""


@dataclass(frozen=True)
class CostModel:
    literal: float = 0.25
    detail: float = 1.0
    structure: float = 2.0

    def __post_init__(self) -> None:
        if not 0 < self.literal < self.detail < self.structure:
            raise CostModelError("costs must satisfy 0 < literal < detail < structure")
        for cost in (self.literal, self.detail, self.structure):
            if not float(cost * _COST_GRAIN).is_integer():
                raise CostModelError(f"cost {cost} is not a multiple of 1/{_COST_GRAIN}")

    def update(self, first: TreeNode, second: TreeNode) -> float:
        if first.label == second.label:
            return 0.0 if first.literal == second.literal else self.literal
        if first.head == second.head:
            return self.detail
        return self.structure

    def insert(self, _node: TreeNode) -> float:
        return self.structure

    def remove(self, _node: TreeNode) -> float:
        return self.structure


DEFAULT_COSTS = CostModel()
