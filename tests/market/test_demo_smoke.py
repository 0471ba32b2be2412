from backend.domain.market.stats import collect_stats
from backend.domain.market.store import MarketStore


def test_demo_store_fills_every_table(demo_store: MarketStore) -> None:
    stats = {s.table: s for s in collect_stats(demo_store)}
    assert all(s.rows > 0 for s in stats.values()), stats
    assert stats["stock_basic"].rows == 300
    assert stats["daily"].stocks == 300


def test_empty_store_has_schema_but_no_rows(empty_store: MarketStore) -> None:
    stats = collect_stats(empty_store)
    assert [s.rows for s in stats] == [0] * len(stats)
    assert {s.table for s in stats} >= {"daily", "stock_basic", "income"}
