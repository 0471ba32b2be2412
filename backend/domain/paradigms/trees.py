"""QST → ordered labelled tree for the tree edit distance; canonical form and signatures.

A QST (backend/domain/language/QST.md) is already canonical for the parser, except that unordered
children (the conditions under `where`, `bool:and`…) are sorted by their full JSON, literals
included. Two questions that differ only in a literal could then list the same conditions in another
order and look structurally different. `canonical_qst` re-sorts those children by their *shape*
first (labels only) and by their literals second, so literal-only variants always line up node for
node. Slot paths in SQL templates refer to this canonical form.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from backend.domain.labelled_tree import Node, QstError

# Parents whose children form a set: AND/OR of conditions, and the IN-list of a scope.
_SET_PARENTS = frozenset({"where", "having", "bool:and", "bool:or"})
# These scopes hold an operator followed by its operand: an ordered pair, not a set.
_ORDERED_SCOPES = frozenset({"scope:list_date", "scope:listed_years"})

Path = tuple[int, ...]


def _children_order_is_free(label: str) -> bool:
    return label in _SET_PARENTS or (label.startswith("scope:") and label not in _ORDERED_SCOPES)


def _label(node: Any) -> str:
    if not isinstance(node, dict):
        raise QstError(f"a QST node must be a JSON object, got {type(node).__name__}")
    label = node.get("label")
    if not isinstance(label, str) or not label:
        raise QstError(f"node without a label: {node!r}")
    return label


def _children(node: Node) -> list[Node]:
    children = node.get("children", [])
    if not isinstance(children, list):
        raise QstError(f"children of {node.get('label')!r} must be a list")
    return children


def literal_key(value: Any) -> str:
    """One text per literal: 15 and 15.0 are the same literal (the QST writes whole numbers as ints)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _shape(node: Node) -> list[Any]:
    return [_label(node), [_shape(child) for child in _children(node)]]


def _content(node: Node) -> list[Any]:
    # The `text` field keeps the question's words for messages; it is not part of the query.
    literal = literal_key(node["value"]) if "value" in node else None
    return [_label(node), literal, [_content(child) for child in _children(node)]]


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def canonical_qst(qst: Node) -> Node:
    """A copy of the QST whose unordered children are sorted by shape, then by literals."""
    label = _label(qst)
    children = [canonical_qst(child) for child in _children(qst)]
    if _children_order_is_free(label):
        children.sort(key=lambda child: (_dumps(_shape(child)), _dumps(_content(child))))
    copy = {key: value for key, value in qst.items() if key != "children"}
    copy["children"] = children
    return copy


def shape_signature(qst: Node) -> str:
    """SHA-256 of the canonical tree's labels: equal exactly when two QSTs differ only in literals."""
    return hashlib.sha256(_dumps(_shape(canonical_qst(qst))).encode()).hexdigest()


def qst_signature(qst: Node) -> str:
    """SHA-256 of the canonical tree with its literals: equal exactly when two QSTs ask the same."""
    return hashlib.sha256(_dumps(_content(canonical_qst(qst))).encode()).hexdigest()


@dataclass(frozen=True, eq=False, slots=True)
class TreeNode:
    """A node of the tree handed to zss. `head` is the label's kind (`attribute` of
    `attribute:close`); `literal` is the value's `literal_key` on value nodes, None elsewhere."""

    label: str
    head: str
    literal: str | None
    children: tuple[TreeNode, ...]
    size: int  # nodes in this subtree, itself included


def _build(node: Node) -> TreeNode:
    label = _label(node)
    children = tuple(_build(child) for child in _children(node))
    return TreeNode(
        label=label,
        head=label.partition(":")[0],
        literal=literal_key(node["value"]) if "value" in node else None,
        children=children,
        size=1 + sum(child.size for child in children),
    )


def to_tree(qst: Node) -> TreeNode:
    """The zss tree of a QST (canonical order)."""
    return _build(canonical_qst(qst))


def preorder(tree: TreeNode) -> Iterator[TreeNode]:
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def postorder(tree: TreeNode) -> Iterator[TreeNode]:
    for child in tree.children:
        yield from postorder(child)
    yield tree


def value_nodes(canonical: Node, path: Path = ()) -> Iterator[tuple[Path, Node]]:
    """(path, node) of every node carrying a literal, in preorder; paths are child indexes."""
    if "value" in canonical:
        yield path, canonical
    for index, child in enumerate(_children(canonical)):
        yield from value_nodes(child, (*path, index))


def node_at(canonical: Node, path: Path) -> Node:
    node = canonical
    for index in path:
        node = _children(node)[index]
    return node


def outline(qst: Node) -> list[str]:
    """The QST as an indented tree, one node a line (label, then its literal): what curators read."""
    lines: list[str] = []

    def walk(node: Node, depth: int) -> None:
        literal = f"  = {literal_key(node['value'])}" if "value" in node else ""
        lines.append(f"{'  ' * depth}{_label(node)}{literal}")
        for child in _children(node):
            walk(child, depth + 1)

    walk(canonical_qst(qst), 0)
    return lines
