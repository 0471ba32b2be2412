"""Benchmark of the equivalence checker over external pair sets, read from a folder given by path.

The pair sets are not ours and are not bundled: the caller passes the folder that holds
`sqlsolver_benchmarks/`, `cosette_examples/` and `spider_pair_funccorrect/` in their upstream layout
(`resolve_data_dir` also accepts its parent when that has a `sql_equivalence/` folder).

Datasets: SQLSolver's Calcite, Spark, rule-instance, TPC-H and TPC-C pairs (all labelled
equivalent), Cosette's Calcite pairs (equivalent except the rewrites Cosette labels CALCITEBUG,
which are left unlabelled) and the Spider-dev prediction/gold pairs labelled functionally correct (1)
or not (0). All of them are SQLite/MySQL-style SQL, so they are encoded with SQLite semantics and
counterexamples are confirmed in SQLite.

Figures: coverage (share of pairs encoded), verdict counts, soundness (confirmed counterexamples on
pairs labelled equivalent — should be none), power (share of pairs labelled not equivalent with a
confirmed counterexample) with the bound at which each was first found, and seconds per check.
"""

from __future__ import annotations

import csv
import json
import os
import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from backend.domain.equivalence.checker import NOT_EQUIVALENT, UNSUPPORTED, check_equivalence
from backend.domain.equivalence.schema import Schema

EQUIVALENT_LABEL, NOT_EQUIVALENT_LABEL = "equivalent", "not_equivalent"


@dataclass(frozen=True)
class Case:
    dataset: str
    case_id: str
    sql_a: str  # the reference (gold / original) query
    sql_b: str
    label: str | None
    schema_file: str
    dialect: str = "sqlite"
    semantics: str = "bag"
    formal_label: bool = True  # a proof (SQLSolver, Cosette) rather than a human judgement (Spider)


@dataclass
class Outcome:
    case: Case
    verdict: str
    reason: str
    confirmed: bool
    found_at_k: int | None
    seconds: float
    spurious: int


@dataclass
class DatasetReport:
    dataset: str
    pairs: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    unsupported_reasons: Counter[str] = field(default_factory=Counter)
    unsound: list[dict[str, Any]] = field(default_factory=list)
    reviewed: list[dict[str, Any]] = field(default_factory=list)
    label_disagreements: list[dict[str, Any]] = field(default_factory=list)
    labelled_equivalent: int = 0
    unlabelled: int = 0
    spurious_cases: list[str] = field(default_factory=list)
    labelled_not_equivalent: int = 0
    caught: int = 0
    caught_at_k: Counter[int] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        encoded = self.pairs - self.verdicts[UNSUPPORTED]
        times = sorted(self.seconds)
        return {
            "dataset": self.dataset,
            "pairs": self.pairs,
            "coverage": round(encoded / self.pairs, 4) if self.pairs else None,
            "verdicts": dict(self.verdicts),
            "labelled_equivalent": self.labelled_equivalent,
            "unlabelled": self.unlabelled,
            "soundness_violations": len(self.unsound),
            "reviewed_real_differences": self.reviewed,
            "unsound_cases": self.unsound,
            "label_disagreements": len(self.label_disagreements),
            "label_disagreement_cases": self.label_disagreements,
            "spurious_cases": self.spurious_cases,
            "labelled_not_equivalent": self.labelled_not_equivalent,
            "power": round(self.caught / self.labelled_not_equivalent, 4)
            if self.labelled_not_equivalent
            else None,
            "caught": self.caught,
            "first_found_at_k": {str(k): self.caught_at_k[k] for k in sorted(self.caught_at_k)},
            "median_seconds": round(statistics.median(times), 4) if times else None,
            "p95_seconds": round(times[min(len(times) - 1, int(0.95 * len(times)))], 4) if times else None,
            "top_unsupported": self.unsupported_reasons.most_common(12),
        }


# --- datasets ----------------------------------------------------------------------------------------


def _line_pairs(path: Path) -> Iterator[tuple[int, str, str]]:
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    for index in range(0, len(lines) - 1, 2):
        if lines[index] and lines[index + 1]:
            yield index // 2, lines[index], lines[index + 1]


SQLSOLVER_DATASETS = {
    "sqlsolver_calcite": ("calcite_tests.sql.txt", "calcite_test"),
    "sqlsolver_spark": ("spark_tests.sql.txt", "calcite_test"),
    "sqlsolver_rule_instances": ("db_rule_instances_all_tests.sql.txt", "calcite_test"),
    "sqlsolver_tpch": ("tpch_tests.sql.txt", "tpch"),
    "sqlsolver_tpcc": ("tpcc_tests.sql.txt", "tpcc"),
}
SQLSOLVER_FILES = tuple(name for name, _schema in SQLSOLVER_DATASETS.values())


