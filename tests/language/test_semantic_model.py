"""The semantic model describes every column of the canonical schema, with units and no ambiguous words."""

from __future__ import annotations

from backend.domain.language.context import normalize_text
from backend.domain.language.semantic import default_model
from backend.domain.market.schema import TABLES


def test_every_schema_column_is_described() -> None:
    model = default_model()
    described = {(metric.table, metric.column) for metric in model.metrics.values()}
    described |= {("stock_basic", dimension.column) for dimension in model.dimensions.values()}
    described |= {(table, column) for table, columns in model.raw["columns"].items() for column in columns}
    missing = [f"{table.name}.{column.name}" for table in TABLES for column in table.columns
               if (table.name, column.name) not in described]  # fmt: skip
    assert missing == []
    assert set(model.tables) >= {table.name for table in TABLES}


def test_model_is_versioned_and_units_are_explicit() -> None:
    model = default_model()
    assert model.version >= 1
    assert (
        model.scale_units["亿"] == 1e8
        and model.scale_units["万"] == 1e4
        and model.scale_units["billion"] == 1e9
    )
    assert model.metrics["total_mv"].stored_unit.factor == 1e4  # 万元
    assert model.metrics["amount"].stored_unit.factor == 1e3  # 千元
    assert model.metrics["vol"].stored_unit.factor == 100  # 手
    assert model.metrics["n_income_attr_p"].stored_unit.factor == 1  # 元


def test_no_word_names_two_metrics() -> None:
    owners: dict[str, set[str]] = {}
    for metric in default_model().metrics.values():
        for word in metric.words:
            owners.setdefault(normalize_text(word), set()).add(metric.column)
    ambiguous = {word: columns for word, columns in owners.items() if len(columns) > 1}
    assert ambiguous == {}
