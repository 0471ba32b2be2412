"""Lexicon and tokenizer: a question becomes a list of typed tokens by longest match.

Chinese has no spaces, so segmentation is the lexicon itself: at each position the longest known
word wins (entity names from the data, semantic-model words, grammar words), with regular
expressions for dates, codes and numbers. Whatever matches nothing becomes an `unknown` token, so
the parser can name exactly what it did not understand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cn2an
import yaml
from pypinyin import lazy_pinyin

from backend.domain.language.catalogue import default_catalogue
from backend.domain.language.context import normalize_text
from backend.domain.language.names import stock_words

if TYPE_CHECKING:
    from backend.domain.language.context import LanguageContext


@dataclass(frozen=True)
class Entry:
    kind: str
    value: Any = None


@dataclass
class Token:
    kind: str
    value: Any
    text: str
    start: int
    extra: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"{self.kind}:{self.value!r}"


GRAMMAR_PATH = Path(__file__).with_name("grammar_words.yaml")
FILLER_PATH = Path(__file__).with_name("filler_words.yaml")


def _load_grammar() -> dict[str, dict[str, list[str]]]:
    with GRAMMAR_PATH.open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return {kind: {str(value): [str(w) for w in words] for value, words in values.items()}
            for kind, values in data["words"].items()}  # fmt: skip


def _load_filler(group: str | None = None) -> tuple[str, ...]:
    """The filler words, or those of one group of filler_words.yaml (normalised as the lexicon's)."""
    with FILLER_PATH.open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    groups = [data["filler"][group]] if group else data["filler"].values()
    return tuple(normalize_text(str(word)) for words in groups for word in words)


# Grammar words: kind -> value -> surface words. Entity and metric words come from the model/data.
GRAMMAR = _load_grammar()
# Words the parser drops (filler_words.yaml); every other word must be read by a rule.
FILLER = _load_filler()
STOCK_NOUNS = frozenset(_load_filler("stock_nouns"))  # the filler words that name stocks (股票, companies)

_DATE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]?"), "ymd"),
    (re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"), "ymd"),
    (re.compile(r"(?<!\d)(20\d{2}|19\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?!\d)"), "ymd"),
]
_MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
    "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}  # fmt: skip
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_EN_DATE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"), "mdy"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b"), "dmy"),
]
# a day without its year (2024年9月24日至10月8日): the time pass takes the year from the range's other end
_MONTH_DAY_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), "md"),
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\d,])\b"), "md_en"),
]
_MONTH_ONLY = [
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?!\s*\d)"), "ym"),
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{4}})\b"), "my"),
    (re.compile(r"(?<![\d-])(\d{4})-(\d{1,2})(?![\d-])"), "ym"),
]
_QUARTER_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(\d{4})\s*年?\s*(?:第\s*)?([一二三四1-4])\s*(?:季度|季报|季)"), "yq"),
    # a letter or digit, not \b, bounds a quarter said as Qn: Chinese characters are word characters too
    (re.compile(r"(\d{4})\s*(?:年)?\s*q([1-4])(?![a-z\d])"), "yq"),
    (re.compile(r"(?<![a-z\d])q([1-4])\s*(?:of\s+)?(\d{4})(?![a-z\d])"), "qy"),
    # Q3'25 / Q3 '25: a year written with its last two digits after an apostrophe
    (re.compile(r"\bq([1-4])\s*['’](\d{2})\b"), "qyy"),
    (re.compile(r"(\d{4})\s*年?\s*(?:中报|半年报|半年度)"), "yh"),
    # 前三季度 / first nine months: the Q3 report, year-to-date as stored
    (re.compile(r"(\d{4})\s*年?\s*前\s*[三3]\s*(?:个)?季度"), "y9m"),
    (re.compile(r"\bfirst (?:three quarters|3 quarters|nine months|9 months)(?: of)?\s*(\d{4})\b"), "y9m"),
    (re.compile(r"\b9m\s*-?\s*(\d{4})\b"), "y9m"),  # 9M-2025, 9M 2025
    (re.compile(r"\b(\d{4})\s*-?\s*9m\b"), "y9m"),  # 2025 9M
    (re.compile(r"(\d{4})\s*年?\s*(?:年报|年度报告|全年|年度)"), "ya"),
    (re.compile(r"(\d{4})\s*(?:half year|half yearly|interim|semi annual)\b"), "yh"),
    (re.compile(r"\b(?:fy|fiscal year|fiscal|full year|full-year)\s*(\d{4})\b"), "ay"),
    (re.compile(r"\bfy\s*['’]?(\d{2})\b"), "ayy"),  # FY24 / FY'24
    (re.compile(r"(\d{4})\s*(?:fiscal year|fiscal|fy)\b"), "ya"),
    # a quarter's report without its year (三季报, 中报, the Q3 report): the latest one of that quarter
    (re.compile(r"(?<![\d年前])(?:第\s*)?([一二三四1-4])\s*(?:季报|季度报告|季度财报)"), "q"),
    (re.compile(r"(?<![\d年上下])(?:中报|半年报|半年度报告)"), "h"),
    # a quarter said alone before 单季 (三季度单季营收, 二季度单季还亏着): that quarter of the latest
    # report of it, as 三季报 (never a count of quarters: 连续三季度单季…, 近三季度, nor a year before it)
    (re.compile(r"(?<![\d年的前近续去后每])(?:第\s*)?([一二三四1-4])\s*季度?(?=\s*单季)"), "q"),
    # 前三季度 with no year: the latest Q3 report
    (re.compile(r"(?<![\d年])前\s*([三3])\s*(?:个)?季度"), "q"),
    (re.compile(r"\bq([1-4])\s+(?:report|reports|results|earnings|financial report)\b"), "q"),
    # a quarter alone (from Q2): the latest report of that quarter, or the year of the quarter said before
    (re.compile(r"(?<![a-z\d])q([1-4])(?![a-z\d])(?!\s*(?:of\s+)?\d)"), "q"),
    (re.compile(r"\b(?:h1|half-year|half year|interim|semi-annual)\s+(?:report|reports|results)\b"), "h"),
]
# a half of a year (2023年下半年, the first half of 2024, H2 2023): its days, or for report figures
# the half-year report (the first half only: the second is no stored period)
_HALF_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(\d{4})\s*年?\s*(上|下)半年(?!报|度)"), "y_zh"),
    (re.compile(r"\b(?:h([12])|(first|second) half(?: of)?)\s*(\d{4})\b"), "h_y"),
    (re.compile(r"(\d{4})\s*(?:h([12])|(first|second) half)\b"), "y_h"),
]
HALF_ENDS = {"上": 6, "下": 12, "1": 6, "2": 12, "first": 6, "second": 12}  # the half's last month
_YEAR_PATTERNS = [
    # [over / in / during] calendar [year] 2025: the year itself, its days (never its annual report)
    (re.compile(r"(?:(?:over|in|during)\s+)?(?:the\s+)?calendar\s+(?:year\s+)?(\d{4})\b"), "y"),
    (re.compile(r"(\d{4})\s*年(?!\s*\d)"), "y"),
    # a bare year, never a count said with its unit (超过2000家, 1999只: a number of stocks or days)
    (re.compile(r"(?<![\d.-])(20[0-4]\d|19[89]\d)(?![\d%-])(?!\.\d)(?!\s*(?:家|只|支|个|次|天))"), "y"),
]
_CODE_RE = re.compile(r"(?<![\d.])(\d{6})(?:\.(sh|sz|bj))?(?![\d])")
# MA20 / 20MA, also between Chinese words (今天MA10死叉MA30): the caller checks the character before
_MA_RE = re.compile(r"(?:ma|sma)\s*(\d{1,3})(?![0-9a-z_])|(\d{1,3})\s*(?:ma|sma)(?![0-9a-z_])")
_ARABIC_RE = re.compile(r"(?<![a-z0-9_.])([-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-+]?\d+(?:\.\d+)?)")
_CN_DIGITS = "零〇一二两三四五六七八九十百千万亿点"
# 千亿 / 百亿 (one thousand / one hundred 亿) are said without their leading 一
_CN_NUM_RE = re.compile(
    rf"百分之[{_CN_DIGITS}]+|[零〇一二两三四五六七八九十][{_CN_DIGITS}]*|[百千](?=[万亿])"
)
ENGLISH_NUMBERS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty",
)  # fmt: skip
_WORD_CHARS = re.compile(r"[a-z0-9_]")
_ALPHA_WORD = re.compile(r"(?<![a-z0-9_])[a-z]+(?![a-z0-9_])")


