"""SQL guard: exactly one read statement, checked on the sqlglot tree (DESIGN.md §4)."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from backend.domain.market.errors import QueryRejected

DIALECT = "clickhouse"


def check_read_only(sql: str) -> exp.Query:
    """Return the parsed statement, or raise QueryRejected saying why it is refused."""
    if not sql or not sql.strip():
        raise QueryRejected("empty SQL: there is nothing to run")
    try:
        statements = [s for s in sqlglot.parse(sql, read=DIALECT) if s is not None]
    except ParseError as error:
        raise QueryRejected(f"the SQL could not be parsed: {error}") from error
    if len(statements) != 1:
        raise QueryRejected(f"exactly one statement is allowed, got {len(statements)}")
    statement = statements[0]
    if not isinstance(statement, exp.Query):
        raise QueryRejected(f"only SELECT/WITH queries are allowed, got {statement.key.upper()}")
    return statement
