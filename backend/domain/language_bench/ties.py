"""Detect gold answers that depend on how ties are broken (a LIMIT cutting through equal values).

A top-k gold is only fair when the k-th and (k+1)-th values differ: otherwise a correct prediction
that breaks the tie another way fails EX. The check reruns the gold with its `ts_code` tie-break
reversed and sees whether the answer changes.
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.guard import DIALECT, check_read_only


def reversed_tie_break(sql: str) -> str | None:
    """The query with every ORDER BY ending in `ts_code DESC` instead of its own tie-break, or None
    when there is no ORDER BY that a tie-break could change."""
    tree = check_read_only(sql)
    changed = False
    for order in tree.find_all(exp.Order):
        keys = [
            key
            for key in order.expressions
            if not (isinstance(key.this, exp.Column) and key.this.name == "ts_code")
        ]
        if not keys:
            continue  # ordered by the code itself: no ties to break
        first_column = keys[0].find(exp.Column)
        table = first_column.table if first_column is not None and first_column.table else None
        keys.append(exp.Ordered(this=exp.column("ts_code", table=table), desc=True))
        order.set("expressions", keys)
        changed = True
    return tree.sql(dialect=DIALECT) if changed else None
