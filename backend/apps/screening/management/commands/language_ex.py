"""`manage.py language_ex`: execution accuracy of the language engine on the hand-written dev set."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from backend.apps.marketdata.store import get_market_store
from backend.domain.language_bench import (
    CATEGORIES,
    DEV_SET_FILES,
    DevItem,
    DevSetError,
    TranslatorUnavailable,
    check_gold,
    contract_translator,
    load_dev_sets,
    pipeline_translator,
    run_ex,
    select,
    spotit_checker,
)
from backend.domain.language_bench.report import format_report, write_json
from backend.domain.market.errors import MarketError
from backend.domain.market.store import MarketStore


class Command(BaseCommand):
    help = "Run the language dev benchmark: EX per category and overall, failures with reasons."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--dev-set",
            action="append",
            default=[],
            help="dev set YAML file (repeatable); default: dev_set.yaml and every measured blind round",
        )
        parser.add_argument("--category", action="append", choices=CATEGORIES, default=[])
        parser.add_argument("--id", action="append", default=[], help="run only these item ids")
        parser.add_argument(
            "--spotit", action="store_true", help="also report the SpotIt equivalence verdict"
        )
        parser.add_argument("--bound", type=int, default=3, help="SpotIt bound K (rows per table)")
        parser.add_argument("--json-out", default="reports/language_ex.json", help="JSON report path")
        parser.add_argument("--no-failures", action="store_true", help="print the summary only")
        parser.add_argument(
            "--check-gold", action="store_true", help="only run the gold SQL: each must run and return rows"
        )
        parser.add_argument(
            "--pipeline",
            action="store_true",
            help="answer through the validation pipeline: reports which answers were verified or flagged",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            items = select(
                load_dev_sets(options["dev_set"] or DEV_SET_FILES), options["category"], options["id"]
            )
        except (OSError, DevSetError) as error:
            raise CommandError(str(error)) from error
        if not items:
            raise CommandError("no dev set item matches the selection")
        store = get_market_store()
        try:
            if not store.query("SELECT count() FROM market.daily").rows[0][0]:
                raise CommandError("the market store is empty: load data first (manage.py market generate)")
            if options["check_gold"]:
                self._check_gold(items, store)
                return
            translate = pipeline_translator(store) if options["pipeline"] else contract_translator(store)
        except (MarketError, TranslatorUnavailable) as error:
            raise CommandError(str(error)) from error
        equivalence, note = spotit_checker(store, bound=options["bound"]) if options["spotit"] else (None, "")
        report = run_ex(items, translate, store, equivalence=equivalence, spotit_note=note)
        self.stdout.write(format_report(report, show_failures=not options["no_failures"]))
        write_json(report, Path(options["json_out"]))
        self.stdout.write(f"\nreport written to {options['json_out']}")

    def _check_gold(self, items: list[DevItem], store: MarketStore) -> None:
        checks = check_gold(items, store)
        for check in checks:
            self.stdout.write(
                f"{check.id:<10} rows {check.rows!s:>6} {check.elapsed_ms:>8.1f} ms {check.error}"
            )
        bad = [check.id for check in checks if not check.ok]
        if bad:
            raise CommandError(f"{len(bad)} gold queries failed or returned nothing: {', '.join(bad)}")
        self.stdout.write(f"all {len(checks)} gold queries run, return rows and do not depend on tie-breaks")
