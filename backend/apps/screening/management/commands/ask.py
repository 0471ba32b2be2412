"""`manage.py ask "<question>" [--json]`: question → validation pipeline → rows, status and checks."""

from __future__ import annotations

import json
import sys
from argparse import ArgumentParser
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from django.core.management.base import CommandError

from backend.apps.marketdata.forwarding import ServerReply, TerminalCommand
from backend.apps.screening.answers import AskAnswer, InvalidQuestion, clean_question

TABLE_ROWS = 50
DATASETS_SQL = "SELECT dataset, synthetic FROM market.dataset_info"


def answer_here(question: str, candidate_sql: str | None = None, correct: bool = True) -> AskAnswer:
    # Imported here: the language engine and the store are most of a local answer's start-up time,
    # which a forwarded question does not pay.
    from backend.apps.screening.services import answer_question
    from backend.domain.market.errors import MarketError

    try:
        return answer_question(question, candidate_sql=candidate_sql, correct=correct)
    except MarketError as error:  # the store's queue is full: no answer at all
        raise CommandError(f"{error.code}: {error}") from error


def answer_from(reply: ServerReply) -> AskAnswer:
    if "status" not in reply.body:  # not an answer (the store's queue is full…): the error says why
        code, message = reply.error or ("error", f"HTTP {reply.status}")
        raise CommandError(f"{code}: {message}")
    return AskAnswer(**{field.name: reply.body[field.name] for field in fields(AskAnswer)})


def datasets_here() -> Sequence[Sequence[Any]]:
    from backend.apps.marketdata.store import get_market_store
    from backend.domain.market.errors import MarketError

    try:
        return get_market_store().internal_query(DATASETS_SQL).rows
    except MarketError:
        return []


def dataset_note(datasets: Sequence[Sequence[Any]]) -> str:
    synthetic = [str(name) for name, flag in datasets if flag]
    return f"note: the market data ({', '.join(synthetic)}) is SYNTHETIC demo data" if synthetic else ""


def _checks(answer: AskAnswer) -> str:
    """One line per check: its verdict and sentence; the reason of any that did not pass."""
    lines = [f"checks ({len(answer.checks)}):"]
    for check in answer.checks:
        note = "" if check["verdict"] == "pass" else f" — {check['reason']}"
        lines.append(f"  [{check['verdict']}] {check['text']}{note}")
    return "\n".join(lines) + "\n"


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


class Command(TerminalCommand):
    help = (
        "Answer one stock-screening question: translate it, run the SQL through the guard, check the "
        "answer (and correct it), print rows, status and checks."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("question", help="the question, in Chinese or English")
        parser.add_argument("--json", action="store_true", help="print the whole answer as JSON")

    def answer(self, text: str, options: dict[str, Any]) -> AskAnswer:
        reply = self.server_reply("POST", "/api/ask/", {"question": text})
        return answer_here(text) if reply is None else answer_from(reply)

    def handle(self, *args: Any, **options: Any) -> None:
        question: str = options["question"]
        try:
            text = clean_question(question)
        except InvalidQuestion as error:
            if options["json"]:
                payload = {"question": question[:200], "status": "invalid_question", "message": str(error)}
                self.stdout.write(json.dumps(payload, ensure_ascii=False))
            else:
                self.stderr.write(f"cannot ask: {error}")
            sys.exit(1)
        answer = self.answer(text, options)
        if options["json"]:
            self.stdout.write(json.dumps(answer.to_dict(), ensure_ascii=False, default=str))
        else:
            self._print_human(answer)
        if not answer.answered:
            sys.exit(1)

    def _print_human(self, answer: AskAnswer) -> None:
        self.stdout.write(f"question: {answer.question}")
        self.stdout.write(f"engine:   {answer.engine}")
        if not answer.answered:
            self.stderr.write(f"{answer.status}: {answer.message}")
            if answer.sql:
                self.stdout.write(answer.sql)
            return
        round_note = f" (round {answer.correction_round})" if answer.correction_round else ""
        self.stdout.write(f"status:   {answer.status}{round_note}")
        if answer.initial_sql and answer.initial_sql != answer.sql:
            self.stdout.write(f"first SQL (refused by its checks):\n{answer.initial_sql}\n")
        self.stdout.write(f"SQL:\n{answer.sql}\n")
        for warning in answer.warnings:
            self.stdout.write(f"warning: {warning}")
        self.stdout.write(_checks(answer))
        self.stdout.write(_table(answer))
        timings = ", ".join(f"{key} {value:.1f} ms" for key, value in answer.timings_ms.items())
        self.stdout.write(f"\n{answer.row_count} rows; {timings}")
        note = dataset_note(self._datasets())
        if note:
            self.stdout.write(note)

    def _datasets(self) -> Sequence[Sequence[Any]]:
        reply = self.server_reply("POST", "/api/sql/", {"sql": DATASETS_SQL})
        if reply is None:
            return datasets_here()
        return [] if reply.error else reply.body["rows"]