# a typo is read as the known word one edit away only for words this long (shorter ones are often
# another word one edit away: rose/rise, high/nigh); stock names are never guessed from a typo
TYPO_MIN_LENGTH = 5
NEVER_GUESSED = {"stock", "ambiguous_stock", "numword"}


def _is_word_char(char: str) -> bool:
    return bool(_WORD_CHARS.match(char))


_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KEY_PLACES = {
    char: (row, column) for row, keys in enumerate(_KEYBOARD_ROWS) for column, char in enumerate(keys)
}


def _keys_touch(a: str, b: str) -> bool:
    """Two letters whose keys touch on a QWERTY keyboard (the slip a mistyped letter usually is)."""
    if a not in _KEY_PLACES or b not in _KEY_PLACES:
        return False
    (row_a, col_a), (row_b, col_b) = _KEY_PLACES[a], _KEY_PLACES[b]
    return abs(row_a - row_b) <= 1 and abs(col_a - col_b) <= 1 and (row_a, col_a) != (row_b, col_b)


def _one_edit_apart(word: str, known: str) -> bool:
    """A typing slip one edit away: a letter added or dropped, two neighbouring letters swapped, or a
    letter replaced by one whose key touches it — never at the first letter. Other one-edit pairs
    are often two real words (newest/fewest, worse/worst, slowest/lowest), so they are not guessed."""
    if word == known or abs(len(word) - len(known)) > 1 or word[0] != known[0]:
        return False
    if len(word) == len(known):
        differ = [k for k, (a, b) in enumerate(zip(word, known, strict=True)) if a != b]
        if len(differ) == 1:
            return _keys_touch(word[differ[0]], known[differ[0]])
        first, second = [*differ, -1, -1][:2]
        swapped = len(differ) == 2 and second == first + 1
        return swapped and word[first] == known[second] and word[second] == known[first]
    shorter, longer = (word, known) if len(word) < len(known) else (known, word)
    cut = next((k for k, (a, b) in enumerate(zip(shorter, longer, strict=False)) if a != b), len(shorter))
    return shorter[cut:] == longer[cut + 1 :]


_CHINESE_WORD = re.compile(r"^[\u4e00-\u9fff]{2,}$")
_CHINESE_RUN = re.compile(r"[\u4e00-\u9fff]+")


def _sound(word: str) -> tuple[str, ...]:
    """A Chinese word's pinyin without tones (市赢率 and 市盈率 both shi ying lv)."""
    return tuple(lazy_pinyin(word))


# the sounds a pinyin keyboard's fuzzy mode (and many speakers) do not tell apart: front and back
# nasals, flat and curled initials (市尽率 jin / 市净率 jing)
_FUZZY_SOUNDS = ((re.compile(r"(?<=[aei])ng$"), "n"), (re.compile(r"^([zcs])h"), r"\1"))


def _fuzzy_sound(word: str) -> tuple[str, ...]:
    syllables = []
    for syllable in _sound(word):
        for pattern, plain in _FUZZY_SOUNDS:
            syllable = pattern.sub(plain, syllable)
        syllables.append(syllable)
    return tuple(syllables)


