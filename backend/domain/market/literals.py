"""String values written into ClickHouse SQL as literals, quoted as sqlglot writes them."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

DIALECT = "clickhouse"


def string_literal(value: str) -> str:
    """A string as a ClickHouse literal (values from data are never pasted into SQL raw)."""
    return exp.Literal.string(value).sql(dialect=DIALECT)


def string_list(values: Sequence[str]) -> str:
    """`('a', 'b', …)`: each value exactly as `string_literal` writes it, through one generator for the
    whole list — `string_literal` builds a generator and copies the node per value, which on a list of
    1,400 stock codes cost more than guarding the SQL it goes into."""
    generator = Dialect.get_or_raise(DIALECT).generator()
    return (
        "(" + ", ".join(generator.generate(exp.Literal.string(value), copy=False) for value in values) + ")"
    )
