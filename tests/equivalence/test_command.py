"""`manage.py equiv` prints the verdict as text or JSON."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

FIXTURES = Path(__file__).parent / "fixtures"


def test_equiv_json_on_the_market_schema() -> None:
    out = StringIO()
    call_command(
        "equiv",
        "SELECT ts_code FROM daily WHERE close > 10",
        "SELECT ts_code FROM daily WHERE close >= 10",
        "--json",
        "--bound",
        "2",
        stdout=out,
    )
    payload = json.loads(out.getvalue())
    assert payload["verdict"] == "not_equivalent"
    assert payload["confirmed"] is True
    assert payload["bound"] == 1
    assert "daily" in payload["counterexample"]
    assert set(payload) >= {"verdict", "bound", "counterexample", "confirmed", "seconds", "reason"}


def test_equiv_text_with_a_ddl_file() -> None:
    out = StringIO()
    call_command(
        "equiv",
        "SELECT a FROM r WHERE b > 1 AND a < 2",
        "SELECT a FROM r WHERE a < 2 AND b > 1",
        "--schema",
        str(FIXTURES / "ddl_sqlite.sql"),
        "--dialect",
        "sqlite",
        stdout=out,
    )
    assert "verdict: equivalent (bound 5, bag semantics)" in out.getvalue()


def test_equiv_missing_ddl_file() -> None:
    with pytest.raises(CommandError):
        call_command("equiv", "SELECT 1", "SELECT 1", "--schema", "/nonexistent.sql")