class Lexicon:
    """Surface word → entries, with longest-match lookup."""

    def __init__(self) -> None:
        self.words: dict[str, list[Entry]] = {}
        self.max_len = 1
        self.unit_words: dict[str, tuple[str, float]] = {}  # word -> (unit kind, factor)
        self.max_unit_len = 1
        self._spellable: dict[str, list[Entry]] | None = None  # words a typo may be read as
        self._parts: set[str] | None = None  # every word of every surface
        self._phrase_only: list[str] | None = None  # words a typo inside a phrase may be read as
        # pinyin (exact; fuzzy for metric words) → reading (kind:value) → a word of it
        self._sounds: tuple[dict[tuple[str, ...], dict[str, str]], ...] | None = None

    def add(self, word: str, entry: Entry) -> None:
        surface = normalize_text(word)
        if not surface:
            return
        entries = self.words.setdefault(surface, [])
        if entry not in entries:
            entries.append(entry)
        self.max_len = max(self.max_len, len(surface))

    def add_unit(self, word: str, kind: str, factor: float) -> None:
        surface = normalize_text(word)
        self.unit_words[surface] = (kind, factor)
        self.max_unit_len = max(self.max_unit_len, len(surface))

    def correct(self, word: str) -> tuple[str, list[Entry]] | None:
        """A mistyped English word (bewteen, volatle): the one known word of at least
        TYPO_MIN_LENGTH letters within one edit (a letter added, dropped, changed or two swapped).
        None when no word or several words are that close, or the word is short: a guess between
        two readings, or on a short word where one edit is a different word, is never made."""
        if len(word) < TYPO_MIN_LENGTH or not word.isascii() or not word.isalpha():
            return None
        if self._spellable is None:
            self._spellable = {
                surface: entries
                for surface, entries in self.words.items()
                if surface.isascii() and surface.isalpha() and len(surface) >= TYPO_MIN_LENGTH
                and not any(entry.kind in NEVER_GUESSED for entry in entries)
            }  # fmt: skip
        close = [surface for surface in self._spellable if _one_edit_apart(word, surface)]
        return (close[0], self._spellable[close[0]]) if len(close) == 1 else None

    def correct_by_sound(self, word: str) -> tuple[str, list[Entry]] | None:
        """A Chinese word typed with a wrong character of the same sound (市赢率 for 市盈率, 涨挺 for
        涨停, 版块 for 板块): the one reading of the known words with that pinyin; for a metric word,
        else the one whose pinyin differs only in sounds a fuzzy pinyin keyboard merges (市尽率 for
        市净率). None when no word or words of several readings sound like it — a guess between two
        readings is never made."""
        if not _CHINESE_WORD.match(word):
            return None
        if self._sounds is None:
            self._sounds = ({}, {})
            for surface, entries in self.words.items():
                first = entries[0]
                if not _CHINESE_WORD.match(surface) or first.kind in NEVER_GUESSED or first.kind == "filler":
                    continue
                reading = f"{first.kind}:{first.value}"
                self._sounds[0].setdefault(_sound(surface), {}).setdefault(reading, surface)
                if first.kind == "metric":  # fuzzy sounds for metric words only: more words, more homophones
                    self._sounds[1].setdefault(_fuzzy_sound(surface), {}).setdefault(reading, surface)
        for sounds, sound_of in zip(self._sounds, (_sound, _fuzzy_sound), strict=True):
            readings = sounds.get(sound_of(word), {})
            if len(readings) > 1:
                return None
            if readings:
                surface = next(iter(readings.values()))
                return surface, self.words[surface]
        return None

    def known_parts(self) -> set[str]:
        """Every word of every known surface, unit word and date pattern (never a typo)."""
        if self._parts is None:
            self._parts = {part for surface in [*self.words, *self.unit_words] for part in surface.split()}
            self._parts |= PATTERN_WORDS
        return self._parts

    def mend_in_phrase(self, word: str) -> str | None:
        """A mistyped word of a phrase (gaped up, 15x earnigs): the one word within one edit that
        only occurs inside known phrases. None for a word the lexicon reads (alone or in a phrase),
        one `correct` reads alone, or a guess between several words."""
        if len(word) < TYPO_MIN_LENGTH or not word.isascii() or not word.isalpha():
            return None
        if self._phrase_only is None:
            self._phrase_only = sorted(
                part
                for surface, entries in self.words.items()
                if " " in surface and not any(entry.kind in NEVER_GUESSED for entry in entries)
                for part in surface.split()
                if part.isascii() and part.isalpha() and len(part) >= TYPO_MIN_LENGTH
                and part not in self.words
            )  # fmt: skip
        if word in self.known_parts() or self.correct(word) is not None:
            return None
        close = {part for part in self._phrase_only if _one_edit_apart(word, part)}
        return close.pop() if len(close) == 1 else None

    def lookup(self, text: str, start: int) -> tuple[str, list[Entry]] | None:
        end_max = min(len(text), start + self.max_len)
        for end in range(end_max, start, -1):
            surface = text[start:end]
            entries = self.words.get(surface)
            if not entries:
                continue
            if _is_word_char(surface[0]) and start > 0 and _is_word_char(text[start - 1]):
                continue
            if _is_word_char(surface[-1]) and end < len(text) and _is_word_char(text[end]):
                continue
            return surface, entries
        return None

    @classmethod
    def build(cls, context: LanguageContext) -> Lexicon:
        lexicon = cls()
        model = context.model
        for kind, values in GRAMMAR.items():
            for value, grammar_words in values.items():
                for word in grammar_words:
                    lexicon.add(word, Entry(kind, value))
        for concept in default_catalogue().phrases():  # 破净, 阳线: conditions said in a word
            for word in concept.words:
                lexicon.add(word, Entry("concept", concept.key))
        for concept in default_catalogue().vocabulary():  # rallied, 大涨: a grammar part in other words
            kind, value = concept.token or ("", "")
            for word in concept.words:
                lexicon.add(word, Entry(kind, value))
        for word in FILLER:
            lexicon.add(word, Entry("filler"))
        for metric in model.metrics.values():
            for word in metric.words:
                lexicon.add(word, Entry("metric", metric.key))
                if _is_word_char(word[-1]) and " " not in word and not word.endswith("s"):
                    lexicon.add(word + "s", Entry("metric", metric.key))
        for dimension in model.dimensions.values():
            for word in dimension.words:
                lexicon.add(word, Entry("dim", dimension.key))
        for code, exchange_words in model.exchanges.items():
            for word in exchange_words:
                lexicon.add(word, Entry("exchange", code))
        for board, board_words in model.boards.items():
            for word in board_words:
                lexicon.add(word, Entry("board", board))
        for industry in context.industries:
            lexicon.add(industry, Entry("industry", industry))
            lexicon.add(industry + "行业", Entry("industry", industry))
            lexicon.add(industry + "板块", Entry("industry", industry))
        for industry, synonyms in model.industry_synonyms.items():
            for word in synonyms:
                lexicon.add(word, Entry("industry", industry))
        for industry, synonyms in model.industry_synonyms.items():  # after all: never shadows a name
            for word in english_industry_variants(synonyms):
                if normalize_text(word) not in lexicon.words:
                    lexicon.add(word, Entry("industry", industry))
        for group in model.industry_groups.values():
            for word in group.words:
                lexicon.add(word, Entry("group", group.key))
                if not _is_word_char(word[-1]):
                    lexicon.add(word + "板块", Entry("group", group.key))
                    lexicon.add(word + "行业", Entry("group", group.key))
        for code, name in context.indexes.items():
            lexicon.add(name, Entry("index", code))
            lexicon.add(code, Entry("index", code))
        for code, index_words in model.index_synonyms.items():
            for word in index_words:
                lexicon.add(word, Entry("index", code))
        # areas of registration (stock_basic.area): 上海/深圳 stay the exchange first, the area is
        # their other reading (readings.py); 北京, 浙江, Shenzhen-based name only the area
        for area in context.areas:
            for word in (area, area + "省", area + "市", area + "地区"):
                lexicon.add(word, Entry("area", area))
        for area, area_words in model.area_synonyms.items():
            for word in area_words:
                lexicon.add(word, Entry("area", area))
        for name, month in _MONTHS.items():  # June in "from March to June 2024": the year said once
            lexicon.add(name, Entry("month_name", month))
        for number, word in enumerate(ENGLISH_NUMBERS, start=1):
            lexicon.add(word, Entry("numword", number))
        for word, number in (("thirty", 30), ("forty", 40), ("fifty", 50), ("sixty", 60), ("hundred", 100)):
            lexicon.add(word, Entry("numword", number))
        # names, short forms and initials never shadow a word that already has a meaning
        for word, codes in stock_words(context.stocks, taken=set(lexicon.words)).items():
            lexicon.add(
                word, Entry("stock", codes[0]) if len(codes) == 1 else Entry("ambiguous_stock", codes)
            )
        for word, factor in model.scale_units.items():
            lexicon.add_unit(word, "scale", factor)
        for word in model.money_words:
            lexicon.add_unit(word, "money", 1.0)
        for word, factor in model.share_units.items():
            lexicon.add_unit(word, "shares", factor)
        for word in model.percent_words:
            lexicon.add_unit(word, "percent", 1.0)
        for word in model.times_words:
            lexicon.add_unit(word, "times", 1.0)
        lexicon.add_unit("成", "tenth", 10.0)
        return lexicon


