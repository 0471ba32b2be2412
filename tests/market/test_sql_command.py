"""`manage.py sql`: one guarded query through the Django market store, as a table or as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from backend.domain.market.store import MarketStore

ROOT = Path(__file__).resolve().parents[2]
SCREEN = (
    "SELECT d.ts_code, b.name, d.trade_date, d.close, d.vol "
    "FROM market.daily AS d JOIN market.stock_basic AS b ON b.ts_code = d.ts_code "
    "WHERE d.trade_date = (SELECT max(trade_date) FROM market.daily) ORDER BY d.close DESC LIMIT 5"
)


def _run(*args: str) -> str:
    out = StringIO()
    call_command("sql", *args, stdout=out)
    return out.getvalue()


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def test_table_output_aligns_every_column(demo_store: MarketStore) -> None:
    expected = demo_store.query(SCREEN)
    lines = _run(SCREEN).splitlines()
    header, rule, body, footer = lines[0], lines[1], lines[2:-1], lines[-1]
    assert header.split() == ["ts_code", "name", "trade_date", "close", "vol"]
    assert footer.startswith("(5 rows")
    assert len(body) == 5
    column_starts = [
        index for index, char in enumerate(rule) if char == "-" and (index == 0 or rule[index - 1] == " ")
    ]
    for line, row in zip(body, expected.rows, strict=True):
        ts_code, name, trade_date = row[0], row[1], row[2]
        assert line.startswith(ts_code)
        # Display columns, not characters: Chinese names are two terminal cells wide.
        assert _width(line[: line.index(name)]) == column_starts[1]
        assert _width(line[: line.index(trade_date.isoformat())]) == column_starts[2]
        assert _width(line) == _width(header)  # right-aligned numbers end at the same column


def test_json_output_has_columns_and_json_typed_rows(demo_store: MarketStore) -> None:
    expected = demo_store.query(SCREEN)
    payload = json.loads(_run(SCREEN, "--json"))
    assert payload["columns"] == ["ts_code", "name", "trade_date", "close", "vol"]
    assert payload["rows"] == [
        [ts_code, name, trade_date.isoformat(), close, vol]
        for ts_code, name, trade_date, close, vol in expected.rows
    ]
    assert all(isinstance(row[3], float) for row in payload["rows"])


def test_refused_statement_names_the_reason() -> None:
    with pytest.raises(CommandError, match=r"query_rejected: .*table function file\(\)"):
        _run("SELECT * FROM file('/etc/passwd', 'LineAsString')")


def test_failing_statement_names_the_clickhouse_error(demo_store: MarketStore) -> None:
    with pytest.raises(CommandError, match=r"query_failed: .*no_such_column"):
        _run("SELECT no_such_column FROM market.daily")


def test_limits_apply_to_the_command(
    demo_store: MarketStore, settings
) -> None:  # pytest-django settings fixture
    from backend.apps.marketdata import store as django_store

    settings.QUERY_MAX_RESULT_ROWS = 3
    django_store._store = None
    try:
        with pytest.raises(CommandError, match="result_too_large"):
            _run("SELECT ts_code FROM market.stock_basic")
    finally:
        django_store.get_market_store().close()
        django_store._store = None


def test_command_line_exits_with_status_1_and_no_traceback(tmp_path: Path) -> None:
    # Its own data directory: chdb lets one process own a directory.
    environment = {**os.environ, "VERISCREEN_DATA_DIR": str(tmp_path)}
    completed = subprocess.run(
        [sys.executable, "manage.py", "sql", "SELECT 1; DROP TABLE market.daily"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 1
    assert "exactly one statement is allowed" in completed.stderr
    assert "Traceback" not in completed.stderr + completed.stdout
