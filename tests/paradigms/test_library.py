"""The paradigm library in the database: LFU eviction order (frequency, then age), the 30-day window,
pinning, duplicates, statistics, and the matching index following the table."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

import pytest
from django.utils import timezone

from backend.domain.language.qst import Node, QstError
from backend.domain.market.errors import QueryRejected
from backend.domain.paradigms.eviction import NothingToEvict
from backend.domain.paradigms.templates import fill_template
from paradigms import selectors, services
from paradigms.models import LibraryDay, Origin, Paradigm, ParadigmUse, ValidationStatus

pytestmark = pytest.mark.django_db


def ranking(metric: str, limit: int) -> tuple[Node, str]:
    """'今日<metric>最高的<limit>只股票': a QST and its SQL; distinct (metric, limit) → distinct paradigm."""
    number: Node = {"label": "value:number", "value": limit, "children": []}
    qst: Node = {
        "label": "select",
        "children": [
            {"label": "return", "children": [{"label": "entity:stock", "children": []}]},
            {"label": "time:latest", "children": []},
            {"label": "order:desc", "children": [{"label": f"attribute:{metric}", "children": []}]},
            {"label": "limit", "children": [number]},
        ],
    }
    sql = f"SELECT ts_code, {metric} FROM market.daily ORDER BY {metric} DESC, ts_code LIMIT {limit}"
    return qst, sql


def insert(metric: str, limit: int, *, capacity: int = 100, pinned: bool = False) -> services.InsertOutcome:
    qst, sql = ranking(metric, limit)
    return services.insert_paradigm(
        question=f"top {limit} by {metric}",
        qst=qst,
        sql=sql,
        origin=Origin.LEARNED,
        validation_status=ValidationStatus.VERIFIED,
        resolved_on=None,
        pinned=pinned,
        capacity=capacity,
    )


def use(paradigm: Paradigm, times: int, days_ago: int = 0) -> None:
    for _ in range(times):
        assert services.record_use(paradigm.pk, day=services.library_today() - timedelta(days=days_ago))


def age(paradigm: Paradigm, days: int) -> None:
    Paradigm.objects.filter(pk=paradigm.pk).update(created_at=timezone.now() - timedelta(days=days))


def test_insert_stores_the_template_and_what_matching_needs() -> None:
    outcome = insert("close", 10)
    paradigm = Paradigm.objects.get(pk=outcome.paradigm.pk)
    assert outcome.created and outcome.evicted_ids == []
    assert paradigm.sql_template.endswith("LIMIT {slot_0:Float64}")
    assert paradigm.slots[0]["paths"] == [[3, 0]]
    assert paradigm.node_count == 8
    assert len(paradigm.shape_signature) == len(paradigm.qst_signature) == 64
    assert paradigm.created_at.tzinfo is not None


def test_a_stored_template_fills_like_the_extracted_one() -> None:
    paradigm = insert("close", 10).paradigm
    template = selectors.paradigm_template(Paradigm.objects.get(pk=paradigm.pk))
    assert fill_template(template, ranking("close", 10)[0], market_day=None) == ranking("close", 10)[1]
    assert fill_template(template, ranking("close", 3)[0], market_day=None) == ranking("close", 3)[1]


def test_the_least_used_goes_first_at_capacity() -> None:
    busy, idle, moderate = (insert(metric, 10, capacity=3).paradigm for metric in ("close", "vol", "amount"))
    use(busy, 3)
    use(moderate, 1)
    outcome = insert("pe", 10, capacity=3)
    assert outcome.evicted_ids == [idle.pk]
    assert set(Paradigm.objects.values_list("pk", flat=True)) == {busy.pk, moderate.pk, outcome.paradigm.pk}


def test_equal_uses_evict_the_oldest_created() -> None:
    newer, oldest, older = (insert(metric, 10, capacity=3).paradigm for metric in ("close", "vol", "amount"))
    age(oldest, 20)
    age(older, 10)
    for paradigm in (newer, oldest, older):
        use(paradigm, 2)
    newest = insert("pe", 10, capacity=3)
    assert newest.evicted_ids == [oldest.pk]
    use(newest.paradigm, 2)
    assert insert("pb", 10, capacity=3).evicted_ids == [older.pk]


def test_only_uses_in_the_last_thirty_days_count() -> None:
    stale, recent = (insert(metric, 10, capacity=2).paradigm for metric in ("close", "vol"))
    age(recent, 40)  # older, so it would go first on a tie
    use(stale, 50, days_ago=30)  # the day just outside the window
    use(recent, 1, days_ago=29)  # the first day inside it
    today = services.library_today()
    assert selectors.uses_in_window(stale.pk, today) == 0
    assert selectors.uses_in_window(recent.pk, today) == 1
    assert insert("pe", 10, capacity=2).evicted_ids == [stale.pk]


def test_pinned_paradigms_are_never_evicted() -> None:
    pinned = insert("close", 10, capacity=2, pinned=True).paradigm
    age(pinned, 100)
    kept = insert("vol", 10, capacity=2).paradigm
    use(kept, 10)
    assert insert("pe", 10, capacity=2).evicted_ids == [kept.pk]
    services.set_pinned(Paradigm.objects.exclude(pk=pinned.pk).get().pk, True)
    with pytest.raises(NothingToEvict):
        insert("pb", 10, capacity=2)
    assert Paradigm.objects.count() == 2  # the refused insert left nothing behind


def test_the_library_never_exceeds_its_capacity() -> None:
    for limit in range(1, 13):
        insert("close", limit, capacity=5)
        assert Paradigm.objects.count() == min(limit, 5)
    # nothing was used: each insert evicted the oldest, so the five newest remain
    assert sorted(
        paradigm.qst["children"][3]["children"][0]["value"] for paradigm in Paradigm.objects.all()
    ) == [
        8,
        9,
        10,
        11,
        12,
    ]


def test_an_identical_qst_returns_the_stored_paradigm() -> None:
    first = insert("close", 10, capacity=1)
    again = insert("close", 10, capacity=1)
    assert not again.created and again.paradigm.pk == first.paradigm.pk and again.evicted_ids == []


def test_uses_of_an_evicted_paradigm_are_gone_with_it() -> None:
    evicted = insert("close", 10, capacity=1).paradigm
    use(evicted, 2)
    insert("vol", 10, capacity=1)
    assert not services.record_use(evicted.pk)
    assert not ParadigmUse.objects.filter(paradigm_id=evicted.pk).exists()


def test_statistics_count_hits_misses_insertions_and_evictions() -> None:
    kept = insert("close", 10, capacity=1).paradigm
    use(kept, 3)
    services.record_miss()
    kept = insert("vol", 10, capacity=1).paradigm
    stats = selectors.library_stats()
    assert {key: stats[key] for key in ("size", "hits", "misses", "insertions", "evictions")} == {
        "size": 1,
        "hits": 3,
        "misses": 1,
        "insertions": 2,
        "evictions": 1,
    }
    assert stats["hit_rate"] == 0.75
    assert LibraryDay.objects.get().day == services.library_today()


def test_refused_triples_are_not_stored() -> None:
    qst, sql = ranking("close", 10)
    store = partial(
        services.insert_paradigm,
        question="q",
        origin=Origin.ADMIN,
        validation_status=ValidationStatus.VERIFIED,
        resolved_on=None,
    )
    with pytest.raises(QueryRejected):
        store(qst=qst, sql="DROP TABLE market.daily")
    with pytest.raises(QstError):
        store(qst={"label": "where", "children": []}, sql=sql)
    assert not Paradigm.objects.exists()


def test_nearest_paradigms_follow_inserts_and_evictions() -> None:
    close = insert("close", 10, capacity=2).paradigm
    vol = insert("vol", 10, capacity=2).paradigm
    query, _sql = ranking("close", 20)
    matches = selectors.nearest_paradigms(query, tau=3, top_k=5)
    assert [(match.paradigm_id, match.distance) for match in matches] == [(close.pk, 0.25), (vol.pk, 1.25)]
    use(vol, 1)
    amount = insert("amount", 10, capacity=2).paradigm  # evicts `close`
    matches = selectors.nearest_paradigms(query, tau=3, top_k=5)
    assert [match.paradigm_id for match in matches] == [vol.pk, amount.pk]
