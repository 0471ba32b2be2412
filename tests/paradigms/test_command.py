"""`manage.py paradigms load|stats|bench`."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from backend.domain.market.store import MarketStore
from paradigms.models import Paradigm

SEED_DIR = Path(__file__).resolve().parents[2] / "paradigms" / "seed"


def run(*args: str) -> str:
    out = StringIO()
    call_command("paradigms", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_load_then_stats(demo_store: MarketStore, tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    seed.mkdir()
    lines = (SEED_DIR / "screens_trading.yaml").read_text(encoding="utf-8").splitlines()
    cut = [index for index, line in enumerate(lines) if line.startswith("  - question:")][6]
    (seed / "few.yaml").write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")

    loaded = json.loads(run("load", "--dir", str(seed), "--json"))
    assert loaded == {"entries": 6, "created": 6, "refreshed": 0, "unchanged": 0, "evicted": 0, "failed": []}
    assert "nothing loaded" in run("load", "--dir", str(seed), "--if-empty")
    assert Paradigm.objects.count() == 6

    stats = json.loads(run("stats", "--json"))
    assert {key: stats[key] for key in ("size", "capacity", "tau", "hits", "misses", "evictions")} == {
        "size": 6,
        "capacity": 10_000,
        "tau": 3.0,
        "hits": 0,
        "misses": 0,
        "evictions": 0,
    }
    assert "capacity    10000" in run("stats")


@pytest.mark.django_db
def test_load_reports_questions_the_engine_does_not_understand(
    demo_store: MarketStore, tmp_path: Path
) -> None:
    (tmp_path / "bad.yaml").write_text("paradigms:\n  - {question: 'blorp the frobnicator', kind: screen}\n")
    with pytest.raises(CommandError, match="1 seed question"):
        run("load", "--dir", str(tmp_path))


def test_bench_writes_a_report_checked_against_zss(demo_store: MarketStore, tmp_path: Path) -> None:
    out = tmp_path / "match.json"
    text = run(
        "bench", "--sizes", "80", "200", "--queries", "6", "--exhaustive", "2", "1", "--json-out", str(out)
    )
    assert "identical results: yes" in text
    report = json.loads(out.read_text())
    assert report["identical"] is True and report["tau"] == 3.0 and report["top_k"] == 5
    assert [library["size"] for library in report["libraries"]] == [80, 200]
    for library in report["libraries"]:
        assert library["pruned_top_k"]["runs"] == 6 and library["exhaustive"]["runs"] >= 1
        assert library["exhaustive"]["median_ms"] > library["pruned_on_same_queries"]["median_ms"]


def test_bench_needs_one_exhaustive_count_per_size(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="one positive count per library size"):
        run("bench", "--sizes", "80", "200", "--exhaustive", "2", "--json-out", str(tmp_path / "x.json"))
