"""`manage.py ask "<question>" [--json]`: question → translator → guarded execution → rows."""

from __future__ import annotations

import json
import sys
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from backend.apps.marketdata.store import get_market_store
from backend.apps.screening.services import AskAnswer, InvalidQuestion, answer_question
from backend.domain.market.errors import MarketError

TABLE_ROWS = 50


def _dataset_note() -> str:
    try:
        rows = get_market_store().internal_query("SELECT dataset, synthetic FROM market.dataset_info").rows
    except MarketError:
        return ""
    synthetic = [str(name) for name, flag in rows if flag]
    return f"note: the market data ({', '.join(synthetic)}) is SYNTHETIC demo data" if synthetic else ""


def _table(answer: AskAnswer) -> str:
    header = [str(column) for column in answer.columns]
    body = [["" if cell is None else str(cell) for cell in row] for row in answer.rows[:TABLE_ROWS]]
    widths = [
        max(len(header[k]), *(len(row[k]) for row in body)) if body else len(header[k])
        for k in range(len(header))
    ]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * width for width in widths))
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in body]
    if len(answer.rows) > TABLE_ROWS:
        lines.append(f"… {len(answer.rows) - TABLE_ROWS} more rows (use --json for all)")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Answer one stock-screening question: translate it, run the SQL through the guard, print rows."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("question", help="the question, in Chinese or English")
        parser.add_argument("--json", action="store_true", help="print the whole answer as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        question: str = options["question"]
        try:
            answer = answer_question(question)
        except InvalidQuestion as error:
            if options["json"]:
                payload = {"question": question[:200], "status": "invalid_question", "message": str(error)}
                self.stdout.write(json.dumps(payload, ensure_ascii=False))
            else:
                self.stderr.write(f"cannot ask: {error}")
            sys.exit(1)
        if options["json"]:
            self.stdout.write(json.dumps(answer.to_dict(), ensure_ascii=False, default=str))
        else:
            self._print_human(answer)
        if answer.status != "ok":
            sys.exit(1)

    def _print_human(self, answer: AskAnswer) -> None:
        self.stdout.write(f"question: {answer.question}")
        self.stdout.write(f"engine:   {answer.engine}")
        if answer.status != "ok":
            self.stderr.write(f"{answer.status}: {answer.message}")
            if answer.sql:
                self.stdout.write(answer.sql)
            return
        self.stdout.write(f"SQL:\n{answer.sql}\n")
        for warning in answer.warnings:
            self.stdout.write(f"warning: {warning}")
        self.stdout.write(_table(answer))
        timings = ", ".join(f"{key} {value:.1f} ms" for key, value in answer.timings_ms.items())
        self.stdout.write(f"\n{answer.row_count} rows; {timings}")
        note = _dataset_note()
        if note:
            self.stdout.write(note)
