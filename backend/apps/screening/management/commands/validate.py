"""`manage.py validate "<question>" --sql "<candidate>" [--no-correct] [--json]`: validate any SQL for a
question. The candidate replaces the generated first SQL; the checks, the correction rounds (unless
--no-correct) and the answer are those of `ask`, forwarded to a running server the same way."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from backend.apps.screening.answers import AskAnswer
from backend.apps.screening.management.commands import ask


class Command(ask.Command):
    help = "Validate a candidate SQL for a question: run it through the guard and the checks, correct it."

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--sql", required=True, help="the candidate SQL (it replaces the first SQL)")
        parser.add_argument(
            "--no-correct", action="store_true", help="only validate: no correction rounds when it fails"
        )

    def answer(self, text: str, options: dict[str, Any]) -> AskAnswer:
        correct = not options["no_correct"]
        payload = {"question": text, "sql": options["sql"], "correct": correct}
        reply = self.server_reply("POST", "/api/validate/", payload)
        if reply is None:
            return ask.answer_here(text, candidate_sql=options["sql"], correct=correct)
        return ask.answer_from(reply)
