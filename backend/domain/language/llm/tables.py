"""Which tables a model's SQL may read: the market tables of the store's database, nothing else.

The guard (backend.domain.market.guard) refuses writes, ClickHouse's internal databases and table
functions, but a plain read of another database on the same server (`SELECT * FROM other.users`)
passes it. SQL a model wrote is held to the market schema as well: a prompt injection may ask for
any table.
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.schema import TABLES_BY_NAME


def foreign_tables(query: exp.Query, database: str) -> list[str]:
    """Tables `query` reads that are neither a market table of `database` nor one of its CTEs."""
    ctes = {cte.alias_or_name for cte in query.find_all(exp.CTE)}
    foreign = []
    for table in query.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue  # a table function: the guard decides on those
        if table.db == "" and table.name in ctes:
            continue
        if table.name not in TABLES_BY_NAME or table.db not in ("", database) or table.catalog:
            foreign.append(".".join(part for part in (table.catalog, table.db, table.name) if part))
    return sorted(set(foreign))