def sqlsolver_cases(root: Path) -> Iterator[Case]:
    base = root / "sqlsolver_benchmarks"
    for dataset, (name, schema) in SQLSOLVER_DATASETS.items():
        schema_file = str(base / "schemas" / f"{schema}.base.schema.sql")
        for index, first, second in _line_pairs(base / name):
            yield Case(dataset, str(index), first, second, EQUIVALENT_LABEL, schema_file)


def cosette_cases(root: Path) -> Iterator[Case]:
    base = root / "cosette_examples"
    proved = set()
    with (base / "calcite_result_with_label.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            # EQ = proved by Cosette, MP = proved by hand; CALCITEBUG marks a wrong Calcite rewrite.
            if row["Result"] in ("EQ", "MP") and "CALCITEBUG" not in row["Reason"]:
                proved.add(row["Case"])
    schema_file = str(root / "sqlsolver_benchmarks" / "schemas" / "calcite_test.base.schema.sql")
    for item in json.loads((base / "calcite_tests.json").read_text(encoding="utf-8")):
        # Only the rewrites Cosette proved carry a label; the others were never shown equivalent.
        label = EQUIVALENT_LABEL if item["name"] in proved else None
        yield Case("cosette_calcite", item["name"], item["q1"], item["q2"], label, schema_file)


def spider_cases(root: Path) -> Iterator[Case]:
    base = root
    with (base / "spider_pair_funccorrect" / "test.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            schema_file = str(
                base / "sqlsolver_benchmarks" / "schemas" / f"spider_{row['db_id']}.base.schema.sql"
            )
            label = EQUIVALENT_LABEL if row["label"] == "1" else NOT_EQUIVALENT_LABEL
            yield Case(
                "spider_dev_pairs", row["id"], row["ground_truth"], row["prediction"], label, schema_file,
                formal_label=False,
            )  # fmt: skip


DATASETS: dict[str, Callable[[Path], Iterator[Case]]] = {
    "sqlsolver": sqlsolver_cases,
    "cosette": cosette_cases,
    "spider": spider_cases,
}
# Files each dataset family reads (Cosette's pairs use SQLSolver's Calcite schema; Spider's its DDLs).
REQUIRED_FILES: dict[str, tuple[str, ...]] = {
    "sqlsolver": (
        *(f"sqlsolver_benchmarks/{name}" for name in SQLSOLVER_FILES),
        "sqlsolver_benchmarks/schemas",
    ),
    "cosette": (
        "cosette_examples/calcite_tests.json",
        "cosette_examples/calcite_result_with_label.csv",
        "sqlsolver_benchmarks/schemas/calcite_test.base.schema.sql",
    ),
    "spider": ("spider_pair_funccorrect/test.csv", "sqlsolver_benchmarks/schemas"),
}


class BenchmarkDataMissing(ValueError):
    """The folder given for the pair sets does not hold what the selected datasets read."""


def resolve_data_dir(path: Path, only: list[str] | None = None) -> Path:
    """The folder of the pair sets: `path` itself, or `path/sql_equivalence` (the upstream bundle layout).

    Raises BenchmarkDataMissing naming the first missing file when a selected dataset cannot be read.
    """
    if not path.is_dir():
        raise BenchmarkDataMissing(f"{path}: no such folder")
    root = path / "sql_equivalence" if (path / "sql_equivalence").is_dir() else path
    for name in only or list(DATASETS):
        missing = [item for item in REQUIRED_FILES[name] if not (root / item).exists()]
        if missing:
            raise BenchmarkDataMissing(
                f"{root}: the {name} pairs need {missing[0]} (expected sub-folders: sqlsolver_benchmarks/, "
                "cosette_examples/, spider_pair_funccorrect/; or choose datasets with --only)"
            )
    return root


def load_cases(
    root: Path, limit: int | None = None, only: list[str] | None = None, spider_semantics: str = "bag"
) -> list[Case]:
    """All cases; `limit` keeps the first N of each dataset (for quick runs).

    SQLSolver and Cosette pairs are compared as bags (their semantics); Spider pairs as bags by
    default, or as sets like SpotIt's BIRD evaluation (`spider_semantics="set"`).
    """
    cases: list[Case] = []
    for name, loader in DATASETS.items():
        if only and name not in only:
            continue
        per_dataset: Counter[str] = Counter()
        for case in loader(root):
            if limit is not None and per_dataset[case.dataset] >= limit:
                continue
            per_dataset[case.dataset] += 1
            cases.append(
                replace(case, semantics=spider_semantics) if case.dataset == "spider_dev_pairs" else case
            )
    return cases


# --- running -----------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _schema(path: str, dialect: str) -> Schema:
    return Schema.from_ddl(Path(path).read_text(encoding="utf-8", errors="replace"), dialect)


def run_case(case: Case, bound: int, timeout_s: float) -> Outcome:
    if not os.path.exists(case.schema_file):
        return Outcome(case, UNSUPPORTED, "unsupported: no schema", False, None, 0.0, 0)
    schema = _schema(case.schema_file, case.dialect)
    result = check_equivalence(
        case.sql_a,
        case.sql_b,
        schema=schema,
        bound=bound,
        semantics=case.semantics,
        dialect=case.dialect,
        timeout_s=timeout_s,
    )
    return Outcome(
        case,
        result.verdict,
        result.reason,
        result.confirmed,
        result.found_at_k,
        result.seconds,
        len(result.spurious),
    )


def _run_case_tuple(arguments: tuple[Case, int, float]) -> Outcome:
    return run_case(*arguments)


def run_benchmark(
    cases: list[Case],
    *,
    bound: int,
    timeout_s: float,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
    reviewed: dict[tuple[str, str], str] | None = None,
) -> dict[str, Any]:
    reviewed = reviewed or {}
    reports: dict[str, DatasetReport] = {}
    outcomes: list[Outcome] = []
    arguments = [(case, bound, timeout_s) for case in cases]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for done, outcome in enumerate(pool.map(_run_case_tuple, arguments, chunksize=4), start=1):
                outcomes.append(outcome)
                if progress:
                    progress(done, len(cases))
    else:
        for done, argument in enumerate(arguments, start=1):
            outcomes.append(_run_case_tuple(argument))
            if progress:
                progress(done, len(cases))
    for outcome in outcomes:
        report = reports.setdefault(outcome.case.dataset, DatasetReport(outcome.case.dataset))
        _record(report, outcome, reviewed)
    all_times = sorted(o.seconds for o in outcomes)
    return {
        "bound": bound,
        "timeout_s": timeout_s,
        "checks": len(outcomes),
        "median_seconds": round(statistics.median(all_times), 4) if all_times else None,
        "p95_seconds": round(all_times[min(len(all_times) - 1, int(0.95 * len(all_times)))], 4)
        if all_times
        else None,
        "datasets": [report.summary() for report in reports.values()],
    }


def _short_reason(reason: str) -> str:
    text = reason.removeprefix("unsupported: ")
    return text.split(" (")[0][:60]


def load_reviewed(path: Path | None) -> dict[tuple[str, str], str]:
    """Hand-reviewed real differences on pairs labelled equivalent: (dataset, id) -> explanation."""
    if path is None or not path.is_file():
        return {}
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return {(c["dataset"], c["id"]): c["why"] for c in cases}


def _record(report: DatasetReport, outcome: Outcome, reviewed: dict[tuple[str, str], str]) -> None:
    report.pairs += 1
    report.verdicts[outcome.verdict] += 1
    report.seconds.append(outcome.seconds)
    if outcome.verdict == UNSUPPORTED:
        report.unsupported_reasons[_short_reason(outcome.reason)] += 1
    if outcome.spurious:
        report.spurious_cases.append(outcome.case.case_id)
    caught = outcome.verdict == NOT_EQUIVALENT and outcome.confirmed
    if outcome.case.label is None:
        report.unlabelled += 1
    if outcome.case.label == EQUIVALENT_LABEL:
        report.labelled_equivalent += 1
        if caught:
            # A proof-labelled pair with a confirmed difference is a soundness failure (of the checker
            # or of the engine/dialect gap); a human label can simply be wrong.
            entry = {"id": outcome.case.case_id, "a": outcome.case.sql_a[:300], "b": outcome.case.sql_b[:300]}
            why = reviewed.get((outcome.case.dataset, outcome.case.case_id))
            if why is not None:
                report.reviewed.append({**entry, "why": why})
            else:
                (report.unsound if outcome.case.formal_label else report.label_disagreements).append(entry)
    if outcome.case.label == NOT_EQUIVALENT_LABEL:
        report.labelled_not_equivalent += 1
        if caught:
            report.caught += 1
            if outcome.found_at_k is not None:
                report.caught_at_k[outcome.found_at_k] += 1
