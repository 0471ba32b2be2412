"""Rules on clauses that belong to VeriScreen, not to the query author."""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.guard_rules.parsed import ParsedStatement


def settings_clauses(statement: ParsedStatement) -> str | None:
    for query in statement.find_all(exp.Query):
        settings = query.args.get("settings")
        if settings:
            names = ", ".join(setting.this.sql("clickhouse") for setting in settings if setting.this)
            return (
                f"SETTINGS clauses are not allowed ({names}): read-only mode and limits are set by "
                "VeriScreen for every query"
            )
    return None


def format_clauses(statement: ParsedStatement) -> str | None:
    for query in statement.find_all(exp.Query):
        output_format = query.args.get("format")
        if output_format is not None:
            return (
                f"FORMAT clauses are not allowed (FORMAT {output_format.sql('clickhouse')}): "
                "VeriScreen chooses how results are transferred"
            )
    return None
