"""SQL dialect behaviours that change query results, so the encoding follows the engine that validates it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    name: str  # sqlglot dialect name
    int_division_truncates: bool  # SQLite: 7/2 = 3; ClickHouse: 7/2 = 3.5
    outer_join_fills_defaults: bool  # ClickHouse without join_use_nulls: 0 / '' instead of NULL
    empty_aggregates_default: bool  # ClickHouse: sum()/min()/max() of no non-Nullable rows = 0, not NULL
    in_ignores_null_elements: bool  # ClickHouse (transform_null_in=0): 3 NOT IN (1, NULL) is true
    like_ascii_case_insensitive: bool  # SQLite LIKE ignores ASCII case
    strings_as_booleans: (
        bool  # SQLite: a string in a boolean context is its numeric prefix; ClickHouse refuses
    )
    nulls_first_ascending: bool  # SQLite sorts NULL first in ASC; ClickHouse last
    bare_union_is_distinct: bool  # ClickHouse refuses a bare UNION (needs ALL or DISTINCT)


CLICKHOUSE = Dialect(
    name="clickhouse",
    int_division_truncates=False,
    outer_join_fills_defaults=True,
    empty_aggregates_default=True,
    in_ignores_null_elements=True,
    like_ascii_case_insensitive=False,
    strings_as_booleans=False,
    nulls_first_ascending=False,
    bare_union_is_distinct=False,
)

SQLITE = Dialect(
    name="sqlite",
    int_division_truncates=True,
    outer_join_fills_defaults=False,
    empty_aggregates_default=False,
    in_ignores_null_elements=False,
    like_ascii_case_insensitive=True,
    strings_as_booleans=True,
    nulls_first_ascending=True,
    bare_union_is_distinct=True,
)

DIALECTS = {"clickhouse": CLICKHOUSE, "sqlite": SQLITE}


def dialect_named(name: str) -> Dialect:
    try:
        return DIALECTS[name.lower()]
    except KeyError as error:
        raise ValueError(f"unknown dialect {name!r}; known: {', '.join(DIALECTS)}") from error
