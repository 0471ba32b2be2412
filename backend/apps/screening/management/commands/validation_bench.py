"""`manage.py validation_bench`: the error benchmark of the validation pipeline (issue 9 item 7).

Result-changing mutants of the dev set's gold SQL by error type (detection), the unmutated gold
(false alarms), the blind set's gold the same way (reported apart), a noisy generator (EX without →
with validation), the built-in engine's answers (share verified, wrong answers labelled verified),
and latency; with `--mutant-set FILE`, a hand-written mutant set (bench/mutant_set.py) measured in a
section of its own (`--mutant-set-only`: that section alone); `--latency-only`: the latency section
alone, on the dev set. Needs the default demo data (`manage.py market generate`).
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from backend.apps.marketdata.store import get_market_store
from backend.domain.language.context import LanguageContext
from backend.domain.language_bench import DEFAULT_DEV_SET, DevSetError, load_dev_set
from backend.domain.market.errors import MarketError
from backend.domain.pipeline.bench.mutant_set import MutantSetError, load_mutant_set
from backend.domain.pipeline.bench.runner import (
    BenchSettings,
    data_summary,
    format_report,
    gold_tables,
    latency,
    measure_mutant_set,
    run_benchmark,
)
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.run import Ports
from backend.domain.pipeline.validate.checklist import default_vocabulary

DEFAULT_BLIND_SET = DEFAULT_DEV_SET.parent / "blind_round1.yaml"


class Command(BaseCommand):
    help = "Measure the validation pipeline: error detection per type, false alarms, noisy EX, latency."

    def add_arguments(self, parser: ArgumentParser) -> None:
        defaults = BenchSettings()
        parser.add_argument("--dev-set", default=str(DEFAULT_DEV_SET))
        parser.add_argument("--blind-set", default=str(DEFAULT_BLIND_SET))
        parser.add_argument(
            "--per-type", type=int, default=defaults.per_type, help="mutants per item and type"
        )
        parser.add_argument(
            "--noise", type=float, default=defaults.noise, help="noisy-generator mutation rate"
        )
        parser.add_argument("--seed", type=int, default=defaults.seed)
        parser.add_argument("--workers", type=int, default=defaults.workers, help="reverse-check threads")
        parser.add_argument("--max-rounds", type=int, default=defaults.max_rounds)
        parser.add_argument(
            "--repeats", type=int, default=defaults.repeats, help="timings: runs per question"
        )
        parser.add_argument(
            "--limit", type=int, default=0, help="only the first N items of each set (0: all)"
        )
        parser.add_argument(
            "--mutant-set", default="", help="a hand-written mutant set (YAML) to measure too"
        )
        parser.add_argument(
            "--mutant-set-only", action="store_true", help="measure the --mutant-set file and nothing else"
        )
        parser.add_argument(
            "--latency-only",
            action="store_true",
            help="only the latency section (ask with/without validation, reverse checks side by side)",
        )
        parser.add_argument("--json-out", default="reports/validation_bench.json")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            dev = load_dev_set(options["dev_set"])
            blind = load_dev_set(options["blind_set"])
            hand = load_mutant_set(options["mutant_set"]) if options["mutant_set"] else []
        except (OSError, DevSetError, MutantSetError) as error:
            raise CommandError(str(error)) from error
        if options["mutant_set_only"] and not hand:
            raise CommandError("--mutant-set-only needs --mutant-set FILE")
        if options["limit"] > 0:
            dev, blind, hand = dev[: options["limit"]], blind[: options["limit"]], hand[: options["limit"]]
        store = get_market_store()
        try:
            if not store.query("SELECT count() FROM market.daily").rows[0][0]:
                raise CommandError("the market store is empty: load data first (manage.py market generate)")
            context = LanguageContext.from_store(store)
        except MarketError as error:
            raise CommandError(str(error)) from error
        ports = Ports(store, BuiltinGenerator(context), default_vocabulary(), store.database)
        settings = BenchSettings(
            per_type=options["per_type"],
            noise=options["noise"],
            seed=options["seed"],
            workers=options["workers"],
            max_rounds=options["max_rounds"],
            repeats=options["repeats"],
        )
        source = options["mutant_set"]
        report: dict[str, object]
        if options["latency_only"]:
            gold = gold_tables(dev, store)
            report = {
                "data": data_summary(store),
                "latency": latency(
                    ports, dev, gold, store, ports.vocabulary, settings.workers, settings.repeats
                ),
            }
        elif options["mutant_set_only"]:
            report = {
                "data": data_summary(store),
                "mutant_set": measure_mutant_set(ports, store, hand, source, self._log),
            }
        else:
            report = run_benchmark(ports, store, dev, blind, settings, self._log, hand, source)
        self.stdout.write(format_report(report))
        path = Path(options["json_out"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
        self.stdout.write(f"\nreport written to {path}")

    def _log(self, line: str) -> None:
        self.stderr.write(f"… {line}")
