"""Rules of the SQL guard, one small pure function each (DESIGN.md §4).

Text rules look at the raw characters, token rules at sqlglot's ClickHouse tokens (so strings and
comments are never mistaken for keywords), tree rules at the parsed statement (its nodes walked once
for all of them, parsed.py). Every rule returns the reason a statement is refused, or None when it
has nothing to object to.
"""

from __future__ import annotations

from collections.abc import Callable

from backend.domain.market.guard_rules.clauses import format_clauses, settings_clauses
from backend.domain.market.guard_rules.functions import forbidden_functions
from backend.domain.market.guard_rules.parsed import ParsedStatement
from backend.domain.market.guard_rules.sources import (
    identifier_parameters,
    internal_databases,
    table_functions,
)
from backend.domain.market.guard_rules.statements import nested_statements, statement_kind

TreeRule = Callable[[ParsedStatement], str | None]

# Order matters only for which reason is reported first: the statement kind, then what it reads.
TREE_RULES: tuple[TreeRule, ...] = (
    statement_kind,
    nested_statements,
    table_functions,
    internal_databases,
    forbidden_functions,
    identifier_parameters,
    settings_clauses,
    format_clauses,
)
