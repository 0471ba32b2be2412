"""`manage.py language_bench`: parse + compile time of the built-in engine per question."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from backend.apps.marketdata.store import get_market_store
from backend.domain.language.context import LanguageContext
from backend.domain.language.speed import FALLBACK_QUESTIONS, measure
from backend.domain.language_bench.dataset import DEV_SET_FILES, load_dev_sets
from backend.domain.market.errors import MarketError


class Command(BaseCommand):
    help = "Measure parse + compile time (median, p95) of the built-in engine over the dev set questions."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--json-out", default="reports/language_speed.json")
        parser.add_argument("--repeats", type=int, default=3)

    def handle(self, *args: Any, **options: Any) -> None:
        present = all(path.exists() for path in DEV_SET_FILES)
        questions = [item.question for item in load_dev_sets()] if present else list(FALLBACK_QUESTIONS)
        source = ", ".join(path.name for path in DEV_SET_FILES) if present else "built-in fallback list"
        try:
            context = LanguageContext.from_store(get_market_store())
        except MarketError as error:
            raise CommandError(f"the market store cannot be read: {error}") from error
        report = measure(context, questions, repeats=max(1, options["repeats"]))
        self.stdout.write(
            f"{report.questions} questions from {source}, {report.repeats} runs each: "
            f"median {report.median_ms:.2f} ms, p95 {report.p95_ms:.2f} ms, max {report.max_ms:.2f} ms "
            f"({report.ok} translated, {report.not_understood} not understood)"
        )
        for item in report.slowest:
            self.stdout.write(f"  {item['ms']:8.2f} ms  {item['status']:<15} {item['question']}")
        path = Path(options["json_out"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"source": source, **report.to_dict()}, ensure_ascii=False, indent=2))
        self.stdout.write(f"report written to {path}")
