"""Canonical trees, signatures, and the cost model's three tiers measured through zss."""

from __future__ import annotations

import copy

import pytest

from backend.domain.language.qst import Node, sorted_nodes
from backend.domain.paradigms.costs import DEFAULT_COSTS, CostModel, CostModelError
from backend.domain.paradigms.distance import tree_distance
from backend.domain.paradigms.trees import (
    canonical_qst,
    literal_key,
    qst_signature,
    shape_signature,
    to_tree,
)


def leaf(label: str, value: object = None) -> Node:
    node: Node = {"label": label, "children": []}
    if value is not None:
        node["value"] = value
    return node


def compare(metric: str, op: str, value: float) -> Node:
    return {
        "label": "condition:compare",
        "children": [leaf(f"attribute:{metric}"), leaf(f"operator:{op}"), leaf("value:number", value)],
    }


def screen(*conditions: Node, limit: int | None = None) -> Node:
    children: list[Node] = [
        {"label": "return", "children": [leaf("entity:stock")]},
        leaf("time:latest"),
        {"label": "where", "children": list(conditions)},
    ]
    if limit is not None:
        children.append({"label": "limit", "children": [leaf("value:number", limit)]})
    return {"label": "select", "children": children}


def test_literal_variants_line_up_even_when_the_qst_sorted_them_apart() -> None:
    # The parser sorts conditions by their full JSON, literals included: a literal alone can swap
    # two conditions of different shapes. The canonical form sorts by shape first.
    with_time = compare("close", ">", 100)
    with_time["children"].append({"label": "time:date", "children": [leaf("value:date", "2025-09-08")]})
    first = screen(*sorted_nodes([compare("close", ">", 5), copy.deepcopy(with_time)]))
    second = screen(*sorted_nodes([compare("close", ">", 0.5), copy.deepcopy(with_time)]))
    first_order = [len(item["children"]) for item in first["children"][2]["children"]]
    second_order = [len(item["children"]) for item in second["children"][2]["children"]]
    assert first_order != second_order  # the parser's order differs…
    assert shape_signature(first) == shape_signature(second)
    assert tree_distance(to_tree(first), to_tree(second)) == DEFAULT_COSTS.literal  # …the trees line up


def test_condition_order_does_not_change_signatures() -> None:
    first = screen(compare("pe", "<", 15), compare("pb", "<", 2))
    second = screen(compare("pb", "<", 2), compare("pe", "<", 15))
    assert qst_signature(first) == qst_signature(second)
    assert canonical_qst(first) == canonical_qst(second)


def test_text_and_integral_floats_are_not_literal_differences() -> None:
    first = screen(compare("pct_chg", ">", 5))
    second = copy.deepcopy(first)
    second["children"][2]["children"][0]["children"][2].update(value=5.0, text="5%")
    assert literal_key(5.0) == literal_key(5)
    assert qst_signature(first) == qst_signature(second)
    assert tree_distance(to_tree(first), to_tree(second)) == 0


def test_cost_tiers_through_zss() -> None:
    base = screen(compare("pe", "<", 15), limit=10)
    literal = screen(compare("pe", "<", 20), limit=10)
    attribute = screen(compare("pb", "<", 15), limit=10)
    operator = screen(compare("pe", ">", 15), limit=10)
    no_limit = screen(compare("pe", "<", 15))
    extra_condition = screen(compare("pe", "<", 15), compare("pb", "<", 2), limit=10)

    def distance(other: Node) -> float:
        return tree_distance(to_tree(base), to_tree(other))

    assert distance(base) == 0
    assert distance(literal) == 0.25
    assert distance(attribute) == 1
    assert distance(operator) == 1
    assert distance(no_limit) == 2 * 2  # `limit` and its value deleted
    assert distance(extra_condition) == 4 * 2  # a compare node and its three children inserted
    assert distance(literal) < distance(attribute) < distance(no_limit)


def test_changing_a_node_kind_costs_as_much_as_structure() -> None:
    where = screen(compare("pe", "<", 15))
    having = copy.deepcopy(where)
    having["children"][2]["label"] = "having"
    assert tree_distance(to_tree(where), to_tree(having)) == DEFAULT_COSTS.structure


@pytest.mark.parametrize(
    ("literal", "detail", "structure"),
    [(1.0, 1.0, 2.0), (0.5, 2.0, 1.0), (0.0, 1.0, 2.0), (0.1, 1.0, 2.0)],
)
def test_cost_models_the_bounds_do_not_hold_for_are_refused(
    literal: float, detail: float, structure: float
) -> None:
    with pytest.raises(CostModelError):
        CostModel(literal=literal, detail=detail, structure=structure)
