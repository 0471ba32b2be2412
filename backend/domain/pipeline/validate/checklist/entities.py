"""What a named entity looks like inside SQL: the stored values and codes a query uses for it.

Industries, industry groups, exchanges, boards and indexes come from the semantic model; stock codes
and the ST mark are data-free rules. A stock named by its name needs the database: it is reported
with its text, and the probe step grounds it later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import Lang
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import number_value
from backend.domain.pipeline.validate.checklist.vocabulary import Category, Hit

# The curated names of stocks beside the semantic model (English names as written in English news).
_ENGLISH_NAMES_PATH = Path(__file__).resolve().parents[3] / "language" / "stock_names.yaml"
_SUFFIXES = {"SSE": ".SH", "SZSE": ".SZ", "BSE": ".BJ"}
_COLUMNS = {
    Category.INDUSTRY: "industry",
    Category.INDUSTRY_GROUP: "industry",
    Category.EXCHANGE: "exchange",
    Category.BOARD: "market",
    Category.INDEX: "index_code",
    Category.STOCK: "ts_code",
    Category.ST: "name",
}
ENTITY_CATEGORIES = tuple(_COLUMNS)
# Characters after which an industry word starts a word of its own (的银行股, 不属于银行业, 10只银行股);
# after any other Chinese character it is the tail of a longer name (招商银行, 中国石油, 长江电力).
_WORD_BOUNDARY = set("的和与及、，,；;。非属于个各中在是为只家或且而及其")
# What a question may start with before naming a stock ("查询贵州茅台…", "列出…"), exclusions too
# (剔除银行…: the industry word is the excluded one, no name's tail).
_COMMANDS = (
    r"请问|请|帮我查|帮我找|帮我|查询|查一下|查找|查|看看|告诉我|列出|显示|展示|找出|筛选|给出|搜索|统计|计算"
    r"|剔除|排除|除去|去掉|除了"
)
_LEADING_VERBS = re.compile(rf"^(?:{_COMMANDS})+")
# Question words and determiners before an industry word pick its stocks (现在哪些银行股, 这些券商):
# a company's name starts after them, if at all.
_DETERMINERS = re.compile(r"哪些|哪几|哪个|哪只|哪家|哪|这些|那些|这个|那个|所有|全部|各|每")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LEADING_NAME = re.compile(
    rf"^(?:{_COMMANDS})*(?P<name>[\u4e00-\u9fff]{{2,6}}?)"
    # 、: the first of names listed side by side (中国平安、招商银行…)
    r"(?=\d|、|最新|最近|近|今日|今天|今年|去年|本年|本月|上月|本周|上周|昨日|昨天|的|在|从|自|过去|上市|股价|收盘|市值|市盈率|市净率|每股|营收|营业|净利润)"
)
_CAPITALIZED_BEFORE = re.compile(r"([A-Z][\w&.\-]*)\s+$")
# Words that start a question rather than a company name.
_NOT_NAMES = {
    "what", "which", "how", "list", "show", "find", "give", "rank", "top", "the", "a", "an", "average",
    "total", "number", "stocks", "for", "in", "of", "and", "is", "are", "was", "were", "do", "does", "did",
}  # fmt: skip
# Characters of the words that open a question but name no company: quantifiers, days and periods
# (三季报, 过去20天).
_NOT_NAME_CHARACTERS = set("各每前最连续近今昨不非按统计哪些有多少这那上下涨跌股票季过市")  # 市: 两市, 全市场
# Function words that open a question (截至最新交易日, 对于…, 目前…, 距离近250日高点…): a preposition, a
# conjunction, a quantifier or a time word — or a count with its measure word (三只, 几家) — never a
# company's name; nor where companies are registered or based (注册地在广东, 总部位于杭州).
_NOT_NAME_OPENERS = re.compile(
    r"截至|截止|直到|对于|关于|根据|按照|依据|基于|如果|假如|目前|当前|现在|如今"
    r"|距离|距|相对|相比|相较|较之|比起|对比|除了|以及|并且|而且|或者|还是|同时|其中|另外"
    r"|所有|全部|整个|一共|总共|大约|大概|至少|至多"
    r"|[一二两三四五六七八九十百千几数\d]+(?:个|只|支|家|次|天|年|月|周|位|名|条)"
    r"|注册|总部|所在地|办公地"
)
# Function words ending in 中 (其中银行股, 这之中): the 中 is theirs, it opens no name (中信, 中国).
_FUNCTION_WORDS_ENDING_IN_ZHONG = {"其中", "之中", "当中", "从中", "集中"}
# A name listed between two separators right after another name (招商银行、中国平安和中信证券).
_LIST_SEPARATORS = "、和与及"
_LISTED_NAME = re.compile(rf"[{_LIST_SEPARATORS}](?P<name>[\u4e00-\u9fff]{{2,6}}?)(?=[{_LIST_SEPARATORS}])")


def _names(literal: str, value: str) -> bool:
    """'银行' names 银行; so does a LIKE pattern '%银行%'."""
    return literal.strip("%") == value or ("%" in literal and value in literal)


@dataclass(frozen=True)
class EntityRef:
    category: Category | None  # None: a stock known only by its name
    key: str  # industry group key, exchange code, board, index code, stock code, or the stock name
    values: tuple[str, ...]  # the stored values that must all appear (the industries of a group)
    column: str
    surface: str  # as the question writes it

    @property
    def label(self) -> str:
        return self.key if self.category is None else f"{self.key} ({self.category.value})"

    def mentioned_by(self, literal: str) -> bool:
        bare = literal.strip("%")
        if self.category is Category.EXCHANGE:  # values: the code, then boards named as the exchange
            return bare in {
                *self.values,
                _SUFFIXES.get(self.key, ""),
                _SUFFIXES.get(self.key, "").lstrip("."),
                self.surface,
            }
        if self.category is Category.INDEX:
            return any(value in literal for value in self.values[:2]) or bare in self.values
        if self.category in {Category.STOCK, Category.ST, None}:
            return self.key in literal
        return any(_names(literal, value) for value in self.values)

    def covered_values(self, literals: list[str]) -> list[str]:
        """The stored values some literal names (for a group: which of its industries)."""
        if self.category in {Category.INDUSTRY, Category.INDUSTRY_GROUP}:
            return [value for value in self.values if any(_names(literal, value) for literal in literals)]
        return list(self.values) if any(self.mentioned_by(literal) for literal in literals) else []

    def named_in(self, node: exp.Expr) -> bool:
        literals = [n.this for n in node.find_all(exp.Literal) if n.is_string]
        if any(self.mentioned_by(literal) for literal in literals):
            return True
        # A stock code may be compared as a number (symbol = 600519).
        return self.category is Category.STOCK and any(
            number_value(n) == float(self.key) for n in node.find_all(exp.Literal) if not n.is_string
        )


def entity_ref(question: Question, hit: Hit) -> EntityRef:
    surface = question.raw[hit.start : hit.end]
    vocabulary = question.vocabulary
    if hit.category is Category.INDUSTRY_GROUP:
        values = vocabulary.industry_groups[hit.key]
    elif hit.category is Category.INDEX:
        values = (hit.key, *vocabulary.index_names[hit.key])
    elif hit.category is Category.EXCHANGE:
        values = (hit.key, *vocabulary.boards_named_as(hit.key))
    else:
        values = (hit.key,)
    return EntityRef(hit.category, hit.key, values, _COLUMNS[hit.category], surface)


def name_around(question: Question, hit: Hit) -> tuple[int, int] | None:
    """The span of a company name an industry word belongs to (招商银行, Ping An Bank's), if any."""
    if hit.category not in {Category.INDUSTRY, Category.INDUSTRY_GROUP} or hit.start == 0:
        return None
    raw, text, start = question.raw, question.text, hit.start
    if _CJK.match(text[start - 1]):
        while start > 0 and _CJK.match(text[start - 1]) and text[start - 1] not in _WORD_BOUNDARY:
            if question.covered(start - 1):
                return None
            start -= 1
        if _opens_name(text, start):
            start -= 1  # 中国石油, 中信证券: 中 opening the question or a clause starts the name
        lead = _LEADING_VERBS.match(text[start : hit.start])
        start += lead.end() if lead else 0
        for determiner in _DETERMINERS.finditer(text, start, hit.start):
            start = determiner.end()
        return (start, hit.end) if start < hit.start else None
    if not raw[hit.start].isupper():
        return None
    # English: capitalized words run into it ("Ping An Bank"), or it is a possessive ("Bank's ROE").
    while word := _CAPITALIZED_BEFORE.search(raw, 0, start):
        if word.start(1) == 0 and word.group(1).lower() in _NOT_NAMES:
            break  # "Which Bank stocks …": the question's first word is capitalized anyway
        start = word.start(1)
    possessive = raw.startswith(("'s", "’s"), hit.end)
    return (start, hit.end) if start < hit.start or possessive else None


def _opens_name(text: str, start: int) -> bool:
    """中 right before a name's first character, itself at the start of the text or of a clause (not
    the postposition of 成分股中银行股): the name's own first character."""
    if (
        start == 0
        or text[start - 1] != "中"
        or text[max(0, start - 2) : start] in _FUNCTION_WORDS_ENDING_IN_ZHONG
    ):
        return False
    before = start - 2
    return before < 0 or not _CJK.match(text[before]) or text[before] in _WORD_BOUNDARY


@cache
def _english_names() -> dict[str, str]:
    """English names of well-known stocks (CATL, Ping An Bank) → the short name stock_basic stores, from
    the curated list the data's names are kept in (a data file, read as such)."""
    with _ENGLISH_NAMES_PATH.open(encoding="utf-8") as handle:
        curated = yaml.safe_load(handle)
    return {str(word).lower(): str(name) for name, words in curated["english"].items() for word in words}


def _english_stock_names(question: Question) -> list[tuple[int, int, str]]:
    """English stock names in an English question, longest first, as the stored short name they name
    (the probe grounds that name): a stock named in English is checked, never assumed."""
    if question.lang is not Lang.EN:
        return []
    names = sorted(_english_names(), key=len, reverse=True)
    pattern = re.compile(r"(?<![a-z0-9])(?:" + "|".join(re.escape(name) for name in names) + r")(?![a-z0-9])")
    return [
        (match.start(), match.end(), _english_names()[match.group()])
        for match in pattern.finditer(question.text)
    ]


def stock_names(question: Question) -> list[tuple[int, int, str]]:
    """Stock names that only the database can ground: (start, end, name)."""
    found: list[tuple[int, int, str]] = _english_stock_names(question)
    for hit in question.hits:
        span = name_around(question, hit)
        if span is not None and not any(s < span[1] and span[0] < e for s, e, _ in found):
            found.append((span[0], span[1], question.raw[span[0] : span[1]]))
    match = _LEADING_NAME.match(question.text)
    if match is not None:
        start, end = match.start("name"), match.end("name")
        clean = not any(question.covered(position) for position in range(start, end))
        plain = not _NOT_NAME_OPENERS.match(match["name"]) and not set(match["name"]) & _NOT_NAME_CHARACTERS
        if clean and plain and all(s != start for s, _, _ in found):
            found.append((start, end, match["name"]))
    return _with_listed_names(question, sorted(found))


def _with_listed_names(question: Question, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Names listed side by side with names found (A、B和C: B between A and the next separator): a plain
    word there, no vocabulary word and none of a quantity's or a period's characters, is a name too."""
    ends = {end for _, end, _ in found}
    for match in _LISTED_NAME.finditer(question.text):
        start, end, name = match.start("name"), match.end("name"), match["name"]
        if match.start() not in ends or any(s < end and start < e for s, e, _ in found):
            continue
        if any(question.covered(position) for position in range(start, end)):
            continue
        if not set(name) & _NOT_NAME_CHARACTERS and not _NOT_NAME_OPENERS.match(name):
            found.append((start, end, question.raw[start:end]))
            ends.add(end)
    return sorted(found)
