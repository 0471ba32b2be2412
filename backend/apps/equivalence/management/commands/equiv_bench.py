"""`manage.py equiv_bench`: coverage, soundness, power and speed of the equivalence checker."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from backend.domain.equivalence.benchmark import (
    DATASETS,
    BenchmarkDataMissing,
    load_cases,
    load_reviewed,
    resolve_data_dir,
    run_benchmark,
)

NO_DATA = (
    "equiv_bench needs --data PATH: the folder of the SQL-equivalence pair sets (sqlsolver_benchmarks/, "
    "cosette_examples/, spider_pair_funccorrect/ in their upstream layout, or a folder holding them in "
    "sql_equivalence/). They are third-party data and are not bundled: benchmarks/equivalence/README.md "
    "says where each comes from; tests/equivalence/data/sql_equivalence is a small excerpt for a quick run."
)


class Command(BaseCommand):
    help = "Run the bounded equivalence checker over external pair sets (--data PATH) and report the figures."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--data", type=Path, default=None, help="folder of the pair sets (required; not bundled)"
        )
        parser.add_argument("--bound", type=int, default=5)
        parser.add_argument("--timeout", type=float, default=4.0, help="seconds per check")
        parser.add_argument("--limit", type=int, default=None, help="first N pairs of each dataset")
        parser.add_argument("--only", nargs="*", choices=sorted(DATASETS), help="dataset families to run")
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--spider-semantics", choices=["bag", "set"], default="bag")
        parser.add_argument(
            "--reviewed",
            type=Path,
            default=Path(settings.BASE_DIR) / "benchmarks" / "equivalence" / "reviewed_differences.json",
            help="hand-reviewed real differences on pairs labelled equivalent",
        )
        parser.add_argument("--json-out", type=Path, default=Path("reports/equivalence_bench.json"))

    def handle(self, *args: Any, **options: Any) -> None:
        if options["data"] is None:
            raise CommandError(NO_DATA)
        try:
            data_dir = resolve_data_dir(options["data"], options["only"])
        except BenchmarkDataMissing as error:
            raise CommandError(f"{error}. {NO_DATA}") from error
        cases = load_cases(data_dir, options["limit"], options["only"], options["spider_semantics"])
        self.stdout.write(f"{len(cases)} pairs, bound {options['bound']}, {options['timeout']} s per check")

        def progress(done: int, total: int) -> None:
            if done % 200 == 0 or done == total:
                self.stdout.write(f"  {done}/{total}")

        report = run_benchmark(
            cases,
            bound=options["bound"],
            timeout_s=options["timeout"],
            workers=options["workers"],
            reviewed=load_reviewed(options["reviewed"]),
            progress=progress,
        )
        self._print(report)
        out: Path = options["json_out"]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
        self.stdout.write(f"report written to {out}")

    def _print(self, report: dict[str, Any]) -> None:
        header = (
            f"{'dataset':26} {'pairs':>5} {'cover':>6} {'equiv':>5} {'noteq':>5} {'unsup':>5} {'unkn':>5}"
        )
        header += f" {'unsound':>7} {'power':>6} {'med s':>6} {'p95 s':>6}"
        self.stdout.write(header)
        for d in report["datasets"]:
            verdicts = d["verdicts"]
            power = "-" if d["power"] is None else f"{d['power']:.1%}"
            self.stdout.write(
                f"{d['dataset']:26} {d['pairs']:5} {d['coverage']:6.1%} {verdicts.get('equivalent', 0):5}"
                f" {verdicts.get('not_equivalent', 0):5} {verdicts.get('unsupported', 0):5}"
                f" {verdicts.get('unknown', 0):5} {d['soundness_violations']:7} {power:>6}"
                f" {d['median_seconds']:6.2f} {d['p95_seconds']:6.2f}"
            )
        for d in report["datasets"]:
            if d["labelled_not_equivalent"]:
                caught = f"{d['caught']}/{d['labelled_not_equivalent']}"
                self.stdout.write(
                    f"{d['dataset']}: {caught} labelled not equivalent caught;"
                    f" first found at k: {d['first_found_at_k']}"
                )
            if d["unsound_cases"]:
                self.stdout.write(f"{d['dataset']}: confirmed counterexamples on pairs labelled equivalent:")
                for case in d["unsound_cases"]:
                    self.stdout.write(f"  #{case['id']}: {case['a'][:120]} | {case['b'][:120]}")
            for case in d["reviewed_real_differences"]:
                self.stdout.write(f"{d['dataset']}: reviewed real difference #{case['id']}: {case['why']}")
            if d["label_disagreement_cases"]:
                self.stdout.write(
                    f"{d['dataset']}: {d['label_disagreements']} pairs labelled equivalent by hand with a"
                    " confirmed counterexample (real engine differences; labels to review):"
                )
                for case in d["label_disagreement_cases"][:10]:
                    self.stdout.write(f"  #{case['id']}: {case['a'][:120]} | {case['b'][:120]}")
            if d["spurious_cases"]:
                self.stdout.write(
                    f"{d['dataset']}: spurious counterexamples in cases {d['spurious_cases'][:20]}"
                )
            self.stdout.write(f"{d['dataset']}: top unsupported {d['top_unsupported'][:6]}")
        times = f"median {report['median_seconds']} s, p95 {report['p95_seconds']} s"
        self.stdout.write(f"all checks: {report['checks']}, {times}")
