"""Loading the checklist fixture files and comparing constraints with their expected fields."""

from __future__ import annotations

import dataclasses
import math
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Any

import yaml

from backend.domain.pipeline.validate.checklist import (
    Constraint,
    Kind,
    Verdict,
    default_vocabulary,
    extract_constraints,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "checklist"
DEV_SET = Path(__file__).resolve().parents[2] / "benchmarks" / "language" / "dev_set.yaml"


def kind_files() -> list[Path]:
    return sorted(path for path in FIXTURES.glob("*.yaml") if path.stem != "mutants")


def load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        data: dict[str, Any] = yaml.safe_load(handle)
    return data


def constraints_of(question: str, kind: Kind) -> list[Constraint]:
    return [c for c in extract_constraints(question, default_vocabulary()) if c.kind is kind]


def plain(value: Any) -> Any:
    """A detail field as a fixture writes it: enums by value, sets sorted, days in ISO form."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, frozenset | set):
        return sorted(plain(item) for item in value)
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    if isinstance(value, date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    return value


def field(constraint: Constraint, dotted: str) -> Any:
    if dotted == "span":
        return constraint.span.text
    value: Any = constraint.detail
    for name in dotted.split("."):
        value = getattr(value, name)
    return plain(value)


def same(actual: Any, expected: Any) -> bool:
    if (
        isinstance(expected, float | int)
        and isinstance(actual, float | int)
        and not isinstance(expected, bool)
    ):
        return math.isclose(actual, expected, rel_tol=1e-9)
    return bool(actual == expected)


def verdict_label(verdict: Verdict) -> str:
    """pass / undecidable / fail/<attribution>, as the fixture files write verdicts."""
    if verdict.attribution is None:
        return verdict.outcome.value
    return f"{verdict.outcome.value}/{verdict.attribution.value}"
