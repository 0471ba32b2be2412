"""The write path shared by the demo generator and the importers: schema, arrow conversion, inserts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from backend.domain.market.errors import MarketError
from backend.domain.market.schema import TABLES, TABLES_BY_NAME, Table, schema_statements
from backend.domain.market.store import MarketStore


def ensure_schema(store: MarketStore) -> None:
    """Create the database and every canonical table that does not exist yet (idempotent)."""
    for statement in schema_statements(store.database, store.config.cluster):
        store.admin_command(statement)


def row_counts(store: MarketStore) -> dict[str, int]:
    """Rows per canonical table (tables that do not exist count as 0)."""
    existing = set(store.table_names())
    counts = {}
    for table in TABLES:
        if table.name not in existing:
            counts[table.name] = 0
            continue
        result = store.internal_query(f"SELECT count() FROM {store.database}.{table.name}")
        counts[table.name] = int(result.rows[0][0])
    return counts


def truncate_all(store: MarketStore) -> None:
    for table in TABLES:
        store.admin_command(f"TRUNCATE TABLE IF EXISTS {store.database}.{table.name}")


def _arrow_type(clickhouse_type: str) -> pa.DataType:
    base = clickhouse_type.removeprefix("Nullable(").removeprefix("LowCardinality(").rstrip(")")
    if base.startswith("DateTime"):
        return pa.timestamp("s", tz="UTC")
    return {
        "String": pa.string(),
        "Date": pa.date32(),
        "Float64": pa.float64(),
        "UInt8": pa.uint8(),
    }[base]


def arrow_schema(table: Table) -> pa.Schema:
    return pa.schema(
        [
            pa.field(c.name, _arrow_type(c.type), nullable=c.type.startswith("Nullable("))
            for c in table.columns
        ]
    )


def nullable(values: np.ndarray) -> pa.Array:
    """Float column where NaN means NULL."""
    return pa.array(values, mask=np.isnan(values), type=pa.float64())


def build_table(table_name: str, columns: Mapping[str, Any]) -> pa.Table:
    """An Arrow table with exactly the canonical columns of `table_name`, cast to their types."""
    table = TABLES_BY_NAME[table_name]
    missing = [name for name in table.column_names if name not in columns]
    extra = [name for name in columns if name not in table.column_names]
    if missing or extra:
        raise MarketError(f"{table_name}: missing columns {missing}, unexpected columns {extra}")
    schema = arrow_schema(table)
    arrays = []
    for field in schema:
        value = columns[field.name]
        array = value if isinstance(value, pa.Array | pa.ChunkedArray) else pa.array(value)
        arrays.append(array.cast(field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def insert_table(store: MarketStore, table_name: str, arrow_table: pa.Table) -> int:
    if arrow_table.num_rows:
        store.insert_arrow(table_name, arrow_table)
    return arrow_table.num_rows
