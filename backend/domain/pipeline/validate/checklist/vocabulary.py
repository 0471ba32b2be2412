"""Words of the semantic model (metrics, dimensions, entities, units), read for the checklist.

Only `semantic_model.yaml` through `backend.domain.language.semantic` is used: the checklist reads the
question a second time, independently of the built-in parser, so it must not share the parser's
lexicon or grammar words (tests/pipeline/test_checklist_architecture.py enforces it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache

import sqlglot

from backend.domain.language.semantic import SemanticModel, default_model
from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.validate.checklist.sqltree import columns_of


class Category(StrEnum):
    METRIC = "metric"
    DIMENSION = "dimension"
    INDUSTRY = "industry"
    INDUSTRY_GROUP = "industry_group"
    EXCHANGE = "exchange"
    BOARD = "board"
    INDEX = "index"
    STOCK = "stock"  # a six-digit code (data-free rule: the code itself must reach the SQL)
    ST = "st"  # ST / *ST stocks: their names carry the mark


@dataclass(frozen=True)
class MetricInfo:
    key: str
    table: str
    columns: frozenset[str]  # the stored column, or the columns of a derived metric's formula
    derived: bool  # computed by a formula, not stored
    negated: bool  # 跌幅 = -pct_chg: "more" of it is a lower stored value
    percent: bool
    unit_kind: str  # money / shares / "" (ratio or price)
    stored_factor: float  # base units per stored unit (total_mv: 1e4 yuan)
    stored_unit: str
    input_factor: float  # base units of a bare number in a question (total_mv: 1e8, i.e. 亿)


@dataclass(frozen=True)
class Entry:
    surface: str  # normalized (see `normalize`)
    category: Category
    key: str


@dataclass(frozen=True)
class Hit:
    start: int
    end: int
    category: Category
    key: str


@dataclass(frozen=True)
class Vocabulary:
    entries: tuple[Entry, ...]
    metrics: Mapping[str, MetricInfo]
    dimension_columns: Mapping[str, str]
    industry_groups: Mapping[str, tuple[str, ...]]
    index_names: Mapping[str, tuple[str, ...]]  # index code -> names an SQL may use for it
    scale_units: Mapping[str, float]
    share_units: Mapping[str, float]
    money_words: tuple[str, ...]
    percent_words: tuple[str, ...]
    times_words: tuple[str, ...]

    def boards_named_as(self, exchange: str) -> tuple[str, ...]:
        """Boards stored under a word of the exchange (北交所: the Beijing exchange's one board), whose
        stocks are the exchange's."""
        words = {e.surface for e in self.entries if e.category is Category.EXCHANGE and e.key == exchange}
        boards = {e.key for e in self.entries if e.category is Category.BOARD}
        return tuple(sorted(boards & words))

    @cached_property
    def _by_first_character(self) -> dict[str, list[Entry]]:
        by_first: dict[str, list[Entry]] = {}
        for entry in sorted(self.entries, key=lambda item: -len(item.surface)):
            by_first.setdefault(entry.surface[0], []).append(entry)
        return by_first

    def scan(self, text: str, masked: tuple[tuple[int, int], ...] = ()) -> list[Hit]:
        """Leftmost-longest matches of vocabulary words in normalized text, outside the masked spans."""
        by_first = self._by_first_character
        hits: list[Hit] = []
        position = 0
        while position < len(text):
            if any(start <= position < end for start, end in masked):
                position += 1
                continue
            found = next(
                (
                    (entry, end)
                    for entry in by_first.get(text[position], ())
                    if text.startswith(entry.surface, position)
                    and (end := _word_end(text, position, position + len(entry.surface))) is not None
                    and not any(start < end and position < stop for start, stop in masked)
                ),
                None,
            )
            if found is None:
                position += 1
                continue
            match, end = found
            hits.append(Hit(position, end, match.category, match.key))
            position = end
        return hits


def normalize(text: str) -> str:
    """Half-width, lower-case text of exactly the same length, so that offsets point into the original.

    A hyphen between two letters becomes a space ("main-board", "new-energy", "highest-PE").
    """
    characters: list[str] = []
    for character in text:
        folded = unicodedata.normalize("NFKC", character)
        folded = folded if len(folded) == 1 else character
        lowered = folded.lower()
        characters.append(lowered if len(lowered) == 1 else folded)
    for index in range(1, len(characters) - 1):
        before, after = characters[index - 1], characters[index + 1]
        if (
            characters[index] == "-"
            and before.isascii()
            and before.isalpha()
            and after.isascii()
            and after.isalpha()
        ):
            characters[index] = " "
    return "".join(characters)


def _is_word_character(character: str) -> bool:
    return character.isascii() and character.isalnum()


def _bounded(text: str, start: int, end: int) -> bool:
    # An ASCII word must not continue into letters or digits ("pe" is not inside "open"); CJK needs no gap.
    if _is_word_character(text[start]) and start > 0 and _is_word_character(text[start - 1]):
        return False
    return not (_is_word_character(text[end - 1]) and end < len(text) and _is_word_character(text[end]))


def _word_end(text: str, start: int, end: int) -> int | None:
    """Where a word matched at start..end ends: there, or after an English plural ending (closing
    prices, percentage changes); None when it runs on into a longer word."""
    if _bounded(text, start, end):
        return end
    if text[end - 1].isascii() and text[end - 1].isalpha():
        for plural in ("s", "es"):
            if text.startswith(plural, end) and _bounded(text, start, end + len(plural)):
                return end + len(plural)
    return None


_TTM_SUFFIX = re.compile(r"(?<!_)ttm$")


def _with_bracketed_ttm(words: tuple[str, ...]) -> tuple[str, ...]:
    """A trailing-twelve-months word also written with TTM in brackets (股息率（TTM）, dividend yield
    (TTM)): the bracket names the same figure, never the figure without it."""
    bracketed = []
    for word in words:
        surface = normalize(word.strip())
        base = _TTM_SUFFIX.sub("", surface).rstrip()
        if base != surface and base:
            bracketed += [f"{base}(ttm)", f"{base} (ttm)"]
    return (*words, *bracketed)


def vocabulary_from_model(model: SemanticModel) -> Vocabulary:
    entries: list[Entry] = []
    seen: set[str] = set()

    def add(words: tuple[str, ...], category: Category, key: str) -> None:
        for word in words:
            surface = normalize(word.strip())
            # One-character words (沪, 深) occur inside too many other words to be read on their own.
            if len(surface) > 1 and surface not in seen:
                seen.add(surface)
                entries.append(Entry(surface, category, key))

    # Earlier categories win a surface written identically in two places.
    for code, names in model.index_synonyms.items():
        add(names, Category.INDEX, code)
    for board, words in model.boards.items():
        add(words, Category.BOARD, board)
    for exchange, words in model.exchanges.items():
        add(words, Category.EXCHANGE, exchange)
    for key, group in model.industry_groups.items():
        add(group.words, Category.INDUSTRY_GROUP, key)
    industries = set(model.industry_synonyms) | {
        name for g in model.industry_groups.values() for name in g.industries
    }
    for industry in sorted(industries):
        add((industry, *model.industry_synonyms.get(industry, ())), Category.INDUSTRY, industry)
    for key, metric in model.metrics.items():
        add(_with_bracketed_ttm(metric.words), Category.METRIC, key)
    for key, dimension in model.dimensions.items():
        add(dimension.words, Category.DIMENSION, key)

    metrics = {
        key: MetricInfo(
            key=key,
            table=metric.table,
            columns=frozenset(columns_of(sqlglot.parse_one(metric.expression, read=DIALECT)))
            if metric.expression
            else frozenset({metric.column}),
            derived=bool(metric.expression),
            negated=metric.negated,
            percent=metric.percent,
            unit_kind=metric.unit_kind,
            stored_factor=metric.stored_unit.factor,
            stored_unit=metric.stored_unit.name,
            input_factor=metric.input_unit.factor,
        )
        for key, metric in model.metrics.items()
    }
    return Vocabulary(
        entries=tuple(entries),
        metrics=metrics,
        dimension_columns={key: dimension.column for key, dimension in model.dimensions.items()},
        industry_groups={key: group.industries for key, group in model.industry_groups.items()},
        index_names={code: (code.split(".")[0], *names) for code, names in model.index_synonyms.items()},
        scale_units={normalize(word): factor for word, factor in model.scale_units.items()},
        share_units={normalize(word): factor for word, factor in model.share_units.items()},
        money_words=tuple(normalize(word) for word in model.money_words),
        percent_words=tuple(normalize(word) for word in model.percent_words),
        times_words=tuple(normalize(word) for word in model.times_words),
    )


@lru_cache(maxsize=1)
def default_vocabulary() -> Vocabulary:
    return vocabulary_from_model(default_model())
