"""The language dev set: questions with hand-written gold SQL (benchmarks/language/dev_set.yaml).

Loading validates the file's shape so that a malformed item fails loudly instead of silently
lowering or raising the measured accuracy. A blind round joins the development data once it has
been measured: `DEV_SET_FILES` is the tuned dev set plus every measured round, read in place (never
copied), and `load_dev_sets` reads them as one list with ids unique across files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

CATEGORIES: tuple[str, ...] = ("fundamental", "technical", "statistics")
LANGS: tuple[str, ...] = ("zh", "en")
BENCHMARK_DIR = Path(__file__).resolve().parents[3] / "benchmarks" / "language"
DEFAULT_DEV_SET = BENCHMARK_DIR / "dev_set.yaml"
# Blind rounds already measured once (their figures are in benchmarks/language/README.md); a round
# is added here only after its one measurement, never before.
MEASURED_BLIND_ROUNDS: tuple[Path, ...] = (
    BENCHMARK_DIR / "blind_round1.yaml",
    BENCHMARK_DIR / "blind_round2.yaml",
    BENCHMARK_DIR / "blind_round3.yaml",
    BENCHMARK_DIR / "blind_round4.yaml",
    BENCHMARK_DIR / "blind_round5.yaml",
    BENCHMARK_DIR / "blind_round6.yaml",
    BENCHMARK_DIR / "blind_round7.yaml",
    BENCHMARK_DIR / "blind_round8.yaml",
    BENCHMARK_DIR / "blind_round9.yaml",
    BENCHMARK_DIR / "blind_round10.yaml",
    BENCHMARK_DIR / "blind_round11.yaml",
    BENCHMARK_DIR / "blind_round12.yaml",
    BENCHMARK_DIR / "blind_round13.yaml",
    BENCHMARK_DIR / "blind_round14.yaml",
    BENCHMARK_DIR / "blind_round15.yaml",
    BENCHMARK_DIR / "blind_round16.yaml",
)
DEV_SET_FILES: tuple[Path, ...] = (DEFAULT_DEV_SET, *MEASURED_BLIND_ROUNDS)

_REQUIRED_FIELDS = ("id", "category", "lang", "question", "gold_sql", "order_matters", "notes")
# `expect: refuse` marks a question the data cannot answer (no gold SQL): the right outcome is a refusal.
EXPECTATIONS: tuple[str, ...] = ("answer", "refuse")
_OPTIONAL_FIELDS = ("expect",)


class DevSetError(ValueError):
    """The dev set file is malformed; the message names the item and the field."""


@dataclass(frozen=True)
class DevItem:
    id: str
    category: str
    lang: str
    question: str
    gold_sql: str
    order_matters: bool
    notes: str
    expect: str = "answer"

    @property
    def answerable(self) -> bool:
        return self.expect == "answer"


def _item_from_mapping(raw: Any, position: int) -> DevItem:
    if not isinstance(raw, dict):
        raise DevSetError(f"item #{position} is not a mapping")
    label = raw.get("id", f"#{position}")
    missing = [name for name in _REQUIRED_FIELDS if name not in raw]
    if missing:
        raise DevSetError(f"item {label} lacks {', '.join(missing)}")
    unknown = sorted(set(raw) - set(_REQUIRED_FIELDS) - set(_OPTIONAL_FIELDS))
    if unknown:
        raise DevSetError(f"item {label} has unknown fields {', '.join(unknown)}")
    if raw["category"] not in CATEGORIES:
        raise DevSetError(f"item {label}: category must be one of {CATEGORIES}, got {raw['category']!r}")
    if raw["lang"] not in LANGS:
        raise DevSetError(f"item {label}: lang must be one of {LANGS}, got {raw['lang']!r}")
    if not isinstance(raw["order_matters"], bool):
        raise DevSetError(f"item {label}: order_matters must be true or false")
    expect = raw.get("expect", "answer")
    if expect not in EXPECTATIONS:
        raise DevSetError(f"item {label}: expect must be one of {EXPECTATIONS}, got {expect!r}")
    for name in ("id", "question", "notes", *(("gold_sql",) if expect == "answer" else ())):
        if not isinstance(raw[name], str) or not raw[name].strip():
            raise DevSetError(f"item {label}: {name} must be a non-empty string")
    if expect == "refuse" and str(raw["gold_sql"] or "").strip():
        raise DevSetError(f"item {label}: a question to refuse has no gold SQL")
    return DevItem(
        id=raw["id"],
        category=raw["category"],
        lang=raw["lang"],
        question=raw["question"].strip(),
        gold_sql=str(raw["gold_sql"] or "").strip(),
        order_matters=raw["order_matters"],
        notes=raw["notes"].strip(),
        expect=expect,
    )


def parse_dev_set(document: Any) -> list[DevItem]:
    """Items of a parsed dev set document (`{"version": 1, "items": [...]}`), validated."""
    if not isinstance(document, dict) or not isinstance(document.get("items"), list):
        raise DevSetError("the dev set must be a mapping with an `items` list")
    items = [_item_from_mapping(raw, position) for position, raw in enumerate(document["items"], start=1)]
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise DevSetError(f"duplicate item id {item.id}")
        seen.add(item.id)
    return items


def load_dev_set(path: Path | str = DEFAULT_DEV_SET) -> list[DevItem]:
    with open(path, encoding="utf-8") as handle:
        return parse_dev_set(yaml.safe_load(handle))


def load_dev_sets(paths: Iterable[Path | str] = DEV_SET_FILES) -> list[DevItem]:
    """The items of several dev set files in order, as one set: an id repeated across files is an error."""
    items: list[DevItem] = []
    origin: dict[str, Path] = {}
    for path in map(Path, paths):
        for item in load_dev_set(path):
            if item.id in origin:
                raise DevSetError(f"duplicate item id {item.id} in {origin[item.id].name} and {path.name}")
            origin[item.id] = path
            items.append(item)
    return items


def select(
    items: Iterable[DevItem], categories: Iterable[str] = (), ids: Iterable[str] = ()
) -> list[DevItem]:
    """Items in any of `categories` (all when empty) and with an id in `ids` (all when empty)."""
    wanted_categories = set(categories)
    unknown = wanted_categories - set(CATEGORIES)
    if unknown:
        raise DevSetError(f"unknown categories {sorted(unknown)}; choose from {CATEGORIES}")
    wanted_ids = set(ids)
    return [
        item
        for item in items
        if (not wanted_categories or item.category in wanted_categories)
        and (not wanted_ids or item.id in wanted_ids)
    ]
