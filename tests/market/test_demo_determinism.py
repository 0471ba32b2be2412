"""Same seed, same market; another seed, another market; small samples stay coherent."""

from __future__ import annotations

from datetime import date

import numpy as np
import pyarrow as pa
import pytest

from backend.domain.market.demo import build_demo_tables, generate_demo
from backend.domain.market.demo.universe import FAMOUS_CODES
from backend.domain.market.errors import MarketError
from backend.domain.market.importers.loading import row_counts
from backend.domain.market.store import MarketStore

WINDOW = {"start": date(2025, 6, 2), "end": date(2025, 12, 31)}


def _without_load_time(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    return {
        name: t.drop_columns(["loaded_at"]) if name == "dataset_info" else t for name, t in tables.items()
    }


def test_same_seed_gives_identical_tables() -> None:
    first = _without_load_time(build_demo_tables(seed=7, n_stocks=60, **WINDOW))
    second = _without_load_time(build_demo_tables(seed=7, n_stocks=60, **WINDOW))
    assert first.keys() == second.keys()
    for name in first:
        assert first[name].equals(second[name]), name


def test_another_seed_gives_another_market() -> None:
    first = build_demo_tables(seed=7, n_stocks=60, **WINDOW)
    other = build_demo_tables(seed=8, n_stocks=60, **WINDOW)
    assert not first["daily"].equals(other["daily"])
    assert not np.array_equal(first["income"]["revenue"].to_numpy(), other["income"]["revenue"].to_numpy())


def test_tiny_sample_keeps_famous_names_and_every_board() -> None:
    tables = build_demo_tables(seed=3, n_stocks=40, **WINDOW)
    basic = tables["stock_basic"]
    assert basic.num_rows == 40
    assert set(FAMOUS_CODES) <= set(basic["symbol"].to_pylist())
    assert set(basic["market"].to_pylist()) == {"主板", "创业板", "科创板", "北交所"}
    assert tables["index_weight"].num_rows > 0


def test_generate_refuses_a_store_with_data_unless_replacing(empty_store: MarketStore) -> None:
    generate_demo(empty_store, seed=5, n_stocks=30, **WINDOW)
    before = row_counts(empty_store)
    with pytest.raises(MarketError, match="already holds data"):
        generate_demo(empty_store, seed=6, n_stocks=30, **WINDOW)
    assert row_counts(empty_store) == before
    summary = generate_demo(empty_store, seed=6, n_stocks=35, replace=True, **WINDOW)
    assert row_counts(empty_store)["stock_basic"] == summary.stocks == 35
    assert summary.rows == row_counts(empty_store)
