"""Function names as ClickHouse sees them, normalised for comparison.

ClickHouse has case-insensitive aliases with and without underscores (`currentUser`,
`current_user`, `CURRENT_USER`), so names are compared lower-cased without underscores.
"""

from __future__ import annotations

from sqlglot import exp

# sqlglot keeps the written name on these nodes; typed nodes (exp.CurrentUser…) carry it in sql_name().
_NAMED_CALLS = (exp.Anonymous, exp.AnonymousAggFunc, exp.CombinedAggFunc, exp.ParameterizedAgg)


def normalise(name: str) -> str:
    return name.lower().replace("_", "")


def written_name(node: exp.Func) -> str:
    if isinstance(node, _NAMED_CALLS):
        return node.name
    return node.sql_name()
