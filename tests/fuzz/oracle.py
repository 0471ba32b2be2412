"""An independent reading of 'a single read-only SELECT over allowed tables', for statements the guard
accepted. It shares no code with the guard: its own lists, its own walk of sqlglot's tree and tokens."""

from __future__ import annotations

import unicodedata

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

from tests.fuzz.sql_grammar import MARKET_TABLES

GENERATORS = {"numbers", "numbersmt", "zeros", "zerosmt", "generateseries"}
INTERNAL = {"system", "information_schema", "_temporary_and_external_tables"}
_WRITE_NODE_NAMES = (
    "Insert Delete Update Drop Create Alter Command Set TruncateTable Into Merge Grant Use Kill "
    "Attach Detach Copy LoadData Transaction Commit Rollback Describe Show Pragma"
)
WRITE_NODES = tuple(
    node
    for node in (getattr(exp, name, None) for name in _WRITE_NODE_NAMES.split())
    if isinstance(node, type)
)
DANGEROUS_CALLS = {
    "file", "url", "remote", "remotesecure", "s3", "mysql", "postgresql", "executable", "merge", "cluster",
    "input", "hdfs", "dictionary", "jdbc", "odbc", "currentuser", "hostname", "version", "getsetting",
    "getmacro", "sleep", "sleepeachrow", "joinget", "uptime",
}  # fmt: skip
OWNER_KEYWORDS = {"SETTINGS", "OUTFILE", "FORMAT"}


def _name(node: exp.Func) -> str:
    name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
    return name.lower().replace("_", "")


def assert_single_read(sql: str, *, tables: str = "market tables") -> None:
    """Raise AssertionError unless `sql` is one read of allowed tables (or the number generators).

    `tables`: "market tables" (the canonical tables and the query's own CTEs), "market database" (any
    name in it: a missing table is ClickHouse's error, not a leak) or "any database but the internal
    ones" (what the guard promises for arbitrary text; server grants confine the rest).
    """
    for char in sql:
        assert char in "\t\n\r" or unicodedata.category(char) not in {"Cc", "Cf", "Zl", "Zp", "Co", "Cs"}, (
            f"accepted an invisible character U+{ord(char):04X}"
        )
    tokens = sqlglot.Dialect.get_or_raise("clickhouse").tokenize(sql)
    words = {token.text.upper() for token in tokens if token.token_type != TokenType.STRING}
    assert not words & OWNER_KEYWORDS, f"accepted a clause VeriScreen owns: {words & OWNER_KEYWORDS}"
    statements = [
        s for s in sqlglot.parse(sql, read="clickhouse") if s is not None and not isinstance(s, exp.Semicolon)
    ]
    assert len(statements) == 1, f"accepted {len(statements)} statements"
    tree = statements[0]
    assert isinstance(tree, exp.Query), f"accepted a {type(tree).__name__}"
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for node in tree.walk():
        assert not isinstance(node, WRITE_NODES), f"accepted a nested {type(node).__name__}"
        if isinstance(node, exp.Func) and not isinstance(node.parent, exp.Table):
            assert _name(node) not in DANGEROUS_CALLS and not _name(node).startswith("dict"), _name(node)
        if isinstance(node, exp.Column):
            assert {node.catalog.lower(), node.db.lower(), node.table.lower()}.isdisjoint(INTERNAL)
    for table in tree.find_all(exp.Table):
        assert {table.catalog.lower(), table.db.lower()}.isdisjoint(INTERNAL), f"accepted {table.sql()}"
        if isinstance(table.this, exp.Func):
            assert _name(table.this) in GENERATORS, f"accepted table function {_name(table.this)}"
        elif tables != "any database but the internal ones" and table.name:
            assert table.db.lower() in {"", "market"}, f"accepted database {table.db}"
            if tables == "market tables":
                assert table.name in MARKET_TABLES or table.name.lower() in ctes, f"accepted {table.name}"
