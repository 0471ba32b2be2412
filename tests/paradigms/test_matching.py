"""Pruned matching returns exactly the exhaustive zss scan's answer (ids, distances, order).

Libraries are random trees grown from the real QSTs of the dev set (variations.QstVariations): literal
changes, relabels, conditions added or dropped, limits toggled — with duplicates, so that ties on
distance are common and the order by id is exercised.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.domain.language.qst import Node
from backend.domain.paradigms.distance import (
    TreeProfile,
    label_bound,
    localized_distance,
    top_down_distance,
    traversal_bound,
    tree_distance,
)
from backend.domain.paradigms.matching import Match, ParadigmIndex, exhaustive_nearest
from backend.domain.paradigms.trees import to_tree
from backend.domain.paradigms.variations import QstVariations

PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _where(qst: Node) -> Node:
    return next((child for child in qst["children"] if child["label"] == "where"), {"children": []})


def grown_library(real_qsts: list[Node], rng: random.Random, size: int) -> tuple[QstVariations, list[Node]]:
    variations = QstVariations(rng.sample(real_qsts, k=min(15, len(real_qsts))), rng)
    library: list[Node] = []
    while len(library) < size:
        if library and rng.random() < 0.15:
            library.append(rng.choice(library))  # exact duplicates: ties at distance 0
        else:
            library.append(variations.vary(rng.choice(variations.real), rng.randint(0, 4)))
    return variations, library


@PROPERTY_SETTINGS
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    size=st.integers(min_value=1, max_value=40),
    # up to 10: far from the query the bounds are looser, and whole-tree zss runs inside the search
    tau=st.sampled_from([0.0, 0.25, 1.0, 2.0, 3.0, 4.5, 6.0, 10.0]),
    top_k=st.one_of(st.none(), st.integers(min_value=1, max_value=6)),
)
def test_pruned_search_equals_exhaustive_scan(
    real_qsts: list[Node], seed: int, size: int, tau: float, top_k: int | None
) -> None:
    rng = random.Random(seed)
    variations, library = grown_library(real_qsts, rng, size)
    ids = rng.sample(range(1, 20 * size + 1), size)  # ids unrelated to insertion order
    index = ParadigmIndex()
    for paradigm_id, qst in zip(ids, library, strict=True):
        index.add(paradigm_id, qst)
    query = variations.vary(rng.choice(library + variations.real), rng.randint(0, 3))

    expected = exhaustive_nearest(index.trees(), to_tree(query), tau=tau, top_k=top_k)
    assert index.nearest(query, tau=tau, top_k=top_k) == expected


@PROPERTY_SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), limit=st.sampled_from([0.0, 1.0, 3.0, 6.0]))
def test_bounds_hold_against_zss(real_qsts: list[Node], seed: int, limit: float) -> None:
    rng = random.Random(seed)
    variations, library = grown_library(real_qsts, rng, 2)
    first = to_tree(library[0])
    second = to_tree(variations.vary(rng.choice([library[1], library[0]]), rng.randint(0, 4)))
    exact = tree_distance(first, second)
    first_profile, second_profile = TreeProfile.of(first), TreeProfile.of(second)

    assert label_bound(first_profile, second_profile) <= exact
    traversal = traversal_bound(first_profile, second_profile, limit)
    if traversal <= limit:
        assert traversal <= exact
    else:
        assert exact > limit
    assert top_down_distance(first, second) >= exact
    assert localized_distance(first, second) >= exact
    assert tree_distance(second, first) == exact


def test_ties_are_ordered_by_id_and_top_k_keeps_the_smallest(real_qsts: list[Node]) -> None:
    index = ParadigmIndex()
    for paradigm_id in (30, 10, 20):
        index.add(paradigm_id, real_qsts[0])
    assert index.nearest(real_qsts[0], tau=0, top_k=None) == [Match(0, 10), Match(0, 20), Match(0, 30)]
    assert index.nearest(real_qsts[0], tau=0, top_k=2) == [Match(0, 10), Match(0, 20)]
    index.remove(10)
    assert index.nearest(real_qsts[0], tau=0, top_k=1) == [Match(0, 20)]


def test_degenerate_requests() -> None:
    index = ParadigmIndex()
    qst: Node = {"label": "select", "children": []}
    assert index.nearest(qst, tau=3) == []
    index.add(1, qst)
    assert index.nearest(qst, tau=-1) == []
    with pytest.raises(ValueError, match="top_k"):
        index.nearest(qst, tau=3, top_k=0)


def test_an_inserted_inner_node_is_settled_on_the_diverging_subtree(real_qsts: list[Node]) -> None:
    # Grouping conditions under a new OR node costs one insertion; the top-down mapping cannot insert
    # an inner node, so the localized bound runs zss on the two `where` subtrees only.
    qst = next(item for item in real_qsts if len(_where(item)["children"]) >= 2)  # fund-001: PE and growth
    grouped = copy.deepcopy(qst)
    _where(grouped)["children"] = [{"label": "bool:or", "children": _where(grouped)["children"]}]
    index = ParadigmIndex()
    index.add(7, qst)
    found, stats = index.search(to_tree(grouped), tau=3)
    assert found == [Match(2.0, 7)]
    assert (stats.localized, stats.exact_by_bounds, stats.zss_calls) == (1, 1, 0)


def test_a_condition_moved_out_of_where_is_left_to_zss() -> None:
    # "banks above their 250-day MA" vs "3 banks": no bound meets another; zss on the whole trees.
    def screen(where: list[Node], extra: list[Node]) -> Node:
        head: list[Node] = [
            {"label": "return", "children": [{"label": "entity:stock", "children": []}]},
            {"label": "time:latest", "children": []},
        ]
        return {"label": "select", "children": [*head, {"label": "where", "children": where}, *extra]}

    banks: Node = {
        "label": "scope:industry",
        "children": [{"label": "value:entity:industry", "value": "银行", "children": []}],
    }
    above_ma: Node = {
        "label": "technical:ma_above",
        "children": [{"label": "value:number", "value": 250, "children": []}],
    }
    limit: Node = {"label": "limit", "children": [{"label": "value:number", "value": 3, "children": []}]}
    index = ParadigmIndex()
    index.add(1, screen([copy.deepcopy(banks), above_ma], []))
    found, stats = index.search(to_tree(screen([banks], [limit])), tau=10)
    assert found == [Match(6.25, 1)]
    assert (stats.exact_by_bounds, stats.zss_calls) == (0, 1)


def test_pruning_skips_most_of_a_grown_library(real_qsts: list[Node]) -> None:
    rng = random.Random(20250908)
    variations = QstVariations(real_qsts, rng)
    index = ParadigmIndex()
    for paradigm_id, qst in enumerate(variations.grow(400), start=1):
        index.add(paradigm_id, qst)
    for qst in real_qsts[:20]:
        found, stats = index.search(to_tree(qst), tau=3, top_k=5)
        assert found and found[0].distance == 0  # the real QST is in the library
        assert stats.after_size_and_labels < stats.library / 4
        assert stats.zss_calls + stats.exact_by_bounds <= stats.visited <= stats.after_size_and_labels
