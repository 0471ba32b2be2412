"""Limits at execution (DESIGN.md §4): readonly=1, time, rows and memory, each with overflow `throw`.

Each test opens its own handle on this process's chdb directory with deliberately tiny limits; the
data comes from the shared small demo market.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.domain.market.config import QueryLimits, StoreConfig
from backend.domain.market.errors import (
    MemoryLimitExceeded,
    QueryFailed,
    QueryRejected,
    QueryTimeout,
    ResultTooLarge,
)
from backend.domain.market.store import MarketStore


@pytest.fixture
def limited(chdb_url: str, demo_store: MarketStore) -> Iterator[MarketStore]:
    store = MarketStore(
        StoreConfig(
            url=chdb_url,
            limits=QueryLimits(max_execution_seconds=1, max_result_rows=50, max_memory_bytes=64 * 1024**2),
        )
    )
    yield store
    store.close()


def test_every_analyst_query_runs_read_only_with_throwing_limits() -> None:
    settings = QueryLimits(max_execution_seconds=7, max_result_rows=11, max_memory_bytes=13).as_settings()
    assert settings == {
        "readonly": 1,
        "max_execution_time": 7,
        "timeout_overflow_mode": "throw",
        "max_result_rows": 11,
        "result_overflow_mode": "throw",
        "max_memory_usage": 13,
    }


def test_result_at_the_row_limit_comes_back_whole(limited: MarketStore) -> None:
    result = limited.query("SELECT ts_code FROM market.stock_basic ORDER BY ts_code LIMIT 50")
    assert len(result.rows) == 50


def test_result_over_the_row_limit_raises_instead_of_truncating(limited: MarketStore) -> None:
    with pytest.raises(ResultTooLarge, match="more rows than the limit"):
        limited.query("SELECT ts_code, trade_date, close FROM market.daily")


@pytest.mark.parametrize("ending", [";", "; -- the end", ";\n/* the end */", " -- the end\n;"])
def test_trailing_semicolon_and_comments_do_not_shed_the_limits(limited: MarketStore, ending: str) -> None:
    with pytest.raises(ResultTooLarge):
        limited.query("SELECT ts_code, trade_date FROM market.daily" + ending)


def test_internal_reads_have_no_row_limit(limited: MarketStore) -> None:
    result = limited.internal_query("SELECT ts_code FROM market.stock_basic")
    assert len(result.rows) > 50


def test_slow_query_is_stopped_at_the_time_limit(limited: MarketStore) -> None:
    with pytest.raises(QueryTimeout, match="time limit"):
        limited.query("SELECT sum(sipHash64(number)) FROM numbers(20000000000)")


def test_memory_hungry_query_is_stopped_at_the_memory_limit(limited: MarketStore) -> None:
    with pytest.raises(MemoryLimitExceeded, match="more memory"):
        limited.query("SELECT length(groupArray(number)) FROM numbers(50000000)")


def test_write_through_the_executor_is_refused_by_the_guard(limited: MarketStore) -> None:
    with pytest.raises(QueryRejected, match="only SELECT/WITH"):
        limited.query("INSERT INTO market.trade_cal VALUES ('SSE', '2031-01-01', 1, NULL)")
    with pytest.raises(QueryRejected, match="INSERT inside the query"):
        limited.internal_query(
            "WITH x AS (INSERT INTO market.trade_cal VALUES ('SSE', '2031-01-01', 1, NULL)) SELECT 1"
        )


def test_readonly_mode_refuses_a_write_the_guard_would_have_missed(limited: MarketStore) -> None:
    # The second wall: run a write past the guard, with the analyst settings, as a guard bug would.
    with pytest.raises(QueryFailed, match="read-only mode"):
        limited._run(
            "INSERT INTO market.trade_cal VALUES ('SSE', '2031-01-01', 1, NULL)",
            None,
            limited.config.limits.as_settings(),
        )
    assert limited.internal_query(
        "SELECT count() FROM market.trade_cal WHERE cal_date = '2031-01-01'"
    ).rows == [(0,)]
    # The refused write left no read-only state behind: the store keeps answering with its limits.
    assert limited.query("SELECT count() FROM market.stock_basic").rows[0][0] > 0
