"""The semantic model: metrics, dimensions, units and entity words, loaded from semantic_model.yaml.

The YAML file is the single place where words meet columns; nothing else in the language engine
hard-codes a column's meaning or unit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

MODEL_PATH = Path(__file__).with_name("semantic_model.yaml")


@dataclass(frozen=True)
class Unit:
    name: str
    factor: float  # base units (yuan, shares, or 1 for ratios) per one unit


@dataclass(frozen=True)
class Metric:
    key: str
    table: str
    column: str
    kind: str  # "daily" or "report"
    meaning: str
    stored_unit: Unit
    input_unit: Unit
    zh: tuple[str, ...]
    en: tuple[str, ...]
    percent: bool = False
    negated: bool = False  # 跌幅 = -pct_chg
    unit_kind: str = ""  # money / shares / "" (ratio or price)
    additive: bool = False  # a sum over stocks means something (money, shares, an index's weights)
    expression: str = (
        ""  # derived metrics: a formula over columns of `table` (admin-written, never user text)
    )

    @property
    def words(self) -> tuple[str, ...]:
        return self.zh + self.en


@dataclass(frozen=True)
class Dimension:
    key: str
    column: str
    meaning: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class IndustryGroup:
    key: str
    words: tuple[str, ...]
    industries: tuple[str, ...]


@dataclass(frozen=True)
class SemanticModel:
    version: int
    conventions: dict[str, str]
    scale_units: dict[str, float]
    money_words: tuple[str, ...]
    share_units: dict[str, float]
    percent_words: tuple[str, ...]
    times_words: tuple[str, ...]
    tables: dict[str, str]
    dimensions: dict[str, Dimension]
    metrics: dict[str, Metric]
    exchanges: dict[str, tuple[str, ...]]
    boards: dict[str, tuple[str, ...]]
    industry_synonyms: dict[str, tuple[str, ...]]
    industry_groups: dict[str, IndustryGroup]
    index_synonyms: dict[str, tuple[str, ...]]
    area_synonyms: dict[str, tuple[str, ...]]
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)


def _words(values: list[Any] | None) -> tuple[str, ...]:
    return tuple(str(value) for value in (values or []))


def _unit(data: dict[str, Any]) -> Unit:
    return Unit(name=str(data["name"]), factor=float(data["factor"]))


def parse_model(data: dict[str, Any]) -> SemanticModel:
    units = data["units"]
    metrics = {
        key: Metric(
            key=key,
            table=spec["table"],
            column=spec["column"],
            kind=spec["kind"],
            meaning=spec["meaning"],
            stored_unit=_unit(spec["stored_unit"]),
            input_unit=_unit(spec["input_unit"]),
            zh=_words(spec.get("zh")),
            en=_words(spec.get("en")),
            percent=bool(spec.get("percent", False)),
            negated=bool(spec.get("negated", False)),
            unit_kind=str(spec.get("unit_kind", "")),
            additive=bool(spec.get("additive", spec.get("unit_kind") in {"money", "shares"})),
            expression=str(spec.get("expression", "")),
        )
        for key, spec in data["metrics"].items()
    }
    dimensions = {
        key: Dimension(
            key=key,
            column=spec["column"],
            meaning=spec["meaning"],
            words=_words(spec.get("zh")) + _words(spec.get("en")),
        )
        for key, spec in data["dimensions"].items()
    }
    groups = {
        key: IndustryGroup(key=key, words=_words(spec["words"]), industries=_words(spec["industries"]))
        for key, spec in data["industry_groups"].items()
    }
    return SemanticModel(
        version=int(data["version"]),
        conventions={key: str(value) for key, value in data["conventions"].items()},
        scale_units={str(key): float(value) for key, value in units["scale"].items()},
        money_words=_words(units["money"]),
        share_units={str(key): float(value) for key, value in units["shares"].items()},
        percent_words=_words(units["percent"]),
        times_words=_words(units["times"]),
        tables={key: spec["meaning"] for key, spec in data["tables"].items()},
        dimensions=dimensions,
        metrics=metrics,
        exchanges={key: _words(words) for key, words in data["exchanges"].items()},
        boards={key: _words(words) for key, words in data["boards"].items()},
        industry_synonyms={key: _words(words) for key, words in data["industry_synonyms"].items()},
        industry_groups=groups,
        index_synonyms={key: _words(words) for key, words in data["index_synonyms"].items()},
        area_synonyms={key: _words(words) for key, words in data["area_synonyms"].items()},
        raw=data,
    )


def load_model(path: Path = MODEL_PATH) -> SemanticModel:
    with path.open(encoding="utf-8") as handle:
        return parse_model(yaml.safe_load(handle))


@lru_cache(maxsize=1)
def default_model() -> SemanticModel:
    return load_model()