# what an English industry word may be followed by and still name the industry (auto parts makers)
INDUSTRY_MAKERS = ("makers", "maker", "producers", "producer", "manufacturers", "manufacturer", "suppliers",
                   "supplier", "firms", "names")  # fmt: skip


def _other_number(word: str) -> str | None:
    """The plural of a singular English noun, or the singular of a plural (part ↔ parts, miner ↔
    miners, company ↔ companies); None for words too short to tell."""
    if len(word) < 3 or not word.isascii() or not word.isalpha() or word.endswith("ss"):
        return None
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s"):
        return word[:-1]
    return word[:-1] + "ies" if word.endswith("y") and word[-2] not in "aeiou" else word + "s"


def english_industry_variants(words: Iterable[str]) -> list[str]:
    """Industry words as traders vary them: the last word singular or plural (auto part, coal
    miner), followed by a word for its companies (auto parts makers, coal producers)."""
    variants: list[str] = []
    for word in words:
        if not word.isascii():
            continue
        *head, last = word.split()
        other = _other_number(last)
        forms = [word] + ([" ".join([*head, other])] if other else [])
        variants += forms[1:]
        if last not in INDUSTRY_MAKERS and (other or "") not in INDUSTRY_MAKERS:
            variants += [f"{form} {maker}" for form in forms for maker in INDUSTRY_MAKERS]
    return variants


# --- tokenizer ----------------------------------------------------------------------------------


def _valid_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _cn_quarter(text: str) -> int:
    return {"一": 1, "二": 2, "三": 3, "四": 4}.get(text) or int(text)


_PERIOD_END_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(?:底|末)"), "ym"),
    (re.compile(r"(\d{4})\s*年\s*(?:年底|年末|底|末)"), "y"),
    (re.compile(rf"\b(?:the )?end of ({_MONTH_RE})\.?,? (\d{{4}})\b"), "my"),
    (re.compile(r"\b(?:the )?end of (\d{4})\b|\byear end (\d{4})\b"), "y"),
]

# the English words the date and period patterns read (interim, fiscal…): known words, never typos
_ALL_PATTERNS = [
    *_PERIOD_END_PATTERNS, *_DATE_PATTERNS, *_EN_DATE_PATTERNS, *_MONTH_DAY_PATTERNS, *_MONTH_ONLY,
    *_QUARTER_PATTERNS, *_HALF_PATTERNS, *_YEAR_PATTERNS,
]  # fmt: skip
PATTERN_WORDS = {
    word for pattern, _shape in _ALL_PATTERNS for word in re.findall(r"[a-z]{3,}", pattern.pattern)
}


def _match_period_end(text: str, pos: int) -> tuple[int, Token] | None:
    """2024年6月底 / end of June 2024 / 2024年底 / year-end 2024: the last trading day of that month."""
    for pattern, shape in _PERIOD_END_PATTERNS:
        found = pattern.match(text, pos)
        if not found:
            continue
        groups = [group for group in found.groups() if group is not None]
        if shape == "ym":
            year, month = int(groups[0]), int(groups[1])
        elif shape == "my":
            year, month = int(groups[1]), _MONTHS[groups[0]]
        else:
            year, month = int(groups[0]), 12
        if 1 <= month <= 12:
            return found.end(), Token("period_end", {"year": year, "month": month}, found.group(0), pos)
    return None


def _match_period(text: str, pos: int) -> tuple[int, Token] | None:
    """Dates, months, quarters, report periods and years starting exactly at `pos`."""
    period_end = _match_period_end(text, pos)
    if period_end is not None:
        return period_end
    for pattern, shape in _DATE_PATTERNS + _EN_DATE_PATTERNS:
        found = pattern.match(text, pos)
        if not found:
            continue
        groups = found.groups()
        if shape == "ymd":
            year, month, day = int(groups[0]), int(groups[1]), int(groups[2])
        elif shape == "mdy":
            year, month, day = int(groups[2]), _MONTHS[groups[0]], int(groups[1])
        else:
            year, month, day = int(groups[2]), _MONTHS[groups[1]], int(groups[0])
        value = _valid_date(year, month, day)
        if value is not None:
            return found.end(), Token("date", value, found.group(0), pos)
    for pattern, shape in _MONTH_DAY_PATTERNS:
        found = pattern.match(text, pos)
        if found:
            first, second = found.groups()
            month, day = (int(first), int(second)) if shape == "md" else (_MONTHS[first], int(second))
            if _valid_date(2000, month, day) is not None:  # a leap year, so that 2月29日 is a day
                return found.end(), Token("monthday", {"month": month, "day": day}, found.group(0), pos)
    for pattern, _shape in _HALF_PATTERNS:
        found = pattern.match(text, pos)
        if found:
            year_text = next(group for group in found.groups() if group and len(group) == 4)
            half = next(group for group in found.groups() if group and group in HALF_ENDS)
            half_year = {"year": int(year_text), "month": HALF_ENDS[half]}
            return found.end(), Token("half", half_year, found.group(0), pos)
    for pattern, shape in _QUARTER_PATTERNS:
        found = pattern.match(text, pos)
        if not found:
            continue
        groups = found.groups()
        period_year: int | None
        if shape in {"q", "h"}:  # no year: the compiler takes the latest report of that quarter
            period_year, quarter = None, _cn_quarter(groups[0]) if shape == "q" else 2
        elif shape == "yq":
            period_year, quarter = int(groups[0]), _cn_quarter(groups[1])
        elif shape == "qy":
            period_year, quarter = int(groups[1]), int(groups[0])
        elif shape == "qyy":
            period_year, quarter = 2000 + int(groups[1]), int(groups[0])
        elif shape == "ayy":
            period_year, quarter = 2000 + int(groups[0]), 4
        elif shape == "yh":
            period_year, quarter = int(groups[0]), 2
        elif shape == "y9m":
            period_year, quarter = int(groups[0]), 3
        else:
            period_year, quarter = int(groups[0]), 4
        kind = "annual" if shape in {"ya", "ay", "ayy"} else "quarter"
        return found.end(), Token(
            "period", {"year": period_year, "quarter": quarter, "kind": kind}, found.group(0), pos
        )
    for pattern, shape in _MONTH_ONLY:
        found = pattern.match(text, pos)
        if not found:
            continue
        groups = found.groups()
        year, month = (
            (int(groups[1]), _MONTHS[groups[0]]) if shape == "my" else (int(groups[0]), int(groups[1]))
        )
        if 1 <= month <= 12:
            return found.end(), Token("month", {"year": year, "month": month}, found.group(0), pos)
    for pattern, _shape in _YEAR_PATTERNS:
        found = pattern.match(text, pos)
        if found:
            return found.end(), Token("year", int(found.group(1)), found.group(0), pos)
    return None


