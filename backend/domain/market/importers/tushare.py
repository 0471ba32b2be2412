"""Tushare-layout CSV/Parquet files -> one canonical table, validated completely before any insert.

A refused file raises ImportRejected and the store is left exactly as it was: nothing is written
until every check has passed, and the rows then go in with a single insert.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from backend.domain.market.demo.universe import cnspell
from backend.domain.market.errors import ImportRejected
from backend.domain.market.importers.loading import arrow_schema, insert_table
from backend.domain.market.schema import TABLES_BY_NAME, Table
from backend.domain.market.store import MarketStore

EARLIEST_DATE = date(1990, 1, 1)  # the Shanghai exchange opened in December 1990
MAX_FUTURE_DAYS = 366  # trading calendars are published a year ahead
_SHOWN = 5  # offending examples quoted in a refusal


@dataclass(frozen=True)
class ImportSummary:
    table: str
    rows: int
    source: str
    ignored_columns: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_tabular_file(path: Path) -> pa.Table:
    """Read a .csv, .csv.gz or .parquet file; every CSV column is read as text and typed later."""
    if not path.is_file():
        raise ImportRejected(f"{path}: no such file")
    name = path.name.lower()
    try:
        if name.endswith(".parquet"):
            return pq.read_table(path)
        if name.endswith((".csv", ".csv.gz")):
            header = pacsv.read_csv(path, read_options=pacsv.ReadOptions(block_size=1 << 16)).column_names
            options = pacsv.ConvertOptions(
                column_types={column: pa.string() for column in header},
                strings_can_be_null=True,
                null_values=[""],
            )
            return pacsv.read_csv(path, convert_options=options)
    except (pa.ArrowInvalid, OSError) as error:
        raise ImportRejected(f"{path}: the file cannot be read: {error}") from error
    raise ImportRejected(f"{path}: unsupported file type; use .csv, .csv.gz or .parquet")


def _examples(values: Iterable[object]) -> str:
    shown = [repr(value) for value, _ in zip(values, range(_SHOWN), strict=False)]
    return ", ".join(shown)


def _parse_dates(column: str, text: pa.Array) -> pa.Array:
    """Tushare writes dates as YYYYMMDD; ISO YYYY-MM-DD is accepted too."""
    cleaned = pc.replace_substring(pc.utf8_trim_whitespace(text), "-", "")
    valid_shape = pc.match_substring_regex(cleaned, r"^\d{8}$")
    bad = pc.and_(pc.is_valid(cleaned), pc.invert(valid_shape))
    if pc.any(bad).as_py():
        raise ImportRejected(
            f"column {column}: expected dates as YYYYMMDD or YYYY-MM-DD, found "
            f"{_examples(pc.filter(text, bad).to_pylist())}"
        )
    try:
        parsed = pc.strptime(cleaned, format="%Y%m%d", unit="s", error_is_null=False)
    except pa.ArrowInvalid as error:
        raise ImportRejected(f"column {column}: invalid calendar date ({error})") from error
    # strptime rolls impossible days over (20250231 -> March 3): the round trip must give the text back.
    rolled = pc.not_equal(pc.strftime(parsed, format="%Y%m%d"), cleaned)
    if pc.any(rolled).as_py():
        raise ImportRejected(
            f"column {column}: invalid calendar date {_examples(pc.filter(text, rolled).to_pylist())}"
        )
    return parsed.cast(pa.date32())


def _parse_numbers(column: str, text: pa.Array, target: pa.DataType) -> pa.Array:
    trimmed = pc.utf8_trim_whitespace(text)
    try:
        return trimmed.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        numeric = pc.match_substring_regex(trimmed, r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
        bad = pc.and_(pc.is_valid(trimmed), pc.invert(numeric))
        raise ImportRejected(
            f"column {column}: expected {'numbers' if pa.types.is_floating(target) else 'integers'}, "
            f"found {_examples(pc.filter(text, bad).to_pylist())}"
        ) from None


def _as_text(array: pa.ChunkedArray) -> pa.Array:
    combined = array.combine_chunks()
    if pa.types.is_date(combined.type) or pa.types.is_timestamp(combined.type):
        return pc.strftime(combined, format="%Y%m%d")
    return combined.cast(pa.string())


def _typed_column(column: str, raw: pa.ChunkedArray, target: pa.DataType) -> pa.Array:
    text = _as_text(raw)
    if pa.types.is_date32(target):
        return _parse_dates(column, text)
    if pa.types.is_timestamp(target):
        return pc.strptime(text, format="%Y-%m-%d %H:%M:%S", unit="s").cast(target)
    if pa.types.is_string(target):
        return pc.utf8_trim_whitespace(text)
    return _parse_numbers(column, text, target)


def _check_date_range(column: str, values: pa.Array, today: date) -> None:
    latest = today + timedelta(days=MAX_FUTURE_DAYS)
    low, high = pa.scalar(EARLIEST_DATE, pa.date32()), pa.scalar(latest, pa.date32())
    out = pc.or_(pc.less(values, low), pc.greater(values, high))
    if pc.any(out).as_py():
        raise ImportRejected(
            f"column {column}: dates outside {EARLIEST_DATE} .. {latest}: "
            f"{_examples(pc.filter(values, out).to_pylist())}"
        )


def conform(table: Table, raw: pa.Table, *, today: date | None = None) -> tuple[pa.Table, list[str]]:
    """The file's rows typed as the canonical table, or ImportRejected saying what is wrong.

    Required: every non-Nullable column. Nullable columns may be absent (NULL). Extra columns are
    ignored and reported.
    """
    today = today or datetime.now(UTC).date()
    present = set(raw.column_names)
    if table.name == "stock_basic" and "cnspell" not in present and "name" in present:
        names = raw.column("name").to_pylist()
        raw = raw.append_column("cnspell", pa.array([cnspell(n) if n else "" for n in names]))
        present.add("cnspell")
    missing = [c.name for c in table.columns if c.name not in present and not c.type.startswith("Nullable(")]
    if missing:
        raise ImportRejected(f"{table.name}: required columns missing: {', '.join(missing)}")
    if raw.num_rows == 0:
        raise ImportRejected(f"{table.name}: the file has no rows")
    ignored = [name for name in raw.column_names if name not in table.column_names]
    arrays = []
    for target in arrow_schema(table):
        if target.name not in present:
            arrays.append(pa.nulls(raw.num_rows, target.type))
            continue
        typed = _typed_column(target.name, raw.column(target.name), target.type)
        if not target.nullable and typed.null_count:
            rows = np.flatnonzero(np.asarray(pc.is_null(typed)))[:_SHOWN] + 1
            raise ImportRejected(
                f"column {target.name}: {typed.null_count} empty values in a required column "
                f"(data rows {', '.join(map(str, rows))})"
            )
        if pa.types.is_date32(target.type):
            _check_date_range(target.name, typed, today)
        arrays.append(typed)
    return pa.Table.from_arrays(arrays, schema=arrow_schema(table)), ignored


def _key_tuples(table: pa.Table, key: Sequence[str]) -> list[tuple[object, ...]]:
    columns = [table.column(name).to_pylist() for name in key]
    return list(zip(*columns, strict=True))


def check_duplicate_keys(table: Table, rows: pa.Table) -> None:
    if not table.key:
        return
    grouped = rows.group_by(list(table.key)).aggregate([([], "count_all")])
    repeated = grouped.filter(pc.greater(grouped.column("count_all"), 1))
    if repeated.num_rows:
        raise ImportRejected(
            f"{table.name}: {repeated.num_rows} duplicate keys ({', '.join(table.key)}) in the file, e.g. "
            f"{_examples(_key_tuples(repeated, table.key))}"
        )


def check_not_in_store(store: MarketStore, table: Table, rows: pa.Table) -> None:
    """Refuse rows whose key is already stored (the store keeps one row per key)."""
    if not table.key:
        return
    first = table.key[0]
    values = pc.unique(rows.column(first)).to_pylist()
    where = f"{first} IN {{values:Array({_param_type(table, first)})}}"
    parameters: dict[str, object] = {"values": values}
    dates = [c for c in table.key[1:] if table.column(c).type == "Date"]
    if dates:
        column = dates[0]
        where += f" AND {column} BETWEEN {{low:Date}} AND {{high:Date}}"
        span = pc.min_max(rows.column(column))
        parameters |= {"low": span["min"].as_py(), "high": span["max"].as_py()}
    source = f"{store.database}.{table.name}"
    if not store.internal_query(f"SELECT count() FROM {source} WHERE {where}", parameters).rows[0][0]:
        return
    stored = store.internal_query(f"SELECT {', '.join(table.key)} FROM {source} WHERE {where}", parameters)
    clashes = set(_key_tuples(rows, table.key)) & set(stored.rows)
    if clashes:
        raise ImportRejected(
            f"{table.name}: {len(clashes)} rows are already in the store (same {', '.join(table.key)}), "
            f"e.g. {_examples(sorted(clashes, key=str))}; nothing was imported"
        )


def _param_type(table: Table, column: str) -> str:
    declared = table.column(column).type
    if declared.startswith("LowCardinality("):
        return declared.removeprefix("LowCardinality(").removesuffix(")")
    return declared


def prepare_rows(
    store: MarketStore, table_name: str, raw: pa.Table, *, today: date | None = None
) -> tuple[pa.Table, list[str]]:
    """Every check of an import, without writing: the canonical rows and the ignored columns."""
    if table_name not in TABLES_BY_NAME:
        known = ", ".join(sorted(TABLES_BY_NAME))
        raise ImportRejected(f"unknown table {table_name!r}; known tables: {known}")
    table = TABLES_BY_NAME[table_name]
    rows, ignored = conform(table, raw, today=today)
    check_duplicate_keys(table, rows)
    check_not_in_store(store, table, rows)
    return rows, ignored


def import_tushare_file(
    store: MarketStore, table_name: str, path: Path, *, today: date | None = None
) -> ImportSummary:
    """Validate `path` completely, then insert it into `table_name` in one go."""
    rows, ignored = prepare_rows(store, table_name, read_tabular_file(path), today=today)
    inserted = insert_table(store, table_name, rows)
    return ImportSummary(table=table_name, rows=inserted, source=str(path), ignored_columns=ignored)
