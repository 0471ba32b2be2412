"""A hand-written mutant set: questions with their gold SQL and, per question, wrong SQL written by
hand, each labelled with its error type (one YAML document):

    version: 1
    items:
      - id: …, category: …, lang: …, question: …, gold_sql: …, order_matters: …, notes: …
        mutants:
          - {type: dropped_filter, sql: "SELECT …", note: "the ST filter left out"}

An item is a dev-set item (the same fields, validated the same way) plus its `mutants`; each mutant's
`type` is one of the benchmark's ERROR_TYPES. Loading checks the whole shape first, so that a
malformed file fails with the item and the field named rather than skewing the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from backend.domain.language_bench.dataset import DevItem, DevSetError, parse_dev_set
from backend.domain.pipeline.bench.mutants import ERROR_TYPES

VERSION = 1
_DOCUMENT_FIELDS = ("version", "items")
_MUTANT_FIELDS = ("type", "sql", "note")


class MutantSetError(ValueError):
    """The mutant set file is malformed; the message names the item (and mutant) and the field."""


@dataclass(frozen=True)
class HandMutant:
    error_type: str
    sql: str
    note: str


@dataclass(frozen=True)
class MutantSetItem:
    item: DevItem
    mutants: tuple[HandMutant, ...]


def _mutant(raw: Any, label: str) -> HandMutant:
    if not isinstance(raw, dict):
        raise MutantSetError(f"{label} is not a mapping")
    missing = [name for name in _MUTANT_FIELDS if name not in raw]
    if missing:
        raise MutantSetError(f"{label} lacks {', '.join(missing)}")
    unknown = sorted(set(raw) - set(_MUTANT_FIELDS))
    if unknown:
        raise MutantSetError(f"{label} has unknown fields {', '.join(map(str, unknown))}")
    if raw["type"] not in ERROR_TYPES:
        raise MutantSetError(f"{label}: type must be one of {', '.join(ERROR_TYPES)}, got {raw['type']!r}")
    if not isinstance(raw["sql"], str) or not raw["sql"].strip():
        raise MutantSetError(f"{label}: sql must be a non-empty string")
    if not isinstance(raw["note"], str):
        raise MutantSetError(f"{label}: note must be a string")
    return HandMutant(raw["type"], raw["sql"].strip(), raw["note"].strip())


def parse_mutant_set(document: Any) -> list[MutantSetItem]:
    if not isinstance(document, dict):
        raise MutantSetError("the mutant set must be a mapping with `version` and `items`")
    unknown = sorted(set(document) - set(_DOCUMENT_FIELDS))
    if unknown:
        raise MutantSetError(f"the mutant set has unknown top-level fields {', '.join(map(str, unknown))}")
    if document.get("version") != VERSION:
        raise MutantSetError(f"version must be {VERSION}, got {document.get('version')!r}")
    raw_items = document.get("items")
    if not isinstance(raw_items, list) or not raw_items:
        raise MutantSetError("items must be a non-empty list")
    mutants: list[tuple[HandMutant, ...]] = []
    for position, raw in enumerate(raw_items, start=1):
        label = f"item {raw.get('id', f'#{position}')}" if isinstance(raw, dict) else f"item #{position}"
        if not isinstance(raw, dict):
            raise MutantSetError(f"{label} is not a mapping")
        listed = raw.get("mutants")
        if not isinstance(listed, list) or not listed:
            raise MutantSetError(f"{label}: mutants must be a non-empty list")
        mutants.append(tuple(_mutant(m, f"{label} mutant #{n}") for n, m in enumerate(listed, start=1)))
    try:
        items = parse_dev_set(
            {"items": [{k: v for k, v in raw.items() if k != "mutants"} for raw in raw_items]}
        )
    except DevSetError as error:
        raise MutantSetError(str(error)) from error
    for item in items:
        if not item.answerable:
            raise MutantSetError(f"item {item.id}: a mutant set item needs a gold SQL (expect: answer)")
    return [MutantSetItem(item, listed) for item, listed in zip(items, mutants, strict=True)]


def load_mutant_set(path: Path | str) -> list[MutantSetItem]:
    with open(path, encoding="utf-8") as handle:
        try:
            document = yaml.safe_load(handle)
        except yaml.YAMLError as error:
            raise MutantSetError(f"{path} is not valid YAML: {error}") from error
    return parse_mutant_set(document)
