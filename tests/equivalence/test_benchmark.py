"""The benchmark reads the external pair files in their real formats and aggregates the figures."""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from backend.domain.equivalence.benchmark import (
    EQUIVALENT_LABEL,
    NOT_EQUIVALENT_LABEL,
    load_cases,
    load_reviewed,
    run_benchmark,
)

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
pytestmark = pytest.mark.skipif(not (DATA / "sql_equivalence").is_dir(), reason="external data not present")


def test_every_dataset_loads_with_its_labels() -> None:
    cases = load_cases(DATA)
    sizes = Counter(case.dataset for case in cases)
    assert sizes == {
        "sqlsolver_calcite": 232,
        "sqlsolver_spark": 127,
        "sqlsolver_rule_instances": 359,
        "sqlsolver_tpch": 22,
        "sqlsolver_tpcc": 19,
        "cosette_calcite": 232,
        "spider_dev_pairs": 1644,
    }
    spider = Counter(case.label for case in cases if case.dataset == "spider_dev_pairs")
    assert spider == {EQUIVALENT_LABEL: 884, NOT_EQUIVALENT_LABEL: 760}
    assert all(Path(case.schema_file).is_file() for case in cases)


def test_reviewed_differences_name_real_cases() -> None:
    reviewed = load_reviewed(REPO / "benchmarks" / "equivalence" / "reviewed_differences.json")
    known = {(case.dataset, case.case_id) for case in load_cases(DATA, only=["sqlsolver"])}
    assert reviewed and set(reviewed) <= known


def test_small_run_reports_the_figures() -> None:
    cases = load_cases(DATA, limit=3, only=["spider"])
    report = run_benchmark(cases, bound=2, timeout_s=20, workers=1)
    spider = report["datasets"][0]
    assert spider["pairs"] == 3 and report["checks"] == 3
    assert sum(spider["verdicts"].values()) == 3
    assert spider["median_seconds"] is not None and spider["coverage"] is not None


def test_equiv_bench_command_writes_the_json_report(tmp_path: Path) -> None:
    out = StringIO()
    target = tmp_path / "bench.json"
    call_command(
        "equiv_bench", "--data-dir", str(DATA), "--only", "sqlsolver", "--limit", "1", "--bound", "2",
        "--workers", "1", "--json-out", str(target), stdout=out,
    )  # fmt: skip
    report = json.loads(target.read_text(encoding="utf-8"))
    datasets = {d["dataset"] for d in report["datasets"]}
    assert datasets == {
        f"sqlsolver_{name}" for name in ("calcite", "spark", "rule_instances", "tpch", "tpcc")
    }
    assert "all checks: 5" in out.getvalue()
