"""`manage.py equiv "<sql1>" "<sql2>"`: bounded equivalence of two queries (default: the market schema)."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from backend.domain.equivalence import Schema, check_equivalence


class Command(BaseCommand):
    help = "Check whether two SQL queries are equivalent on every database with at most K rows per table."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("sql1")
        parser.add_argument("sql2")
        parser.add_argument("--schema", help="DDL file (CREATE TABLE ...); default: the market schema")
        parser.add_argument("--dialect", default="clickhouse", choices=["clickhouse", "sqlite"])
        parser.add_argument("--bound", type=int, default=5)
        parser.add_argument("--semantics", default="bag", choices=["bag", "set", "list"])
        parser.add_argument("--timeout", type=float, default=30.0, help="seconds for the whole check")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["schema"]:
            path = Path(options["schema"])
            if not path.is_file():
                raise CommandError(f"no such DDL file: {path}")
            schema = Schema.from_ddl(path.read_text(encoding="utf-8"), options["dialect"])
        else:
            schema = Schema.market()
        result = check_equivalence(
            options["sql1"],
            options["sql2"],
            schema=schema,
            bound=options["bound"],
            semantics=options["semantics"],
            dialect=options["dialect"],
            timeout_s=options["timeout"],
        )
        if options["json"]:
            self.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False, default=str))
            return
        self.stdout.write(f"verdict: {result.verdict} (bound {result.bound}, {result.semantics} semantics)")
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
