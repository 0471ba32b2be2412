"""`manage.py query_bench`: light-query latency while 0, 1 and 2 heavy queries run (one run)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from backend.apps.marketdata.store import store_config
from backend.domain.market.concurrency_bench import format_report, run_concurrency_bench
from backend.domain.market.errors import MarketError
from backend.domain.market.execution import AdmissionLimits
from backend.domain.market.store import MarketStore


class Command(BaseCommand):
    help = (
        "Benchmark concurrent execution on the configured market store: p50/p95 of a light query while "
        "0, 1 and 2 heavy screens run. Prints the figures and writes a JSON report."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=60, help="light queries per level")
        parser.add_argument("--json-out", type=Path, default=Path("reports/query_concurrency.json"))

    def handle(self, *args: Any, **options: Any) -> None:
        config = store_config()
        store = MarketStore(config)
        one_slot = MarketStore(replace(config, admission=AdmissionLimits(slots=1, per_requester=1)))
        try:
            if not store.internal_query("SELECT count() FROM market.daily").rows[0][0]:
                raise CommandError("the market store is empty: load data first (manage.py market generate)")
            report = run_concurrency_bench(
                store, light_runs=options["runs"], progress=self.stderr.write, serialised=one_slot
            )
        except MarketError as error:
            raise CommandError(f"{error.code}: {error}") from error
        finally:
            store.close()
            one_slot.close()
        self.stdout.write(format_report(report))
        path: Path = options["json_out"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
        self.stdout.write(f"report written to {path}")
