"""The hand-written dev set is well-formed, balanced, and every gold SQL is a guarded, runnable read."""

from collections import Counter
from pathlib import Path

import pytest

from backend.domain.language_bench import (
    CATEGORIES,
    DEFAULT_DEV_SET,
    DEV_SET_FILES,
    MEASURED_BLIND_ROUNDS,
    DevSetError,
    load_dev_set,
    load_dev_sets,
    parse_dev_set,
    select,
)
from backend.domain.market.guard import check_read_only
from backend.domain.market.store import MarketStore

ITEMS = load_dev_set()
SEED_QUESTIONS = (
    "2025年9月8日收盘价最高的上证所股票",
    "市盈率低于15且净利润连续三年增长",
    "今日收盘价突破60日均线的科技股",
    "统计各行业板块涨幅前三的股票及其平均市值",
)


def test_dev_set_is_large_enough_and_balanced_across_categories() -> None:
    assert len(ITEMS) >= 150
    per_category = Counter(item.category for item in ITEMS)
    assert set(per_category) == set(CATEGORIES)
    assert max(per_category.values()) - min(per_category.values()) <= len(ITEMS) // 10


@pytest.mark.parametrize("category", CATEGORIES)
def test_each_category_is_about_half_chinese_half_english(category: str) -> None:
    langs = Counter(item.lang for item in ITEMS if item.category == category)
    total = sum(langs.values())
    assert 0.4 <= langs["zh"] / total <= 0.6
    assert 0.4 <= langs["en"] / total <= 0.6


def test_ids_are_unique_and_questions_distinct() -> None:
    assert len({item.id for item in ITEMS}) == len(ITEMS)
    assert len({item.question for item in ITEMS}) == len(ITEMS)


def test_the_seed_examples_are_included_verbatim() -> None:
    questions = {item.question for item in ITEMS}
    assert set(SEED_QUESTIONS) <= questions


def test_every_gold_sql_passes_the_guard() -> None:
    refused = []
    for item in ITEMS:
        try:
            check_read_only(item.gold_sql)
        except Exception as error:
            refused.append(f"{item.id}: {error}")
    assert refused == []


def test_every_gold_sql_runs_on_the_demo_market(demo_store: MarketStore) -> None:
    failed = []
    for item in ITEMS:
        try:
            demo_store.query(item.gold_sql)
        except Exception as error:
            failed.append(f"{item.id}: {error}")
    assert failed == []


def test_duplicate_ids_and_bad_fields_are_refused() -> None:
    item = {
        "id": "x-1",
        "category": "technical",
        "lang": "zh",
        "question": "q",
        "gold_sql": "SELECT 1",
        "order_matters": False,
        "notes": "n",
    }
    with pytest.raises(DevSetError, match="duplicate item id x-1"):
        parse_dev_set({"items": [item, dict(item)]})
    with pytest.raises(DevSetError, match="category"):
        parse_dev_set({"items": [{**item, "category": "other"}]})
    with pytest.raises(DevSetError, match="order_matters"):
        parse_dev_set({"items": [{**item, "order_matters": "yes"}]})
    with pytest.raises(DevSetError, match="lacks notes"):
        parse_dev_set({"items": [{k: v for k, v in item.items() if k != "notes"}]})


def test_select_filters_by_category_and_id() -> None:
    technical = select(ITEMS, ["technical"])
    assert technical and all(item.category == "technical" for item in technical)
    assert [item.id for item in select(ITEMS, ids=["stat-001"])] == ["stat-001"]
    with pytest.raises(DevSetError, match="unknown categories"):
        select(ITEMS, ["astrology"])


def test_measured_blind_rounds_join_the_dev_set_in_place(tmp_path: Path) -> None:
    merged = load_dev_sets()
    files = [DEFAULT_DEV_SET, *MEASURED_BLIND_ROUNDS]
    assert tuple(files) == DEV_SET_FILES
    assert [item.id for item in merged] == [item.id for path in files for item in load_dev_set(path)]
    assert len({item.id for item in merged}) == len(merged)
    assert {"blind_round1.yaml", "blind_round2.yaml"} <= {path.name for path in MEASURED_BLIND_ROUNDS}
    copy = tmp_path / "copy.yaml"
    copy.write_text(DEFAULT_DEV_SET.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(DevSetError, match=r"duplicate item id fund-001 in dev_set\.yaml and copy\.yaml"):
        load_dev_sets([DEFAULT_DEV_SET, copy])
