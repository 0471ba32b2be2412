"""Rules on the kind of statement: one read query, and no write, DDL or command anywhere inside."""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.guard_rules.parsed import ParsedStatement

# Statement nodes sqlglot can build. A read query may contain none of them, at any depth: a CTE
# body or a subquery holding an INSERT is still a write. `Command` is sqlglot's fallback for
# statements it does not model (SYSTEM, OPTIMIZE, GRANT, ATTACH, RENAME, EXCHANGE, SHOW, EXPLAIN…).
_STATEMENT_NODE_NAMES = (
    "Alter",
    "Analyze",
    "Attach",
    "Cache",
    "Command",
    "Comment",
    "Commit",
    "Copy",
    "Create",
    "Declare",
    "Delete",
    "Describe",
    "Detach",
    "Drop",
    "Execute",
    "Export",
    "Get",
    "Grant",
    "Insert",
    "Install",
    "Into",
    "Kill",
    "LoadData",
    "Lock",
    "Merge",
    "Pragma",
    "Put",
    "Refresh",
    "Revoke",
    "Rollback",
    "Set",
    "Show",
    "Summarize",
    "Transaction",
    "TruncateTable",
    "Uncache",
    "Update",
    "Use",
)
STATEMENT_NODES: tuple[type[exp.Expr], ...] = tuple(
    node for node in (getattr(exp, name, None) for name in _STATEMENT_NODE_NAMES) if isinstance(node, type)
)


def _statement_label(node: exp.Expr) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    if isinstance(node, exp.Into):
        return "SELECT … INTO"
    return node.key.upper()


def statement_kind(statement: ParsedStatement) -> str | None:
    if not isinstance(statement.tree, exp.Query):
        return f"only SELECT/WITH queries are allowed, got {_statement_label(statement.tree)}"
    return None


def nested_statements(statement: ParsedStatement) -> str | None:
    node = next(statement.find_all(*STATEMENT_NODES), None)
    if node is not None:
        return f"{_statement_label(node)} inside the query is not allowed: screens only read data"
    return None
