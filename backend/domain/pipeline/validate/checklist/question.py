"""The question as the checklist reads it: normalized text, language, vocabulary hits and numbers."""

from __future__ import annotations

import re
from dataclasses import dataclass

from backend.domain.pipeline.validate.checklist.model import Lang, Span
from backend.domain.pipeline.validate.checklist.vocabulary import (
    Category,
    Hit,
    MetricInfo,
    Vocabulary,
    normalize,
)

_CJK = re.compile(r"[\u4e00-\u9fff]")

_EN_COUNTS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20,
}  # fmt: skip
_CN_DIGITS = {
    "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
# A count in a question: digits, Chinese numerals or a small English number word.
COUNT = rf"(?:\d+|[零一二两三四五六七八九十百千]+|{'|'.join(_EN_COUNTS)})"
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}

# Six digits with an optional exchange suffix; not part of a longer number or a date.
_CODE = re.compile(r"(?<![0-9a-z.\-/])(\d{6})(?:\.(sh|sz|bj))?(?![0-9a-z\-/])")
# The ST mark is written in capitals ("ST股", "*ST"); lower-case "st" is an English word piece.
_ST = re.compile(r"(?<![A-Za-z0-9])\*?ST(?![A-Za-z])")
# What separates two clauses: a metric on one side does not qualify a number on the other.
# Words that ask for a statistic (a count, total or average) rather than for stocks.
_STATISTIC = re.compile(
    r"数量|多少|平均|合计|总和|总额|总计|均值|家数|个数|\b(total|average|mean|sum|number of|how many|count)\b"
)
# Verbs of a condition on each stock ("closed up on each of the last 7 days" is a quantifier).
_MOVES = re.compile(
    r"\b(rose|risen|rise|rises|fell|fallen|falls|closed|gained|lost|was|were|up|down|advanced|declined|dropped"
    r"|increased|decreased|grew|traded)\b"
)
_CLAUSE_BREAK = re.compile(r"[，,；;。？?！!、]|\bor\b|\band\b|或|且|而|并且")


