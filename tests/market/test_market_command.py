"""`manage.py market …`: output shapes and clear errors (never tracebacks) for expected failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from backend.domain.market.schema import TABLES
from backend.domain.market.store import MarketStore

REPO = Path(__file__).resolve().parents[2]


def run_command(*args: str) -> str:
    out = StringIO()
    call_command("market", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_stats_json_shape(demo_store: MarketStore) -> None:
    payload = json.loads(run_command("stats", "--json"))
    tables = payload["tables"]
    assert [t["table"] for t in tables] == [t.name for t in TABLES]
    for entry in tables:
        assert set(entry) == {"table", "rows", "date_column", "min_date", "max_date", "stocks"}
        assert entry["rows"] > 0
    daily = next(t for t in tables if t["table"] == "daily")
    assert (daily["min_date"], daily["max_date"], daily["stocks"]) == ("2022-09-01", "2025-12-31", 300)


def test_stats_table_and_idempotent_init(demo_store: MarketStore) -> None:
    assert "market schema ready" in run_command("init")
    assert "market schema ready" in run_command("init")
    text = run_command("stats")
    assert text.splitlines()[0].split() == ["table", "rows", "from", "to", "stocks"]
    assert any(line.startswith("daily ") for line in text.splitlines())


def test_generate_if_empty_leaves_existing_data(demo_store: MarketStore) -> None:
    assert "already has data; nothing generated" in run_command("generate", "--if-empty")
    with pytest.raises(CommandError, match="already holds data"):
        run_command("generate", "--stocks", "30")


def test_import_errors_are_messages(demo_store: MarketStore, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        run_command("import", "tushare", "daily", str(tmp_path / "absent.csv"))
    bad = tmp_path / "daily.csv"
    bad.write_text("ts_code,trade_date\n600519.SH,20250908\n", encoding="utf-8")
    with pytest.raises(CommandError, match="required columns missing"):
        run_command("import", "tushare", "daily", str(bad))
    with pytest.raises(CommandError, match="no such file"):
        run_command("import", "sp500", "--path", str(tmp_path))


def test_locked_store_is_reported_without_traceback(demo_store: MarketStore, chdb_url: str) -> None:
    """This test process owns the chdb directory; a second process must be told so, plainly."""
    env = {**os.environ, "CLICKHOUSE_URL": chdb_url}
    done = subprocess.run(
        [sys.executable, "manage.py", "market", "stats"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "in use by another process" in done.stderr
    assert "Traceback" not in done.stderr


def test_generate_argument_errors_are_messages(empty_store: MarketStore) -> None:
    """Validation happens before the store is touched, so these leave the shared demo alone."""
    from backend.domain.market.demo import generate_demo
    from backend.domain.market.errors import MarketError

    with pytest.raises(MarketError, match="at least 24 stocks"):
        generate_demo(empty_store, n_stocks=5)
    with pytest.raises(MarketError, match="non-negative"):
        generate_demo(empty_store, seed=-1)
    with pytest.raises(MarketError, match="reference trading calendar has no data"):
        generate_demo(empty_store, n_stocks=30, start=date(2010, 1, 4), end=date(2010, 6, 30))