def _read_unit(text: str, pos: int, lexicon: Lexicon) -> tuple[int, list[tuple[str, float]]]:
    """Unit words right after a number (亿元, 万手, %, billion yuan…), possibly several."""
    units: list[tuple[str, float]] = []
    cursor = pos
    while True:
        probe = cursor
        while probe < len(text) and text[probe] == " ":
            probe += 1
        best: tuple[str, tuple[str, float]] | None = None
        for end in range(min(len(text), probe + lexicon.max_unit_len), probe, -1):
            surface = text[probe:end]
            if surface in lexicon.unit_words:
                if _is_word_char(surface[-1]) and end < len(text) and _is_word_char(text[end]):
                    continue
                best = (surface, lexicon.unit_words[surface])
                break
        if best is None:
            return cursor, units
        # an English letter unit must be separated from the next word ("5 m" yes, "5 ma" no)
        units.append(best[1])
        cursor = probe + len(best[0])


_PERCENT_OF = re.compile(r" *of ")


def _match_number(text: str, pos: int, lexicon: Lexicon) -> tuple[int, Token] | None:
    found = _ARABIC_RE.match(text, pos)
    value: float | None = None
    end = pos
    if found and (pos == 0 or not text[pos - 1].isalpha() or not text[pos - 1].isascii()):
        value = float(found.group(1).replace(",", ""))
        end = found.end()
    else:
        cn = _CN_NUM_RE.match(text, pos)
        if cn:
            raw = cn.group(0)
            percent_prefix = raw.startswith("百分之")
            digits = raw[3:] if percent_prefix else raw
            # trailing 万/亿 belong to the unit, not the numeral ("三十亿" = 30 × 亿)
            core = digits.rstrip("万亿") or digits
            end = pos + len(raw) - (len(digits) - len(core))  # 千亿: 千, then the unit 亿 (never 1000 alone)
            if core[0] in "百千":
                core = "一" + core
            try:
                value = float(cn2an.cn2an(core, "smart"))
            except (ValueError, KeyError, TypeError):
                return None
            if percent_prefix:
                return end, Token("number", value, raw, pos, {"unit": "percent", "factor": 1.0})
    if value is None:
        return None
    unit_end, units = _read_unit(text, end, lexicon)
    factor = 1.0
    unit_kind = ""
    scaled = False
    for kind, unit_factor in units:
        if kind == "scale":
            factor *= unit_factor
            scaled = True
        elif kind in {"money", "shares"}:
            factor *= unit_factor
            unit_kind = kind
        elif kind == "tenth":
            return unit_end, Token("number", value * 10, text[pos:unit_end], pos, {"unit": "percent"})
        else:
            unit_kind = kind
    extra: dict[str, Any] = {"unit": unit_kind, "factor": factor, "scaled": scaled}
    if unit_kind == "percent" and _PERCENT_OF.match(text, unit_end):
        extra["of"] = True  # 60% of total market cap: a part of the figure named next ('of' stays filler)
    return unit_end, Token("number", value, text[pos:unit_end], pos, extra)


def _mend_phrase_typos(text: str, lexicon: Lexicon) -> str:
    """Each mistyped word of a known phrase replaced by that phrase's word (Lexicon.mend_in_phrase)."""

    def mended(found: re.Match[str]) -> str:
        return lexicon.mend_in_phrase(found.group(0)) or found.group(0)

    return _ALPHA_WORD.sub(mended, text)


def typo_readings(question: str, lexicon: Lexicon, latest: date | None = None) -> list[tuple[str, str]]:
    """The mistyped words `tokenize` reads as known ones (margn → margin, yeilders → yielders), in
    order, so that the answer can say how it read them."""
    text = _restated_phrases(_fortnight_as_weeks(_plus_as_at_least(normalize_text(question))))
    readings: list[tuple[str, str]] = []
    for found in _ALPHA_WORD.finditer(text):
        word = found.group(0)
        known = lexicon.mend_in_phrase(word)  # builds the set of known words first
        if known is None and word not in lexicon.known_parts():
            corrected = lexicon.correct(word)
            known = corrected[0] if corrected is not None else None
        if known is not None and (word, known) not in readings:
            readings.append((word, known))
    chinese = _CHINESE_RUN.search(text) is not None
    prepared = _prepared(question, lexicon, latest) if chinese else ""
    for _start, typed, known in sound_typos(_tokens_of(prepared, lexicon, {}, latest), lexicon):
        if (typed, known) not in readings:
            readings.append((typed, known))
    return readings


# 4+ limit-up days, industries with 50+ stocks: a count followed by a plus sign is "at least" that count
_AT_LEAST_PLUS = re.compile(r"(?<![a-z0-9_.])(\d+(?:\.\d+)?)\s*\+(?![a-z0-9_.+])")


def _plus_as_at_least(text: str) -> str:
    said = "至少" if not text.isascii() else "at least "
    return _AT_LEAST_PLUS.sub(lambda found: f"{said}{found.group(1)}", text)


# a fortnight is two weeks, read as "2 weeks" by every rule of windows (never after a count: 3 fortnights)
_FORTNIGHT = re.compile(r"(?<!\d )\b(?:a |one )?fortnight\b")


def _fortnight_as_weeks(text: str) -> str:
    return _FORTNIGHT.sub("2 weeks", text)


