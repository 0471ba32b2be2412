"""What a question names that the data must ground: possible stock names or short names (茅台, 招行,
宁德), pinyin initials (gzmt), six-digit codes, industries, indexes, days and years. Pure text work on
the checklist's reading of the question (its vocabulary hits and constraints); nothing is queried here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from pypinyin import Style, lazy_pinyin

from backend.domain.pipeline.validate.checklist import Constraint
from backend.domain.pipeline.validate.checklist.entities import EntityRef
from backend.domain.pipeline.validate.checklist.kinds.date import DateDetail
from backend.domain.pipeline.validate.checklist.kinds.entity import EntityDetail
from backend.domain.pipeline.validate.checklist.kinds.negation import NegationDetail
from backend.domain.pipeline.validate.checklist.question import Question

MAX_NAME_CANDIDATES = 40
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
_LATIN = re.compile(r"(?<![a-z0-9])[a-z]{3,8}(?![a-z0-9])")
# Substrings that are question words, not names (a name containing them would match everywhere).
_NOT_NAMES = {
    "股票", "今日", "今天", "最新", "哪些", "多少", "上涨", "下跌", "涨幅", "跌幅", "平均", "统计", "连续",
    "最近", "以来", "之间", "成分", "成分股", "公司", "个股", "板块", "行业", "交易", "市场", "上市", "一共",
    "超过", "低于", "高于", "大于", "小于", "不是", "属于", "排名", "数量", "前十", "最高", "最低", "最大",
    "最小", "收盘", "开盘", "合计", "总额",
}  # fmt: skip


@dataclass(frozen=True)
class NameMention:
    text: str  # as written: 茅台, 招行, gzmt
    initials: str  # pypinyin first letters of a Chinese mention ("" for latin), e.g. gzmt


@dataclass(frozen=True)
class Mentions:
    names: tuple[NameMention, ...]
    entities: tuple[EntityRef, ...]  # industries, groups, indexes, exchanges, boards, codes named
    days: tuple[date, ...]
    years: tuple[int, ...]


def _initials(text: str) -> str:
    return "".join(lazy_pinyin(text, style=Style.FIRST_LETTER)).lower()


def find_mentions(question: Question, constraints: list[Constraint]) -> Mentions:
    entities: list[EntityRef] = []
    names: dict[str, NameMention] = {}
    days: set[date] = set()
    years: set[int] = set()
    for constraint in constraints:
        detail = constraint.detail
        if isinstance(detail, EntityDetail | NegationDetail):
            if detail.entity.category is None:
                names[detail.entity.key] = NameMention(detail.entity.key, _initials(detail.entity.key))
            else:
                entities.append(detail.entity)
        elif isinstance(detail, DateDetail):
            if detail.day is not None:
                days.add(detail.day)
            years.add(detail.year)
    # Short names the checklist does not see as names: every 2–4 character piece of the text left
    # once vocabulary words are taken out (茅台 in 茅台的收盘价, 招行 in 招行和平安的市值).
    text = list(question.text)
    for hit in question.hits:
        for position in range(hit.start, hit.end):
            text[position] = " "
    rest = "".join(text)
    for run in _CJK_RUN.findall(rest):
        for size in (4, 3, 2):
            for start in range(len(run) - size + 1):
                piece = run[start : start + size]
                if piece not in _NOT_NAMES and not any(word in piece for word in ("的", "和", "与", "或")):
                    names.setdefault(piece, NameMention(piece, _initials(piece)))
    for word in _LATIN.findall(rest):
        names.setdefault(word, NameMention(word, ""))
    return Mentions(
        names=tuple(list(names.values())[:MAX_NAME_CANDIDATES]),
        entities=tuple(dict.fromkeys(entities)),
        days=tuple(sorted(days)),
        years=tuple(sorted(years)),
    )
