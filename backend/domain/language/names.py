"""Names people use for stocks, resolved from the data: every surface word → the stocks it may name.

Sources, all keyed by what the data holds (stock_basic.name, cnspell):
- the stored short name (贵州茅台) and its pinyin initials (gzmt; pypinyin when the data has none);
- short forms derived from the data: the first or last two characters of a name of four or more
  (茅台, 宁德, 格力) when no other name contains them;
- stock_names.yaml: abbreviations that are not substrings (招行) and English names (Moutai, CATL).

A word that may name several stocks (平安: 中国平安 and 平安银行; two listings sharing one name) is
kept with all of them, so that the parser refuses it with the candidates listed instead of picking
one. Derived forms that are ordinary words of the question language (grammar, metrics, industries,
filler) are never names.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

import yaml

from backend.domain.language.context import normalize_text
from backend.domain.market.demo.universe import cnspell

NAMES_PATH = Path(__file__).with_name("stock_names.yaml")
SHORT_FORM = 2  # characters of a derived short form
SHORTENED_NAME = 4  # names at least this long have short forms
MAX_CANDIDATES = 5  # an ambiguous derived form naming more stocks than this is no name at all
MIN_INITIALS = 3  # two letters name too many things (pe, ma, …)


class NamedStock(Protocol):
    @property
    def ts_code(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def cnspell(self) -> str: ...


def _load_curated(path: Path = NAMES_PATH) -> dict[str, tuple[str, ...]]:
    """stock_basic.name → the extra words (abbreviations and English names) curated for it."""
    with path.open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    curated: dict[str, list[str]] = defaultdict(list)
    for section in ("aliases", "english"):
        for name, words in data[section].items():
            curated[str(name)].extend(str(word) for word in words)
    return {name: tuple(words) for name, words in curated.items()}


def stock_words(stocks: Iterable[NamedStock], taken: set[str]) -> dict[str, tuple[str, ...]]:
    """Surface word → the ts_codes it may name (one code: a name; several: ambiguous).

    `taken` holds the words the lexicon already gives another meaning: initials and derived short
    forms never shadow them.
    """
    curated = _load_curated()
    words: dict[str, set[str]] = defaultdict(set)
    by_name: dict[str, set[str]] = defaultdict(set)
    for stock in stocks:
        name = "".join(normalize_text(stock.name).split())
        if not name:
            continue
        by_name[name].add(stock.ts_code)
        words[name].add(stock.ts_code)
        for word in curated.get(stock.name, ()):
            words[normalize_text(word)].add(stock.ts_code)
        spell = normalize_text(stock.cnspell or cnspell(stock.name))
        if len(spell) >= MIN_INITIALS and spell.isalpha() and spell not in taken:
            words[spell].add(stock.ts_code)
    straddles = _straddling(taken)
    for form, codes in _short_forms(by_name).items():
        if form not in taken and form not in words and not straddles(form):
            words[form].update(codes)
    return {word: tuple(sorted(codes)) for word, codes in words.items()}


CHINESE_NUMERALS = set("一二两三四五六七八九十百千万")


def _straddling(taken: set[str]) -> Callable[[str], bool]:
    """A short form that a question would rather read as the end of one word and the start of
    another (日新 in 60日新高: 日 + 新高), or as a number and its unit (三只 in 市盈率最低的三只: not
    三只松鼠), is no name: it would take words from the rules."""
    singles = {word for word in taken if len(word) == 1}
    starts = {word[0] for word in taken if len(word) > 1}
    ends = {word[-1] for word in taken if len(word) > 1}

    def straddles(form: str) -> bool:
        counted = form[0] in CHINESE_NUMERALS and (form[1] in singles or form[1] in starts)
        return (
            counted or (form[0] in singles and form[1] in starts) or (form[0] in ends and form[1] in singles)
        )

    return straddles


def _short_forms(by_name: dict[str, set[str]]) -> dict[str, set[str]]:
    """First/last two characters of long Chinese names → the stocks whose names contain them, kept
    only when few do (茅台 → 贵州茅台; 平安 → 中国平安, 平安银行; 银行 → dropped)."""
    containing: dict[str, set[str]] = defaultdict(set)  # every two-character piece → names holding it
    for name in by_name:
        for start in range(len(name) - SHORT_FORM + 1):
            containing[name[start : start + SHORT_FORM]].add(name)
    forms: dict[str, set[str]] = {}
    for name in by_name:
        if len(name) < SHORTENED_NAME or not all("\u4e00" <= char <= "\u9fff" for char in name):
            continue
        for form in (name[:SHORT_FORM], name[-SHORT_FORM:]):
            holders = containing[form]
            if len(holders) <= MAX_CANDIDATES:
                forms[form] = {code for holder in holders for code in by_name[holder]}
    return forms