# closed right at the session high, 正好收在最高价: an emphasis before where a stock closed says nothing more
# than the close itself, which the candle phrases name (closed at the session high, 收在最高价)
_CLOSED_RIGHT_AT = re.compile(
    r"\b(closed|closes|close|closing|finished|finishes|ended|ends) (?:right|squarely|exactly) (at|on)\b"
    r"|(?:正好|恰好|刚好)(?=收在|收于|收盘在)"
)


def _english_pair_kept(found: re.Match[str]) -> str:
    """The two English words a rewrite keeps (closed … at, since … the day); a Chinese match goes whole."""
    return f"{found.group(1)} {found.group(2)}" if found.group(1) else ""


def _close_emphasis_dropped(text: str) -> str:
    return _CLOSED_RIGHT_AT.sub(_english_pair_kept, text)


# since the September 24, 2024 rally [kicked off], 924行情启动以来: a move of the market named by the day it
# began is that day, as 924行情 is (restates): the words naming the event are no move of the stocks asked
_EVENT_SINCE = re.compile(
    r"\b(since|from) the ((?:[a-z]+ \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?)|\d{4}-\d{2}-\d{2}) "
    r"(?:rally|rebound|bull run|sell-off|selloff|crash)"
    r"(?: (?:kicked off|began|begun|started|took off|got going|got underway|set in))?\b"
    r"|(?<=行情)(?:启动|开启|开始|爆发|发动)(?=以来)"
)


def _event_day(text: str) -> str:
    return _EVENT_SINCE.sub(_english_pair_kept, text)


# crossed 100 billion yuan of revenue: went past an amount, as topped says it; only before an amount of money
# or shares (crossed the 20-day MA, crossed 5% are crossings or rates, read or refused by their own rules)
_CROSSED_AMOUNT = re.compile(
    r"\b(?:crossed|crosses|crossing|surpassed|surpasses|surpassing) (?=(?:the )?\d[\d.,]*\s*"
    r"(?:thousand|million|billion|trillion|bn|mn|tn|b|m|k)\b)"
)


def _crossed_as_topped(text: str) -> str:
    return _CROSSED_AMOUNT.sub("topped ", text)


def _restated_phrases(text: str) -> str:
    """Phrases said another way than the lexicon's words: an emphasis before a close, an event named by the
    day it began, crossing an amount."""
    return _crossed_as_topped(_event_day(_close_emphasis_dropped(text)))


# a year said with two digits (25年一季报, 24年12月, 25年上半年): 20xx when a period of that year follows,
# never after a word that makes it a length of time (近10年, 连续10年, 上市超过20年)
_SHORT_YEAR_RE = re.compile(
    r"(?<![\d.%])(?<!近)(?<!过去)(?<!连续)(?<!超过)(?<!不到)(?<!满)(?<!前)(?<!后)"
    r"([0-2]\d)\s*年(?=\s*(?:第|[一二三四1-4]\s*季|q[1-4](?![a-z\d])|中报|半年|上半年|下半年|年报|年度|全年|前\s*[三3]\s*(?:个)?季|"
    r"\d{1,2}\s*月|底|末|初))"
)


def _full_years(text: str) -> str:
    """25年一季报 → 2025年一季报: a two-digit year before one of its periods is that year of this century."""
    return _SHORT_YEAR_RE.sub(lambda found: f"20{found.group(1)}年", text)


# a month or a day with no year, then 以来 (12月以来, 9月24日以来): the latest one on or before the
# data's last day, the only one "since" can start from. Digits run together (924以来) name an event of
# some year (2024-09-24), not the latest such day: not read
_SINCE_NO_YEAR_RE = re.compile(r"(?<![\d年.%-])(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?(?=\s*(?:以来|至今))")


# the same in English: since [the start of] November / since Dec 5 with no year after it
_EN_SINCE_NO_YEAR_RE = re.compile(
    rf"\bsince\s+(?:the\s+(?:start|beginning)\s+of\s+)?({_MONTH_RE})\b\.?"
    rf"(?:\s+(\d{{1,2}})(?:st|nd|rd|th)?)?(?![\s,]*(?:\d|'))"
)


