"""The parsed statement as the tree rules see it: the tree, and its nodes walked once for all rules.

Each rule used to walk the tree itself; on the reverse checks' long IN lists the eight walks cost
more than parsing. The nodes are in `exp.Expr.walk()` order (breadth first), so a rule finds the
same node first as it would walking on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from sqlglot import exp

Node = TypeVar("Node", bound=exp.Expr)


@dataclass(frozen=True)
class ParsedStatement:
    tree: exp.Expr
    nodes: tuple[exp.Expr, ...]

    @classmethod
    def of(cls, tree: exp.Expr) -> ParsedStatement:
        return cls(tree, tuple(tree.walk()))

    def find_all(self, *types: type[Node]) -> Iterator[Node]:
        return (node for node in self.nodes if isinstance(node, types))
