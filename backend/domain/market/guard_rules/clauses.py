"""Rules on clauses that belong to VeriScreen, not to the query author."""

from __future__ import annotations

from sqlglot import exp


def _queries(tree: exp.Expr) -> list[exp.Query]:
    return [node for node in tree.walk() if isinstance(node, exp.Query)]


def settings_clauses(tree: exp.Expr) -> str | None:
    for query in _queries(tree):
        settings = query.args.get("settings")
        if settings:
            names = ", ".join(setting.this.sql("clickhouse") for setting in settings if setting.this)
            return (
                f"SETTINGS clauses are not allowed ({names}): read-only mode and limits are set by "
                "VeriScreen for every query"
            )
    return None


def format_clauses(tree: exp.Expr) -> str | None:
    for query in _queries(tree):
        output_format = query.args.get("format")
        if output_format is not None:
            return (
                f"FORMAT clauses are not allowed (FORMAT {output_format.sql('clickhouse')}): "
                "VeriScreen chooses how results are transferred"
            )
    return None