def parse_count(token: str) -> int | None:
    """12 / 十二 / twelve -> 12; None when the token is not a count."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    if token in _EN_COUNTS:
        return _EN_COUNTS[token]
    if not token or any(character not in _CN_DIGITS and character not in _CN_UNITS for character in token):
        return None
    total, digit = 0, None
    for character in token:
        if character in _CN_DIGITS:
            digit = _CN_DIGITS[character]
        else:
            total += (1 if digit is None else digit) * _CN_UNITS[character]
            digit = None
    return total + (digit or 0)


@dataclass(frozen=True)
class Question:
    raw: str
    text: str  # normalize(raw): same length, so regex offsets on `text` are offsets into `raw`
    lang: Lang
    hits: tuple[Hit, ...]
    vocabulary: Vocabulary

    def span(self, start: int, end: int) -> Span:
        while start < end and self.raw[start].isspace():
            start += 1
        while end > start and self.raw[end - 1].isspace():
            end -= 1
        return Span(start, end, self.raw[start:end])

    def says(self, zh: str, en: str) -> str:
        """The readable text of a constraint in the question's language."""
        return zh if self.lang is Lang.ZH else en

    def asks_statistic(self) -> bool:
        return self.statistic_cue() is not None

    def statistic_cue(self) -> re.Match[str] | None:
        """The first word asking for a statistic (数量, average, how many)."""
        return _STATISTIC.search(self.text)

    def statistic_before(self, position: int) -> bool:
        """Whether a statistic is asked of what comes at `position` ("total amount … on each of the last
        5 days"), not of stocks meeting a condition there ("how many closed up on each of …")."""
        found = list(_STATISTIC.finditer(self.text, 0, position))
        return bool(found) and _MOVES.search(self.text, found[-1].end(), position) is None

    def covered(self, position: int) -> bool:
        """Whether a vocabulary word covers `position` (每 in 每股收益 is not a per-group cue)."""
        return any(hit.start <= position < hit.end for hit in self.hits)

    def first_cue(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The first match of `pattern` that no vocabulary word covers."""
        return next((m for m in pattern.finditer(self.text) if not self.covered(m.start())), None)

    def hits_of(self, *categories: Category) -> list[Hit]:
        return [hit for hit in self.hits if hit.category in categories]

    def hit_at(self, start: int, *categories: Category) -> Hit | None:
        """The hit of one of the categories that starts exactly at `start` (after blanks)."""
        while start < len(self.text) and self.text[start] == " ":
            start += 1
        return next((hit for hit in self.hits_of(*categories) if hit.start == start), None)

    def metric_before(self, position: int, reach: int) -> tuple[Hit, MetricInfo] | None:
        """The nearest metric word ending at most `reach` characters before `position`, same clause."""
        candidates = [hit for hit in self.hits_of(Category.METRIC) if hit.end <= position]
        if not candidates:
            return None
        hit = candidates[-1]
        gap = self.text[hit.end : position]
        if len(gap) > reach or _CLAUSE_BREAK.search(gap):
            return None
        return hit, self.vocabulary.metrics[hit.key]

    def metric_after(self, position: int, reach: int) -> tuple[Hit, MetricInfo] | None:
        """The nearest metric word starting at most `reach` characters after `position`, same clause."""
        hit = next((hit for hit in self.hits_of(Category.METRIC) if hit.start >= position), None)
        if hit is None:
            return None
        gap = self.text[position : hit.start]
        if len(gap) > reach or _CLAUSE_BREAK.search(gap):
            return None
        return hit, self.vocabulary.metrics[hit.key]


_LATIN_WORD = re.compile(r"[A-Za-z]+")
_MONEY_UNIT = re.compile(r"亿|万元|元|\b(?:yuan|cny|rmb)\b")


def _money_turnover(text: str, hit: Hit) -> Hit:
    """ "turnover" alone is the turnover rate, but a turnover given in money (average daily turnover,
    in 100 million yuan) is the traded amount."""
    if (
        hit.category is not Category.METRIC
        or hit.key != "turnover_rate"
        or text[hit.start : hit.end] != "turnover"
    ):
        return hit
    return Hit(hit.start, hit.end, hit.category, "amount") if _MONEY_UNIT.search(text, hit.end) else hit


_INDUSTRY_WORDS = (Category.INDUSTRY, Category.INDUSTRY_GROUP)


def _without_head_nouns(text: str, hits: list[Hit]) -> list[Hit]:
    """An industry word right after another, one space between (software developers, game makers):
    the first names the industry, the second is its head noun and names none of its own."""
    kept: list[Hit] = []
    for hit in hits:
        before = kept[-1] if kept else None
        if (
            before is not None
            and hit.category in _INDUSTRY_WORDS
            and before.category in _INDUSTRY_WORDS
            and text[before.end : hit.start] == " "
        ):
            continue
        kept.append(hit)
    return kept


def _language(raw: str) -> Lang:
    """Chinese unless the question is English sentences with a few Chinese words in them (a unit,
    "in 亿元"; a name, CATL (宁德时代)): PE(TTM)、ROE in a Chinese sentence keep it Chinese."""
    chinese = len(_CJK.findall(raw))
    words = len(_LATIN_WORD.findall(raw))
    return Lang.EN if not chinese or (words >= 4 and chinese <= 2 * words) else Lang.ZH


def read_question(raw: str, vocabulary: Vocabulary) -> Question:
    text = normalize(raw)
    rule_hits: list[Hit] = []
    for match in _CODE.finditer(text):
        code = match.group(1)
        suffixed = f"{code}.{match.group(2)}".upper() if match.group(2) else ""
        if suffixed in vocabulary.index_names:
            rule_hits.append(Hit(match.start(), match.end(), Category.INDEX, suffixed))
        else:
            rule_hits.append(Hit(match.start(), match.end(), Category.STOCK, code))
    rule_hits.extend(Hit(match.start(), match.end(), Category.ST, "ST") for match in _ST.finditer(raw))
    masked = tuple((hit.start, hit.end) for hit in rule_hits)
    hits = sorted([*rule_hits, *vocabulary.scan(text, masked)], key=lambda hit: hit.start)
    hits = _without_head_nouns(text, [_money_turnover(text, hit) for hit in hits])
    lang = _language(raw)
    return Question(raw=raw, text=text, lang=lang, hits=tuple(hits), vocabulary=vocabulary)
