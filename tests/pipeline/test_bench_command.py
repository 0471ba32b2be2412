"""`manage.py validation_bench` end to end on two items of each set: figures printed, JSON written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from backend.domain.market.store import MarketStore


def test_the_benchmark_command_writes_its_report(
    demo_store: MarketStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench.json"
    call_command("validation_bench", "--limit", "2", "--repeats", "1", "--json-out", str(out))
    printed = capsys.readouterr().out
    assert "== dev set: 2 gold results" in printed and "ask with validation" in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) == {"data", "settings", "dev", "blind", "noisy_generator", "latency"}
    assert report["dev"]["gold"]["total"] == 2 and report["dev"]["gold"]["failing"] == 0
    assert report["dev"]["detection"]["all"]["total"] == report["dev"]["mutants"] > 0
    assert report["latency"]["ask_with_validation"]["n"] == 2


def test_latency_only_times_both_ways_of_each_question_side_by_side(
    demo_store: MarketStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "latency.json"
    call_command(
        "validation_bench", "--latency-only", "--limit", "3", "--repeats", "1", "--json-out", str(out)
    )
    printed = capsys.readouterr().out
    assert "load average" in printed and "ratio parallel/sequential" in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) == {"data", "latency"}
    timing = report["latency"]
    assert len(timing["machine_before"]["load_average_1_5_15"]) == 3
    rows = timing["reverse_checks_per_question"]
    assert (
        rows
        and len(rows) == timing["reverse_checks_parallel"]["n"] == timing["reverse_checks_sequential"]["n"]
    )
    for row in rows:
        assert (
            row["checks"] >= 2 and row["parallel_ms"] > 0 and row["sequential_ms"] > 0 and row["guard_ms"] > 0
        )
        assert row["parallel_cores"] > 0 and row["sequential_cores"] > 0
    assert set(timing["reverse_checks_cores_median"]) == {"parallel", "sequential"}
