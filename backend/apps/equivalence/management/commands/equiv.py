"""`manage.py equiv "<sql1>" "<sql2>"`: bounded equivalence of two queries (default: the market schema).

A counterexample is confirmed by running both queries on it through the SQL guard and under the query
limits of every other SQL path (QUERY_MAX_* settings). The verdict is coloured only on a terminal and
never with --json.
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from backend.apps.marketdata.store import store_config
from backend.domain.equivalence import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    ChdbValidator,
    CounterexampleValidator,
    EquivalenceResult,
    Schema,
    SqliteValidator,
    check_equivalence,
)


class Command(BaseCommand):
    help = "Check whether two SQL queries are equivalent on every database with at most K rows per table."
    # It uses neither the ORM nor the URLs: the system checks would only add seconds of start-up.
    requires_system_checks: tuple[str, ...] = ()

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("sql1")
        parser.add_argument("sql2")
        parser.add_argument("--schema", help="DDL file (CREATE TABLE ...); default: the market schema")
        parser.add_argument("--dialect", default="clickhouse", choices=["clickhouse", "sqlite"])
        parser.add_argument("--bound", type=int, default=5)
        parser.add_argument("--semantics", default="bag", choices=["bag", "set", "list"])
        parser.add_argument("--timeout", type=float, default=30.0, help="seconds for the whole check")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def execute(self, *args: Any, **options: Any) -> str | None:
        if options.get("json"):
            # Output for programs: no colour codes, not even in an error written to a terminal.
            options = {**options, "no_color": True, "force_color": False}
        return super().execute(*args, **options)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["schema"]:
            path = Path(options["schema"])
            if not path.is_file():
                raise CommandError(f"no such DDL file: {path}")
            schema = Schema.from_ddl(path.read_text(encoding="utf-8"), options["dialect"])
        else:
            schema = Schema.market()
        limits = store_config().limits
        validator: CounterexampleValidator = (
            ChdbValidator(limits=limits) if options["dialect"] == "clickhouse" else SqliteValidator(limits)
        )
        result = check_equivalence(
            options["sql1"],
            options["sql2"],
            schema=schema,
            bound=options["bound"],
            semantics=options["semantics"],
            dialect=options["dialect"],
            timeout_s=options["timeout"],
            validator=validator,
        )
        if options["json"]:
            self.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False, default=str))
            return
        self._print(result)

    def _verdict_colour(self, verdict: str) -> Callable[[str], str]:
        if not self.stdout.isatty():
            return str
        by_verdict = {EQUIVALENT: self.style.SUCCESS, NOT_EQUIVALENT: self.style.ERROR}
        return by_verdict.get(verdict, self.style.WARNING)  # unsupported, unknown

    def _print(self, result: EquivalenceResult) -> None:
        colour = self._verdict_colour(result.verdict)
        self.stdout.write(
            f"verdict: {colour(result.verdict)} (bound {result.bound}, {result.semantics} semantics)"
        )
        self.stdout.write(f"reason: {result.reason}")
        if result.counterexample:
            self.stdout.write(f"counterexample (confirmed={result.confirmed}):")
            for table, content in result.counterexample.items():
                self.stdout.write(f"  {table}: {content['columns']}")
                for row in content["rows"]:
                    self.stdout.write(f"    {row}")
            if result.results:
                self.stdout.write(f"  sql1 returns {result.results['a']}")
                self.stdout.write(f"  sql2 returns {result.results['b']}")
        self.stdout.write(f"seconds: {result.seconds}")
