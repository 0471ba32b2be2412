"""`manage.py language_ex` end to end on the per-process demo store, with the real built-in engine."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from backend.domain.language_bench import DEFAULT_DEV_SET, MEASURED_BLIND_ROUNDS, DevItem, check_gold
from backend.domain.language_bench.ties import reversed_tie_break
from backend.domain.market.store import MarketStore

STATUSES = {"match", "mismatch", "not_understood", "translation_error", "execution_error"}


def test_check_gold_flags_failing_and_empty_gold(demo_store: MarketStore) -> None:
    items = [
        DevItem("ok", "statistics", "en", "q", "SELECT count() FROM market.daily", False, "n"),
        DevItem(
            "empty", "technical", "en", "q", "SELECT ts_code FROM market.daily WHERE close < 0", False, "n"
        ),
        DevItem("broken", "technical", "en", "q", "SELECT nope FROM market.daily", False, "n"),
    ]
    items.append(
        DevItem(
            "tie",
            "technical",
            "en",
            "q",
            "SELECT ts_code FROM market.stock_basic ORDER BY exchange LIMIT 1",
            False,
            "n",
        )
    )
    items.append(
        DevItem(
            "by-code",
            "technical",
            "en",
            "q",
            "SELECT ts_code FROM market.stock_basic ORDER BY ts_code LIMIT 3",
            False,
            "n",
        )
    )
    checks = {check.id: check for check in check_gold(items, demo_store)}
    assert "tie at the cut-off" in checks["tie"].error
    assert checks["by-code"].ok
    assert checks["ok"].ok and checks["ok"].rows == 1
    assert not checks["empty"].ok and checks["empty"].error == "empty result"
    assert not checks["broken"].ok and checks["broken"].rows is None and checks["broken"].error


def test_command_runs_selected_items_and_writes_the_report(
    demo_store: MarketStore, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "language_ex.json"
    call_command("language_ex", "--id", "stat-007", "--id", "tech-013", "--json-out", str(out))
    printed = capsys.readouterr().out
    assert "overall" in printed and "EX" in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [item["id"] for item in report["items"]] == ["tech-013", "stat-007"]  # dev set order
    assert {item["status"] for item in report["items"]} <= STATUSES
    assert report["summary"]["overall"]["items"] == 2


def test_command_check_gold_and_an_unknown_id(demo_store: MarketStore) -> None:
    call_command("language_ex", "--check-gold", "--id", "stat-007")
    with pytest.raises(CommandError, match="no dev set item"):
        call_command("language_ex", "--id", "no-such-id")


def test_measured_blind_rounds_are_in_the_default_set_and_dev_set_overrides(
    demo_store: MarketStore, capsys
) -> None:
    call_command(
        "language_ex", "--check-gold", "--id", "stat-007", "--id", "blind1-002", "--id", "blind2-006"
    )
    assert "all 3 gold queries run" in capsys.readouterr().out
    only_dev = str(DEFAULT_DEV_SET)
    with pytest.raises(CommandError, match="no dev set item"):
        call_command("language_ex", "--check-gold", "--dev-set", only_dev, "--id", "blind1-002")
    call_command(
        "language_ex",
        "--check-gold",
        "--dev-set",
        only_dev,
        "--dev-set",
        str(MEASURED_BLIND_ROUNDS[0]),
        "--id",
        "blind1-002",
        "--id",
        "stat-007",
    )
    assert "all 2 gold queries run" in capsys.readouterr().out


def test_reversed_tie_break_replaces_the_code_tie_break() -> None:
    sql = "SELECT b.ts_code FROM market.daily_basic AS b ORDER BY b.total_mv DESC, b.ts_code LIMIT 5"
    variant = reversed_tie_break(sql)
    assert variant is not None
    assert variant.endswith("ORDER BY b.total_mv DESC, b.ts_code DESC LIMIT 5")
    assert reversed_tie_break("SELECT ts_code FROM market.daily ORDER BY ts_code LIMIT 5") is None
    assert reversed_tie_break("SELECT count() FROM market.daily") is None
