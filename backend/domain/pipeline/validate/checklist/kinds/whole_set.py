"""A statistic asked of the whole set — 多少 / 平均 / how many / total, with no per-group cue — is one
figure: an answer that groups by a dimension the question never names (industry, exchange, board,
region, not even loosely: 沪深, sector) splits it into one figure per group. A count of a dimension's
own values (几个行业, how many industries) grouped by that dimension counts inside each value instead
of counting the values; one that groups by another dimension (boards) and never reads the counted one
counts that dimension's values instead. Only the answer's own SELECT is judged for a split (inner
groupings may build the figure); a SQL made of several queries is undecidable. Things set side by
side (Zhejiang vs Jiangsu, 沪市对比深市) or a figure asked for each of them (… how many each?, 各自)
ask one figure per thing, of a dimension this reading may not know (provinces): a split is then
undecidable, not unasked. So do names listed
side by side that the vocabulary does not know (For Guangdong, Zhejiang and Jiangsu, how many …).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import per_group, per_period
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of

# Dimensions whose values a question may count, by the words that name them.
_COUNTED_WORDS = {
    "industry": r"行业|industries|sectors",
    "exchange": r"交易所|exchanges",
    "market": r"\bboards",
    "area": r"地区|省份|省市|regions|areas|provinces",
}
_SPLITTING = {"industry", "exchange", "market", "area"}
_CONTRASTED = re.compile(
    r"对比|相比|比较|各自|分别|\b(?:vs\.?|versus|compared (?:with|to)|respectively)(?=\W|$)"
    r"|\beach\s*(?:[?？.。!]|$)",
    re.IGNORECASE,
)


# Names listed side by side that the vocabulary does not know (For Guangdong, Zhejiang and Jiangsu, …;
# 广东、浙江和江苏的公司…): places or other values a figure each may be asked of.
_LISTED_NAMES = re.compile(
    r"\b[A-Z][a-z]+(?:,\s*[A-Z][a-z]+)*,?\s+(?:and|or)\s+[A-Z][a-z]+\b"
    r"|[\u4e00-\u9fff]{2,4}(?:、[\u4e00-\u9fff]{2,4})+(?:(?:和|与|及)[\u4e00-\u9fff]{2,4})?"
)


def _lists_unknown_names(question: Question) -> bool:
    return any(
        not any(question.covered(position) for position in range(*match.span()))
        for match in _LISTED_NAMES.finditer(question.raw)
    )


def _counted_pattern(words: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?:几个|多少个)\s*(?:不同的?)?(?:{words})|(?:{words})(?:的)?(?:有|共有|一共有)?(?:几个|多少个|数量|个数)"
        rf"|\b(?:how many|number of)\s+(?:different\s+|distinct\s+)?(?:{words})\b"
    )


_COUNTED = {column: _counted_pattern(words) for column, words in _COUNTED_WORDS.items()}


@dataclass(frozen=True)
class WholeSetDetail:
    kind: ClassVar[Kind] = Kind.WHOLE_SET
    named: frozenset[str]  # group columns the question names (a word, an entity, loosely)
    counted: str  # "" or the dimension whose values are counted
    contrasted: bool = False  # things set side by side: one figure each may be asked

    def check(self, sql: Sql) -> Finding:
        if not isinstance(sql.tree, exp.Select):
            return undecided("the SQL combines several queries; what each groups by is not read")
        keys = set().union(*(columns_of(key) for key in per_group.group_keys(sql, sql.tree)))
        if self.counted and self.counted in keys:
            return failed(
                Attribution.GROUPING,
                f"the answer counts inside each {self.counted}; the question counts {self.counted} values",
            )
        if self.counted and self.counted not in columns_of(sql.tree):
            other = sorted(_grouped_anywhere(sql) & _SPLITTING - {self.counted})
            if other:
                return failed(
                    Attribution.GROUPING,
                    f"the SQL groups by {', '.join(other)} and never reads {self.counted}: "
                    f"it counts {other[0]} values, not {self.counted} values",
                )
        unasked = sorted(keys & _SPLITTING - self.named)
        if unasked and self.contrasted:
            return undecided(
                f"the answer is split by {', '.join(unasked)}; the question sets things side by side"
            )
        if unasked:
            return failed(
                Attribution.GROUPING,
                f"the answer is split by {', '.join(unasked)}, which the question never names",
            )
        return passed("the answer is not split by a dimension the question does not name")


def _grouped_anywhere(sql: Sql) -> set[str]:
    """The columns every grouping of the SQL (inner queries too) reads."""
    return set().union(*(columns_of(key) for key in per_group.grouping_expressions(sql)))


def extract(question: Question) -> list[Constraint]:
    counted = next((column for column, pattern in _COUNTED.items() if pattern.search(question.text)), "")
    cue = _COUNTED[counted].search(question.text) if counted else question.statistic_cue()
    if cue is None or per_group.extract(question) or per_period.extract(question):
        return []
    span = question.span(*cue.span())
    text = (
        question.says(f"{span.text}：统计 {counted} 的个数", f"{span.text}: the number of {counted} values")
        if counted
        else question.says(
            f"{span.text}：一个总体数字，不按未提及的维度分组",
            f"{span.text}: one figure for the whole set, not split by an unnamed dimension",
        )
    )
    contrasted = _CONTRASTED.search(question.text) is not None or _lists_unknown_names(question)
    detail = WholeSetDetail(per_group.named_dimensions(question), counted, contrasted)
    return [Constraint(span, text, question.lang, detail)]
