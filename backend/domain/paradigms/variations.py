"""Random QSTs grown from real ones, for the matching benchmark and the pruning property tests.

A variation applies a few edits of the kinds by which real questions differ: another literal (a
date, a threshold, an industry), another attribute / operator / aggregate / order direction /
technical kind, one condition more or less, conditions grouped under AND/OR, a limit added or
dropped. Labels, literals and conditions are drawn from the real QSTs themselves, and every
variation must pass `validate_qst`, so the library looks like one a real question stream would build.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

from backend.domain.language.qst import Node, QstError, validate_qst
from backend.domain.paradigms.trees import canonical_qst

_RELABELLED_HEADS = frozenset(
    {"attribute", "operator", "aggregate", "window", "order", "technical", "dimension", "time"}
)
_ATTEMPTS = 20


def _walk(node: Node) -> list[Node]:
    nodes = [node]
    for child in node["children"]:
        nodes.extend(_walk(child))
    return nodes


def _head(node: Node) -> str:
    return str(node["label"]).partition(":")[0]


class QstVariations:
    def __init__(self, real_qsts: Sequence[Node], rng: random.Random) -> None:
        if not real_qsts:
            raise ValueError("variations grow from at least one real QST")
        self.real = [canonical_qst(qst) for qst in real_qsts]
        self.rng = rng
        self.labels_by_head: dict[str, list[str]] = {}
        self.literals_by_label: dict[str, list[Any]] = {}
        self.conditions: list[Node] = []
        for qst in self.real:
            for node in _walk(qst):
                head = _head(node)
                if head in _RELABELLED_HEADS:
                    self.labels_by_head.setdefault(head, []).append(node["label"])
                if "value" in node:
                    self.literals_by_label.setdefault(node["label"], []).append(node["value"])
                if node["label"] == "where":
                    self.conditions.extend(node["children"])
        self._edits: list[Callable[[Node], bool]] = [
            self._change_literal,
            self._change_literal,  # the commonest difference between two real questions
            self._relabel,
            self._add_condition,
            self._drop_condition,
            self._toggle_limit,
            self._group_conditions,
        ]

    def vary(self, qst: Node, edits: int) -> Node:
        """`qst` with `edits` random edits applied (fewer if no valid variation was found)."""
        current = canonical_qst(qst)
        for _ in range(edits):
            for _attempt in range(_ATTEMPTS):
                candidate = copy.deepcopy(current)
                if not self.rng.choice(self._edits)(candidate):
                    continue
                try:
                    validate_qst(candidate)
                except QstError:
                    continue
                current = canonical_qst(candidate)
                break
        return current

    def grow(self, count: int, max_edits: int = 4) -> list[Node]:
        """`count` QSTs: the real ones first (as many as fit), then variations of random real ones."""
        grown = [copy.deepcopy(qst) for qst in self.real[:count]]
        while len(grown) < count:
            grown.append(self.vary(self.rng.choice(self.real), self.rng.randint(1, max_edits)))
        return grown

    # --- edits: each changes `qst` in place and says whether it could --------------------------

    def _change_literal(self, qst: Node) -> bool:
        values = [node for node in _walk(qst) if "value" in node]
        if not values:
            return False
        node = self.rng.choice(values)
        value = node["value"]
        if isinstance(value, int | float) and not isinstance(value, bool) and self.rng.random() < 0.5:
            factor = self.rng.choice((0.5, 0.8, 1.25, 2.0))
            node["value"] = max(1, round(value * factor)) if isinstance(value, int) else value * factor
        else:
            node["value"] = self.rng.choice(self.literals_by_label[node["label"]])
        node.pop("text", None)
        return True

    def _relabel(self, qst: Node) -> bool:
        nodes = [node for node in _walk(qst) if _head(node) in self.labels_by_head]
        if not nodes:
            return False
        node = self.rng.choice(nodes)
        node["label"] = self.rng.choice(self.labels_by_head[_head(node)])
        return True

    def _where(self, qst: Node) -> Node | None:
        return next((child for child in qst["children"] if child["label"] == "where"), None)

    def _add_condition(self, qst: Node) -> bool:
        if not self.conditions:
            return False
        where = self._where(qst)
        if where is None:
            where = {"label": "where", "children": []}
            qst["children"].insert(min(2, len(qst["children"])), where)
        where["children"].append(copy.deepcopy(self.rng.choice(self.conditions)))
        return True

    def _drop_condition(self, qst: Node) -> bool:
        where = self._where(qst)
        if where is None:
            return False
        where["children"].pop(self.rng.randrange(len(where["children"])))
        if not where["children"]:
            qst["children"].remove(where)
        return True

    def _group_conditions(self, qst: Node) -> bool:
        """Put some of the conditions under a new AND/OR node: an inner node inserted, the edit the
        top-down bound cannot follow (so zss has to decide)."""
        where = self._where(qst)
        if where is None:
            return False
        conditions = where["children"]
        start = self.rng.randrange(len(conditions))
        stop = self.rng.randint(start + 1, len(conditions))
        group = {"label": self.rng.choice(("bool:and", "bool:or")), "children": conditions[start:stop]}
        where["children"] = [*conditions[:start], group, *conditions[stop:]]
        return True

    def _toggle_limit(self, qst: Node) -> bool:
        limits = [child for child in qst["children"] if child["label"] == "limit"]
        if limits:
            qst["children"].remove(limits[0])
        else:
            count = self.rng.choice((1, 3, 5, 10, 20, 50))
            number: Node = {"label": "value:number", "value": count, "children": []}
            qst["children"].append({"label": "limit", "children": [number]})
        return True
