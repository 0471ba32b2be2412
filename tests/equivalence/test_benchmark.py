"""The benchmark reads the external pair files in their real formats and aggregates the figures.

The tests run on the small excerpts in tests/equivalence/data (upstream layout, SOURCE.txt per
folder). The sizes of the full sets are checked only when VERISCREEN_EQUIV_DATA names them.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from backend.domain.equivalence.benchmark import (
    EQUIVALENT_LABEL,
    NOT_EQUIVALENT_LABEL,
    BenchmarkDataMissing,
    load_cases,
    load_reviewed,
    resolve_data_dir,
    run_benchmark,
)

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data" / "sql_equivalence"
REVIEWED = REPO / "benchmarks" / "equivalence" / "reviewed_differences.json"


def test_every_dataset_of_the_excerpt_loads_with_its_labels() -> None:
    cases = load_cases(DATA)
    sizes = Counter(case.dataset for case in cases)
    assert sizes == {
        "sqlsolver_calcite": 4,
        "sqlsolver_spark": 3,
        "sqlsolver_rule_instances": 7,
        "sqlsolver_tpch": 3,
        "sqlsolver_tpcc": 3,
        "cosette_calcite": 5,
        "spider_dev_pairs": 8,
    }
    # Pairs keep their upstream numbers (the lines of the pairs left out are empty).
    assert [c.case_id for c in cases if c.dataset == "sqlsolver_rule_instances"] == [
        "0", "1", "2", "88", "126", "270", "271",
    ]  # fmt: skip
    cosette = {case.case_id: case.label for case in cases if case.dataset == "cosette_calcite"}
    assert cosette["testRemoveSemiJoin"] == EQUIVALENT_LABEL  # EQ
    assert cosette["testPullFilterThroughAggregateGroupingSets"] is None  # CALCITEBUG: never proved
    spider = Counter(case.label for case in cases if case.dataset == "spider_dev_pairs")
    assert spider == {EQUIVALENT_LABEL: 4, NOT_EQUIVALENT_LABEL: 4}
    assert all(Path(case.schema_file).is_file() for case in cases)


def test_every_excerpt_folder_keeps_its_source_and_licence() -> None:
    for folder in DATA.iterdir():
        assert (folder / "SOURCE.txt").is_file(), folder
    assert (DATA / "cosette_examples" / "LICENSE.txt").is_file()
    assert (DATA.parent / "LICENSE-Apache-2.0.txt").is_file()


def test_reviewed_differences_name_real_cases() -> None:
    reviewed = load_reviewed(REVIEWED)
    known = {(case.dataset, case.case_id) for case in load_cases(DATA, only=["sqlsolver"])}
    assert reviewed and set(reviewed) <= known


def test_data_folder_is_resolved_or_refused_with_a_reason(tmp_path: Path) -> None:
    assert resolve_data_dir(DATA) == DATA
    assert resolve_data_dir(DATA.parent) == DATA  # a folder holding sql_equivalence/
    with pytest.raises(BenchmarkDataMissing, match="no such folder"):
        resolve_data_dir(tmp_path / "absent")
    with pytest.raises(
        BenchmarkDataMissing, match=r"sqlsolver pairs need sqlsolver_benchmarks/calcite_tests"
    ):
        resolve_data_dir(tmp_path)
    (tmp_path / "spider_pair_funccorrect").mkdir()
    (tmp_path / "spider_pair_funccorrect" / "test.csv").write_text("id\n", encoding="utf-8")
    (tmp_path / "sqlsolver_benchmarks" / "schemas").mkdir(parents=True)
    assert resolve_data_dir(tmp_path, only=["spider"]) == tmp_path


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
        "equiv_bench", "--data", str(DATA), "--only", "sqlsolver", "--limit", "1", "--bound", "2",
        "--workers", "1", "--json-out", str(target), stdout=out,
    )  # fmt: skip
    report = json.loads(target.read_text(encoding="utf-8"))
    datasets = {d["dataset"] for d in report["datasets"]}
    assert datasets == {
        f"sqlsolver_{name}" for name in ("calcite", "spark", "rule_instances", "tpch", "tpcc")
    }
    assert "all checks: 5" in out.getvalue()


def test_equiv_bench_without_data_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"equiv_bench needs --data PATH.*not bundled"):
        call_command("equiv_bench", stdout=StringIO())
    with pytest.raises(CommandError, match=r"cosette pairs need cosette_examples/calcite_tests\.json"):
        call_command("equiv_bench", "--data", str(tmp_path), "--only", "cosette", stdout=StringIO())


FULL = os.environ.get("VERISCREEN_EQUIV_DATA", "")


@pytest.mark.skipif(
    not FULL, reason="set VERISCREEN_EQUIV_DATA to the folder of the full pair sets to check them"
)
def test_full_pair_sets_load_with_their_labels() -> None:
    root = resolve_data_dir(Path(FULL))
    cases = load_cases(root)
    assert Counter(case.dataset for case in cases) == {
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
    known = {(case.dataset, case.case_id) for case in cases}
    assert set(load_reviewed(REVIEWED)) <= known
