"""`manage.py sql "<SELECT …>" [--json]`: one guarded, limited read of the market store."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.management.base import CommandError, CommandParser

from backend.apps.marketdata.forwarding import ServerReply, TerminalCommand


def _text(cell: Any) -> str:
    if cell is None:
        return "NULL"
    if isinstance(cell, list | dict):
        return json.dumps(cell, ensure_ascii=False)
    return str(cell)


def _display_width(text: str) -> int:
    """Terminal columns: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _pad(text: str, width: int, right: bool) -> str:
    padding = " " * (width - _display_width(text))
    return padding + text if right else text + padding


def _line(cells: Sequence[str], widths: Sequence[int], right_aligned: Sequence[bool]) -> str:
    return "  ".join(
        _pad(text, width, right) for text, width, right in zip(cells, widths, right_aligned, strict=True)
    )


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns and rows aligned under each other; numeric columns right-aligned."""
    texts = [[_text(cell) for cell in row] for row in rows]
    widths = [
        max([_display_width(name)] + [_display_width(row[index]) for row in texts])
        for index, name in enumerate(columns)
    ]
    numeric = [
        bool(rows) and all(isinstance(row[index], int | float) or row[index] is None for row in rows)
        for index in range(len(columns))
    ]
    rule = ["-" * width for width in widths]
    return "\n".join(_line(line, widths, numeric) for line in [list(columns), rule, *texts])


@dataclass(frozen=True)
class Table:
    """What the command prints, whether this process or the server ran the query."""

    columns: list[str]
    rows: list[list[Any]]
    elapsed_ms: float


def run_here(sql: str) -> Table:
    # Imported here: the store and the guard are start-up time a forwarded query does not need.
    from backend.apps.marketdata.selectors import run_console_query
    from backend.domain.market.errors import MarketError

    try:
        result = run_console_query(sql)
    except MarketError as error:
        # CommandError makes manage.py print the message and exit with status 1, no traceback.
        raise CommandError(f"{error.code}: {error}") from error
    return Table(result.columns, result.rows, result.elapsed_ms)


def table_from(reply: ServerReply) -> Table:
    if reply.error is not None:
        code, message = reply.error
        raise CommandError(f"{code}: {message}")
    return Table(reply.body["columns"], reply.body["rows"], reply.body["elapsed_ms"])


class Command(TerminalCommand):
    help = (
        "Run one read-only SQL statement (ClickHouse dialect) on the market store, through the SQL guard "
        "and the query limits, and print its columns and rows."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sql", help='one SELECT/WITH statement, e.g. "SELECT count() FROM market.daily"')
        parser.add_argument("--json", action="store_true", help="print {columns, rows} as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        reply = self.server_reply("POST", "/api/sql/", {"sql": options["sql"]})
        result = run_here(options["sql"]) if reply is None else table_from(reply)
        if options["json"]:
            self.stdout.write(
                json.dumps({"columns": result.columns, "rows": result.rows}, ensure_ascii=False)
            )
            return
        if result.columns:
            self.stdout.write(format_table(result.columns, result.rows))
        self.stdout.write(f"({len(result.rows)} rows, {result.elapsed_ms:.1f} ms)")
