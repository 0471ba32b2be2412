"""The concept catalogue: what can be asked, as data (one YAML file per family in this folder).

Each concept has the words people use for it (Chinese and English), its definition as a QST building
block (an attribute, or a condition node as qst.py reads it), its unit, example questions and a
status: `supported` (the examples are answered, tests/language/test_catalogue.py runs them on the
demo) or `planned` (the building block needs composition the engine lacks: the examples must be
refused, never answered half-read). How the parser reads a concept is `reads`:

- `metric`: a metric of semantic_model.yaml; its words and units are read from there;
- `phrase`: a condition said in a word (破净, 阳线); the words listed here are the lexicon's, and the
  parser's `concepts` pass turns them into the definition;
- `grammar`: a phrase with numbers of its own (突破20日均线, 连续3天上涨) read by a grammar pass;
  the words listed here are examples of its wording;
- `vocabulary`: words that play one part in the grammar (`as: {kind, value}`: rallied and 大涨 are
  read as the direction word `up`, outperformed as `outperform` `>`); the lexicon reads every word
  listed here as that token, so a new wording of a known part is a data change, not a new rule.

`load_catalogue()` returns the typed catalogue a REST endpoint can serve (`Catalogue.as_dicts()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from backend.domain.language.qst import AGGREGATES, Node, QstError, condition_from_node
from backend.domain.language.semantic import SemanticModel, default_model

CATALOGUE_DIR = Path(__file__).parent
FAMILIES = (
    "prices", "returns", "moves", "candles", "technical", "valuation", "reports", "index", "breadth",
)  # fmt: skip
READS = ("metric", "phrase", "grammar", "vocabulary")
STATUSES = ("supported", "planned")


class CatalogueError(ValueError):
    """A catalogue entry that does not follow the format."""


@dataclass(frozen=True)
class Concept:
    key: str
    family: str
    title: str
    reads: str
    words_zh: tuple[str, ...]
    words_en: tuple[str, ...]
    definition: Node  # a QST building block: {"label": "attribute:pb"} or a condition node
    units: str
    examples: tuple[str, ...]
    status: str
    note: str = ""
    token: tuple[str, str] | None = None  # vocabulary: the (kind, value) its words are read as

    @property
    def words(self) -> tuple[str, ...]:
        return self.words_zh + self.words_en

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key, "family": self.family, "title": self.title, "reads": self.reads,
            "words": {"zh": list(self.words_zh), "en": list(self.words_en)}, "definition": self.definition,
            "units": self.units, "examples": list(self.examples), "status": self.status, "note": self.note,
        }  # fmt: skip


@dataclass(frozen=True)
class Catalogue:
    concepts: tuple[Concept, ...]

    def by_key(self, key: str) -> Concept:
        for concept in self.concepts:
            if concept.key == key:
                return concept
        raise KeyError(key)

    def vocabulary(self) -> tuple[Concept, ...]:
        """Concepts whose words the lexicon reads as one grammar token each (kind, value)."""
        return tuple(c for c in self.concepts if c.reads == "vocabulary" and c.status == "supported")

    def phrases(self) -> tuple[Concept, ...]:
        """Concepts said in one word that the parser reads from this catalogue."""
        return tuple(c for c in self.concepts if c.reads == "phrase" and c.status == "supported")

    def as_dicts(self) -> list[dict[str, Any]]:
        return [concept.as_dict() for concept in self.concepts]


def _words(entry: dict[str, Any], language: str) -> tuple[str, ...]:
    return tuple(str(word) for word in (entry.get("words") or {}).get(language, []))


def _concept(family: str, entry: dict[str, Any], model: SemanticModel) -> Concept:
    key = str(entry["key"])
    metric_key = entry.get("metric")
    if metric_key is not None:  # words and units come from the semantic model: one place per word
        metric = model.metrics.get(str(metric_key))
        if metric is None:
            raise CatalogueError(f"{key}: unknown metric {metric_key!r}")
        return Concept(
            key, family, str(entry.get("title", metric.meaning)), "metric", metric.zh, metric.en,
            {"label": f"attribute:{metric.key}"}, metric.stored_unit.name, tuple(entry["examples"]),
            str(entry.get("status", "supported")), str(entry.get("note", "")),
        )  # fmt: skip
    token = entry.get("as")
    concept = Concept(
        key, family, str(entry["title"]), str(entry["reads"]), _words(entry, "zh"), _words(entry, "en"),
        dict(entry["definition"]), str(entry.get("units", "")), tuple(entry["examples"]),
        str(entry.get("status", "supported")), str(entry.get("note", "")),
        (str(token["kind"]), str(token["value"])) if token else None,
    )  # fmt: skip
    if concept.reads not in READS or concept.status not in STATUSES:
        raise CatalogueError(f"{key}: reads must be one of {READS}, status one of {STATUSES}")
    if (concept.reads == "vocabulary") != (concept.token is not None):
        raise CatalogueError(
            f"{key}: a vocabulary concept, and only one, says which token it is read as (as:)"
        )
    if not concept.words_zh or not concept.words_en or not concept.examples:
        raise CatalogueError(f"{key}: needs Chinese and English words and example questions")
    if concept.status == "planned" and not concept.note:
        raise CatalogueError(f"{key}: a planned concept says what it needs (note)")
    if concept.status == "supported":
        _check_definition(concept)
    return concept


def _check_definition(concept: Concept) -> None:
    """A supported concept's definition is a building block the QST reader accepts."""
    label = str(concept.definition.get("label", ""))
    head, _sep, rest = label.partition(":")
    try:
        if head == "aggregate":
            if rest not in AGGREGATES:
                raise QstError(f"unknown aggregate {rest!r}")
        else:
            condition_from_node(concept.definition)
    except QstError as error:
        raise CatalogueError(
            f"{concept.key}: the definition is not a QST building block ({error})"
        ) from error
    if concept.reads == "phrase" and head == "aggregate":
        raise CatalogueError(f"{concept.key}: a phrase concept is a condition")


def load_catalogue(model: SemanticModel | None = None, folder: Path = CATALOGUE_DIR) -> Catalogue:
    model = model or default_model()
    concepts: list[Concept] = []
    for family in FAMILIES:
        with (folder / f"{family}.yaml").open(encoding="utf-8") as handle:
            entries = yaml.safe_load(handle)["concepts"]
        concepts.extend(_concept(family, entry, model) for entry in entries)
    keys = [concept.key for concept in concepts]
    duplicated = sorted({key for key in keys if keys.count(key) > 1})
    if duplicated:
        raise CatalogueError(f"concept keys used twice: {', '.join(duplicated)}")
    return Catalogue(tuple(concepts))


@lru_cache(maxsize=1)
def default_catalogue() -> Catalogue:
    return load_catalogue()


__all__ = ["Catalogue", "CatalogueError", "Concept", "default_catalogue", "load_catalogue"]
