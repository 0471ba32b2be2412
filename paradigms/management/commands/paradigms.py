"""`manage.py paradigms load|stats|bench|experiments`: the paradigm library from the terminal.

- `load` reads the cold-start files (paradigms/seed/*.yaml) and stores each question's paradigm,
  built by the engine on the current market data — for `reverse` entries, the reverse checks of the
  question's answer (idempotent; `--if-empty` only fills an empty library);
- `stats` prints size, capacity, τ, hits, misses, insertions and evictions, and the reverse checks'
  hits and misses (reverse paradigms are matched apart);
- `bench` times matching on libraries of 1,000 and 10,000 paradigms grown from the dev set's QSTs,
  with the exhaustive zss scan measured in the same run on a subsample, and writes
  reports/paradigm_match.json;
- `experiments` prints the τ-sensitivity table (leave-one-out on the dev set, EX against gold) and the
  measured hit-rate experiment (streams of 0–100% repeats, stub LLM counting calls, with and without
  the library), and writes reports/paradigm_experiments.json. The library is left as it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backend.apps.marketdata.store import get_market_store
from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.speed import dev_set_questions
from backend.domain.language_bench.dataset import load_dev_set
from backend.domain.market.errors import MarketError
from backend.domain.paradigms.bench import run_benchmark
from backend.domain.paradigms.seeds import SeedFileError, read_seed_directory
from paradigms import experiments, selectors, services

SEED_DIR = Path(__file__).resolve().parents[2] / "seed"
DEV_SET = Path(settings.BASE_DIR) / "benchmarks" / "language" / "dev_set.yaml"


def _language_context() -> LanguageContext:
    try:
        return LanguageContext.from_store(get_market_store())
    except MarketError as error:
        raise CommandError(f"the market store cannot be read: {error}") from error


def _describe(run: dict[str, Any], *, tau: float, top_k: int) -> list[str]:
    def figures(timing: dict[str, Any]) -> str:
        return (
            f"median {timing['median_ms']:.2f} ms, p95 {timing['p95_ms']:.2f} ms, "
            f"max {timing['max_ms']:.2f} ms "
            f"(CPU: median {timing['cpu_median_ms']:.2f} ms, p95 {timing['cpu_p95_ms']:.2f} ms)"
        )

    exhaustive, same = run["exhaustive"], run["pruned_on_same_queries"]
    return [
        f"library {run['size']:>6} (index built in {run['build_ms']:.0f} ms), one question:",
        f"  top {top_k}: {figures(run['pruned_top_k'])}",
        f"  all within τ={tau:g}: {figures(run['pruned_within_tau'])}",
        f"  exhaustive zss on {run['exhaustive_queries']} of the questions: "
        f"median {exhaustive['median_ms']:.0f} ms (CPU {exhaustive['cpu_median_ms']:.0f} ms) vs "
        f"{same['median_ms']:.2f} ms pruned: {run['speedup']:g}x faster (CPU {run['cpu_speedup']:g}x); "
        f"identical results: {'yes' if run['identical'] else 'NO'}",
        f"  per question (within τ): {run['mean_stats_within_tau']}",
    ]


class Command(BaseCommand):
    help = "Paradigm library: load the cold-start files, show statistics, benchmark matching."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="load|stats|bench|experiments")
        load = actions.add_parser("load", help="store the cold-start paradigms (idempotent)")
        load.add_argument("--dir", type=Path, default=SEED_DIR, help="directory of *.yaml seed files")
        load.add_argument("--if-empty", action="store_true", help="do nothing when the library has paradigms")
        load.add_argument("--json", action="store_true")
        stats = actions.add_parser(
            "stats", help="size, capacity, tau, hits, misses (questions and reverse checks), evictions"
        )
        stats.add_argument("--json", action="store_true")
        bench = actions.add_parser("bench", help="matching speed on grown libraries, checked against zss")
        bench.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
        bench.add_argument("--queries", type=int, default=200, help="questions matched per library")
        bench.add_argument(
            "--exhaustive",
            type=int,
            nargs="+",
            default=[10, 3],
            help="queries also scanned exhaustively with zss, per library size (in --sizes order)",
        )
        bench.add_argument("--seed", type=int, default=20250908)
        bench.add_argument("--json-out", type=Path, default=Path("reports/paradigm_match.json"))
        measure = actions.add_parser("experiments", help="τ-sensitivity table and hit-rate experiment")
        measure.add_argument("--known", type=int, default=40, help="known questions the library learns first")
        measure.add_argument("--length", type=int, default=20, help="questions per stream")
        measure.add_argument("--seed", type=int, default=20250908)
        measure.add_argument(
            "--llm-latency-ms",
            type=float,
            default=0.0,
            help="the stub LLM sleeps this long per call (0: none)",
        )
        measure.add_argument("--json-out", type=Path, default=Path("reports/paradigm_experiments.json"))

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _load(self, options: dict[str, Any]) -> None:
        if options["if_empty"] and selectors.library_stats()["size"]:
            self.stdout.write("the paradigm library is not empty: nothing loaded")
            return
        try:
            entries = read_seed_directory(options["dir"])
        except SeedFileError as error:
            raise CommandError(str(error)) from error
        report = services.load_seed_paradigms(entries, _language_context(), get_market_store())
        if options["json"]:
            self.stdout.write(json.dumps({"entries": len(entries), **report.to_dict()}, ensure_ascii=False))
        else:
            self.stdout.write(
                f"{len(entries)} seed questions: {report.created} created, {report.refreshed} refreshed, "
                f"{report.unchanged} unchanged, {report.evicted} evicted, {len(report.failed)} failed"
            )
            for failure in report.failed:
                self.stdout.write(f"  failed: {failure}")
        if report.failed:
            raise CommandError(f"{len(report.failed)} seed question(s) could not be loaded")

    def _stats(self, options: dict[str, Any]) -> None:
        stats = selectors.library_stats()
        if options["json"]:
            self.stdout.write(json.dumps(stats))
            return
        for name, value in stats.items():
            self.stdout.write(f"{name:<11} {value}")

    def _bench(self, options: dict[str, Any]) -> None:
        sizes, exhaustive = options["sizes"], options["exhaustive"]
        if len(exhaustive) != len(sizes) or min(exhaustive) < 1 or min(sizes) < 1:
            raise CommandError("--exhaustive needs one positive count per library size")
        context = _language_context()
        translator = BuiltinTranslator()
        translations = [translator.translate(question, context) for question in dev_set_questions(DEV_SET)]
        real = [item.qst for item in translations if item.status == "ok" and item.qst is not None]
        if not real:
            raise CommandError("no dev-set question could be translated: is the market store loaded?")
        self.stdout.write(
            f"{len(real)} of {len(translations)} dev-set questions give a QST; growing libraries…"
        )
        report = run_benchmark(
            real,
            sizes=sizes,
            queries=options["queries"],
            exhaustive_queries=dict(zip(sizes, exhaustive, strict=True)),
            tau=settings.PARADIGM_TAU,
            top_k=settings.PARADIGM_TOP_K,
            seed=options["seed"],
        )
        for run in report["libraries"]:
            for line in _describe(run, tau=report["tau"], top_k=report["top_k"]):
                self.stdout.write(line)
        path: Path = options["json_out"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, ensure_ascii=False, indent=2))
        self.stdout.write(f"report written to {path}")
        if not report["identical"]:
            raise CommandError("pruned matching differs from the exhaustive zss scan (see the report)")

    def _experiments(self, options: dict[str, Any]) -> None:
        store = get_market_store()
        context = _language_context()
        gold = experiments.gold_questions(load_dev_set(DEV_SET), context)
        if len(gold) <= options["known"] + options["length"]:
            raise CommandError(
                f"{len(gold)} dev-set questions are read by the engine: too few for these sizes"
            )
        self.stdout.write(f"{len(gold)} dev-set questions with gold SQL are read by the built-in engine")
        taus = experiments.tau_table(gold, store, context)
        self.stdout.write(
            f"τ-sensitivity, leave-one-out ({taus['storable']} of them storable as paradigms); "
            "shares of all questions:"
        )
        self.stdout.write(f"{'τ':>4} {'matched':>8} {'adapted':>8} {'EX right':>9} {'right/adapted':>14}")
        for row in taus["rows"]:
            precision = "-" if row["precision"] is None else f"{row['precision']:.1%}"
            self.stdout.write(
                f"{row['tau']:>4g} {row['matched_share']:>8.1%} {row['adapted_share']:>8.1%} "
                f"{row['right_share']:>9.1%} {precision:>14}"
            )
        hits = experiments.hit_rate_experiment(
            gold,
            store,
            context,
            known=options["known"],
            length=options["length"],
            seed=options["seed"],
            latency_s=options["llm_latency_ms"] / 1000,
        )
        warm = hits["warm_up"]
        self.stdout.write(
            f"hit-rate experiment: {warm['learned']} of {warm['asked']} known questions learned, streams of "
            f"{options['length']}; stub LLM counting calls, {options['llm_latency_ms']:g} ms per call"
        )
        header = (
            "repeats",
            "lib ms/valid",
            "lib LLM/q",
            "lib writer/q",
            "hits",
            "lib r0",
            "none ms/valid",
            "none LLM/q",
            "none writer/q",
            "none r0",
        )
        self.stdout.write(" ".join(f"{name:>13}" for name in (*header, "time saved")))
        for item in hits["streams"]:
            lib, none = item["with_library"], item["without_library"]
            saved = (
                f"{1 - lib['ms_per_validated'] / none['ms_per_validated']:.0%}"
                if lib["ms_per_validated"] and none["ms_per_validated"]
                else "-"
            )
            cells = (
                f"{item['repeat_percent']}%",
                lib["ms_per_validated"],
                lib["llm_calls_per_question"],
                lib["writer_calls_per_question"],
                lib["hits"],
                lib["verified_round0"],
                none["ms_per_validated"],
                none["llm_calls_per_question"],
                none["writer_calls_per_question"],
                none["verified_round0"],
                saved,
            )
            self.stdout.write(" ".join(f"{cell!s:>13}" for cell in cells))
        path: Path = options["json_out"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"tau_sensitivity": taus, "hit_rate": hits}, ensure_ascii=False, indent=2))
        self.stdout.write(f"report written to {path}")
