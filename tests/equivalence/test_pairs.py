"""Input/expected pairs from fixtures/pairs.json, checked with real z3 and confirmed on chdb or SQLite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from backend.domain.equivalence import Schema, check_equivalence

FIXTURES = Path(__file__).parent / "fixtures"
PAIRS: list[dict[str, Any]] = json.loads((FIXTURES / "pairs.json").read_text(encoding="utf-8"))
SQLITE_SCHEMA = Schema.from_ddl((FIXTURES / "ddl_sqlite.sql").read_text(encoding="utf-8"), "sqlite")
MARKET_SCHEMA = Schema.market()


@pytest.mark.parametrize("pair", PAIRS, ids=[p["name"] for p in PAIRS])
def test_pair_verdict(pair: dict[str, Any]) -> None:
    market = pair["schema"] == "market"
    result = check_equivalence(
        pair["a"],
        pair["b"],
        schema=MARKET_SCHEMA if market else SQLITE_SCHEMA,
        dialect="clickhouse" if market else "sqlite",
        semantics=pair.get("semantics", "bag"),
        bound=pair.get("bound", 3),
        timeout_s=60,
    )
    assert result.verdict == pair["expect"], result.reason
    if pair["expect"] == "not_equivalent":
        # Every not_equivalent verdict carries a database on which the engine really disagreed.
        assert result.confirmed
        assert result.counterexample
        assert result.results is not None and result.results["a"] != result.results["b"]
    if pair["expect"] == "equivalent":
        assert result.counterexample is None and not result.spurious
    if "reason" in pair:
        assert pair["reason"] in result.reason