# a day said without a year in a question that names no year at all (Top 5 gainers on Dec 15, 12月24号涨停的):
# the latest such day on or before the data's last day, as after since. A year said anywhere else dates it
# through the time rules instead (2024年9月24日至10月8日)
_EN_LONE_DAY_RE = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![\s,]*(?:\d|'))")
_ZH_LONE_DAY_RE = re.compile(r"(?<![\d年.%-])(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
# a month said alone (no day, no year) in a question naming no year at all (Which December session…,
# 12月份哪些交易日): the latest such month on or before the data's last day, as a lone day. Full English
# names and the abbreviations no other word spells ("may" and "mar" are verbs too: left unread);
# never a count of months (近3月, 过去6月) nor a range's end said with a dash (1-3月)
_EN_LONE_MONTHS = {name: month for name, month in _MONTHS.items() if name not in {"may", "mar", "jun", "jul"}}
_EN_LONE_MONTH_RE = re.compile(
    rf"(?<!last )(?<!this )(?<!next )(?<!previous )(?<!prior )"
    rf"\b({'|'.join(sorted(_EN_LONE_MONTHS, key=len, reverse=True))})\b(?!\.?[\s,]*(?:\d|'))"
)
_ZH_LONE_MONTH_RE = re.compile(
    r"(?<![\d年.%\-~～])(?<!近)(?<!过去)(?<!最近)(?<!前)(?<!后)(\d{1,2})\s*月(?!\s*\d)"
)
_SAID_YEAR_RE = re.compile(
    r"(?<!\d)(?:19|20)\d{2}(?!\d)|\d\s*年|今年|去年|前年|\b(?:this|last|previous|prior) year\b|\bfy"
)


def _years_before_since(text: str, latest: date | None) -> str:
    """12月以来 → 2025年12月以来 when the data ends in 2025 (2024年 when its last day is before 12月1日);
    since Dec 5 → since Dec 5, 2025, since the start of November → … November 2025, likewise; a day
    alone in a question naming no year (on Dec 15, 12月24号) the same."""
    if latest is None:
        return text

    def dated_english(found: re.Match[str]) -> str:
        month_text, day_text = found.groups()
        start = _valid_date(latest.year, _MONTHS[month_text], int(day_text or 1))
        if start is None:
            return found.group(0)
        year = latest.year if start <= latest else latest.year - 1
        return f"{found.group(0)}, {year}" if day_text else f"{found.group(0)} {year}"

    text = _EN_SINCE_NO_YEAR_RE.sub(dated_english, text)

    def dated(found: re.Match[str]) -> str:
        month_text, day_text = found.groups()
        start = _valid_date(latest.year, int(month_text), int(day_text or 1))
        if start is None:
            return found.group(0)  # no such month or day (13月): left for the rules to refuse
        year = latest.year if start <= latest else latest.year - 1
        return f"{year}年{found.group(0)}"

    def dated_month(found: re.Match[str]) -> str:
        month = int(found.group(1))
        if not 1 <= month <= 12:
            return found.group(0)  # no such month (13月): left for the rules to refuse
        return f"{latest.year if month <= latest.month else latest.year - 1}年{found.group(0)}"

    def dated_english_month(found: re.Match[str]) -> str:
        month = _EN_LONE_MONTHS[found.group(1)]
        return f"{found.group(0)} {latest.year if month <= latest.month else latest.year - 1}"

    text = _SINCE_NO_YEAR_RE.sub(dated, text)
    if _SAID_YEAR_RE.search(text):
        return text
    text = _ZH_LONE_DAY_RE.sub(dated, _EN_LONE_DAY_RE.sub(dated_english, text))
    return _ZH_LONE_MONTH_RE.sub(dated_month, _EN_LONE_MONTH_RE.sub(dated_english_month, text))


# a day some calendar span before the data's last day (半年前, 3个月前, 一个季度前, six months ago): that
# calendar day, so that "in the CSI 300 half a year ago" reads the snapshot in force then. Not a count of
# periods before a ranking or a listing (前三季度, 前10名, 3年前上市) nor a four-digit year (2025年前)
_AGO_ZH_RE = re.compile(
    r"(?<![\d年])(半年|半个月|(\d{1,2}|[一二两三四五六七八九十]{1,3})\s*(?:个)?\s*(月|季度|年|周|星期))\s*前"
    r"(?!\s*(?:[一二两三四五六七八九十\d]|上市|以来|至今))"
)
_AGO_EN_RE = re.compile(
    rf"(?<![a-z0-9_.])(half a year|(\d{{1,2}}|an?|{'|'.join(ENGLISH_NUMBERS)})\s+"
    r"(months?|quarters?|years?|weeks?))\s+ago\b"
)
_SPAN_MONTHS = {"月": 1, "季度": 3, "年": 12, "month": 1, "quarter": 3, "year": 12}


def _span_count(said: str) -> int:
    if said in {"a", "an"}:
        return 1
    if said in ENGLISH_NUMBERS:
        return ENGLISH_NUMBERS.index(said) + 1
    return int(said) if said.isdigit() else int(cn2an.cn2an(said, "smart"))


def _months_before(day: date, months: int) -> date:
    """The same day `months` calendar months earlier, the month's last day when it has no such day."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    for last in range(day.day, 27, -1):
        found = _valid_date(year, month + 1, last)
        if found is not None:
            return found
    return date(year, month + 1, min(day.day, 28))


def _days_ago(text: str, latest: date | None) -> str:
    """半年前 / 3个月前 / six months ago → that calendar day (2025-06-30 when the data ends on 2025-12-31)."""
    if latest is None:
        return text

    def dated(found: re.Match[str]) -> str:
        whole, count, unit = found.group(1), found.group(2), found.group(3)
        if whole in {"半年", "half a year"}:
            day = _months_before(latest, 6)
        elif whole == "半个月":
            day = latest - timedelta(days=15)
        elif unit in {"周", "星期"} or unit.startswith("week"):
            day = latest - timedelta(weeks=_span_count(count))
        else:
            day = _months_before(latest, _span_count(count) * _SPAN_MONTHS[unit.rstrip("s")])
        return f" {day.isoformat()} "

    return _AGO_EN_RE.sub(dated, _AGO_ZH_RE.sub(dated, text))


# last Friday: the latest such weekday before the data's last day. When that day is itself a Friday,
# "last Friday" may be it or the week before: not dated (left unread, refused)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_LAST_WEEKDAY_RE = re.compile(rf"\blast\s+({'|'.join(_WEEKDAYS)})\b")


def _last_weekday(text: str, latest: date | None) -> str:
    """last Friday → 2025-12-26 when the data ends on Wednesday 2025-12-31."""
    if latest is None:
        return text

    def dated(found: re.Match[str]) -> str:
        back = (latest.weekday() - _WEEKDAYS.index(found.group(1))) % 7
        return f" {(latest - timedelta(days=back)).isoformat()} " if back else found.group(0)

    return _LAST_WEEKDAY_RE.sub(dated, text)


# 今年 / 去年 / 前年 before a period of that year (今年二季度, 去年三季报, 今年3月): that year's number, so
# the period is read as any dated one; 今年以来 and 去年全年 keep their own readings
_RELATIVE_YEAR_RE = re.compile(
    r"(今年|去年|前年)(?=\s*(?:第?[一二三四1-4]\s*季|[一二三四1-4]季报|中报|年报|半年报|上半年|下半年|"
    r"前\s*[三3]\s*(?:个)?季|\d{1,2}\s*月))"
)
_YEARS_BACK = {"今年": 0, "去年": 1, "前年": 2}


def _relative_years(text: str, latest: date | None) -> str:
    """今年二季度 → 2025年二季度 when the data ends in 2025 (the year of the latest trading day)."""
    if latest is None:
        return text
    return _RELATIVE_YEAR_RE.sub(lambda found: f"{latest.year - _YEARS_BACK[found.group(1)]}年", text)


# a month said in Chinese numerals right after its year (2025年十二月, 今年三月), and a day in numerals
# right after its month (12月三十一日): their numbers, as 12月31日 is read; elsewhere (三月以来, 近三月)
# a numeral before 月 may count months, and is left to the other rules
_NUMERAL_MONTH_RE = re.compile(r"(?<=年)(\s*)(十[一二]?|[一二三四五六七八九])(?=\s*月)")
_NUMERAL_DAY_RE = re.compile(
    r"(?<=\d月)(\s*)([一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])(?=\s*[日号])"
)
_NUMERAL_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _numeral_value(numeral: str) -> int:
    """十二 → 12, 三十一 → 31, 九 → 9 (numbers below 40, as months and days are said)."""
    if "十" not in numeral:
        return _NUMERAL_DIGITS[numeral]
    tens, _ten, units = numeral.partition("十")
    return 10 * (_NUMERAL_DIGITS[tens] if tens else 1) + (_NUMERAL_DIGITS[units] if units else 0)


def _numeral_dates(text: str) -> str:
    """2025年十二月三十一日 → 2025年12月31日."""

    def in_digits(found: re.Match[str]) -> str:
        return f"{found.group(1)}{_numeral_value(found.group(2))}"

    return _NUMERAL_DAY_RE.sub(in_digits, _NUMERAL_MONTH_RE.sub(in_digits, text))


# ¥500bn / CNY 2 billion / RMB 10bn: the currency said before its number, read as the unit after it
# (500bn yuan). The data holds yuan only: $ or US$ stay unread, and refuse
_CURRENCY_FIRST = re.compile(
    r"(?:¥|(?<![a-z0-9_])(?:cny|rmb)\s*)(\d[\d,]*(?:\.\d+)?(?:\s*(?:trillion|billion|million|trn|tn|bln|bn|mln|mn|"
    r"b|m|k|万亿|亿|万)(?![a-z]))?)(?![\d.])"
)
_YUAN_AFTER = re.compile(r"\s*(?:yuan|cny|rmb|元)(?![a-z])")


def _currency_first(text: str) -> str:
    """¥500bn → 500bn yuan (a yuan already said after the number is not said twice)."""

    def moved(found: re.Match[str]) -> str:
        said_after = _YUAN_AFTER.match(text, found.end()) is not None
        return found.group(1) if said_after else f"{found.group(1)} yuan"

    return _CURRENCY_FIRST.sub(moved, text)


def _prepared(question: str, lexicon: Lexicon, latest: date | None) -> str:
    """The question's text as the lexicon reads it: typos in phrases mended, dates said in full."""
    said = _numeral_dates(
        _restated_phrases(_fortnight_as_weeks(_plus_as_at_least(_currency_first(normalize_text(question)))))
    )
    text = _years_before_since(_full_years(_mend_phrase_typos(said, lexicon)), latest)
    return _relative_years(_last_weekday(_days_ago(text, latest), latest), latest)


def tokenize(
    question: str, lexicon: Lexicon, stock_codes: dict[str, str], latest: date | None = None
) -> list[Token]:
    """The question's tokens; `latest` (the data's last day) dates a month or day said without its year."""
    text = _prepared(question, lexicon, latest)
    tokens = _tokens_of(text, lexicon, stock_codes, latest)
    typos = sound_typos(tokens, lexicon)
    if not typos:
        return tokens
    for start, typed, known in typos:
        # the known word in place of the typed one (the same length: a character per syllable), so
        # that the longest match reads it as written right (军工版块 → 军工板块, one industry word)
        text = text[:start] + known + text[start + len(typed) :]
    return _tokens_of(text, lexicon, stock_codes, latest)


def _tokens_of(text: str, lexicon: Lexicon, stock_codes: dict[str, str], latest: date | None) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    unknown_start = -1

    def flush_unknown(end: int) -> None:
        nonlocal unknown_start
        if unknown_start >= 0:
            word = text[unknown_start:end].strip()
            corrected = lexicon.correct(word) if word else None
            if corrected is not None:  # bewteen → between: read as that word, in every rule
                surface, entries = corrected
                alternatives = {"alts": entries[1:]}
                tokens.append(Token(entries[0].kind, entries[0].value, surface, unknown_start, alternatives))
            elif word:
                tokens.append(Token("unknown", word, word, unknown_start))
            unknown_start = -1

    while pos < len(text):
        char = text[pos]
        if char == " ":
            flush_unknown(pos)
            pos += 1
            continue
        candidates: list[tuple[int, int, Token]] = []  # (end, priority, token)
        period = _match_period(text, pos)
        if period:
            candidates.append((period[0], 4, period[1]))
        code = _CODE_RE.match(text, pos)
        if code and code.group(1) in stock_codes and (pos == 0 or not text[pos - 1].isalnum()):
            ts_code = stock_codes[code.group(1)]
            candidates.append((code.end(), 3, Token("stock", ts_code, code.group(0), pos)))
        ma = _MA_RE.match(text, pos)
        if ma and (pos == 0 or not _is_word_char(text[pos - 1])):
            n = int(ma.group(1) or ma.group(2))
            candidates.append((ma.end(), 3, Token("ma_n", n, ma.group(0), pos)))
        number = _match_number(text, pos, lexicon)
        if number:
            candidates.append((number[0], 1, number[1]))
        word = lexicon.lookup(text, pos)
        if word:
            surface, entries = word
            if entries[0].kind == "numword":
                token = Token("number", float(entries[0].value), surface, pos, {"unit": "", "factor": 1.0})
            else:
                token = Token(entries[0].kind, entries[0].value, surface, pos, {"alts": entries[1:]})
            candidates.append((pos + len(surface), 2, token))
        if not candidates:
            if unknown_start < 0:
                unknown_start = pos
            pos += 1
            if not _is_word_char(char):
                flush_unknown(pos)
            continue
        flush_unknown(pos)
        end, _priority, token = max(candidates, key=lambda item: (item[0], item[1]))
        if token.kind == "restates":  # 红盘率 = 上涨占比: the words of the phrase it stands for
            phrase = tokenize(token.value, lexicon, stock_codes, latest)
            tokens += [replace(said, start=pos) for said in phrase]
        else:
            tokens.append(token)
        pos = end
    flush_unknown(pos)
    return tokens


def sound_typos(tokens: list[Token], lexicon: Lexicon) -> list[tuple[int, str, str]]:
    """(where, typed, known word) for each run of unknown Chinese characters (one token each) that
    sounds like one known reading (市赢率 → 市盈率, Lexicon.correct_by_sound) — alone, or with the
    Chinese word just before it when the typo's first characters were read as a word of their own
    (股 + 息律, 换手 + 律). Any other run is left unknown, to refuse."""
    found: list[tuple[int, str, str]] = []
    k = 0
    while k < len(tokens):
        end = k
        while (
            end < len(tokens)
            and _unknown_chinese(tokens[end])
            and (end == k or follows(tokens[end - 1], tokens[end]))
        ):
            end += 1
        if end == k:
            k += 1
            continue
        start, typed = tokens[k].start, "".join(token.text for token in tokens[k:end])
        sounded = lexicon.correct_by_sound(typed)
        before = tokens[k - 1] if k > 0 else None
        if (
            sounded is None
            and before is not None
            and _CHINESE_RUN.fullmatch(before.text)
            and follows(before, tokens[k])
        ):
            start, typed = before.start, before.text + typed
            sounded = lexicon.correct_by_sound(typed)
        if sounded is None:
            k += 1
            continue
        found.append((start, typed, sounded[0]))
        k = end
    return found


def _unknown_chinese(token: Token) -> bool:
    return token.kind == "unknown" and bool(_CHINESE_RUN.fullmatch(token.text))


def follows(before: Token, token: Token) -> bool:
    """Whether `token` starts right where `before` ends (no space or character between)."""
    return before.start + len(before.text) == token.start
