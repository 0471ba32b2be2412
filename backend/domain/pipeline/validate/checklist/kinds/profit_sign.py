"""A loss or a profit named without a number (亏损, net loss, loss-making / 盈利, profitable) is the sign
of a profit figure: below zero for a loss, above zero for a profit.

The SQL's comparisons of a profit column (net profit, operating or total profit) with zero must keep
that side; comparisons only the other way (n_income_attr_p > 0 for "net loss") answer the opposite.
Read only with a profit figure named (净利润…亏损, net loss): 亏损股 alone may be read from the P/E's
sign. Both words in one question (扭亏为盈, swung from a loss to a profit) are not read; a SQL that
compares no profit column with zero is undecidable.

Loss-makers set aside beside a P/E (剔除亏损股, loss-makers excluded) are the stocks whose P/E is empty (the
stored P/E is null for a loss): a SQL reading them from a report's profit compared with zero (a quarter's
n_income_attr_p < 0, joined in) picks another set — other periods, stocks with no such report dropped —
and is undecidable; one reading no profit column passes (its P/E comparisons drop the empty ones).

A sign said in words right after a stored metric (ROE是负数, 市盈率为负, ROE is negative) keeps that
metric's column below (above, 为正) zero in the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, strip
from backend.domain.pipeline.validate.checklist.vocabulary import Category

_LOSS = re.compile(
    r"亏损|净亏|\b(?:net loss(?:es)?|loss[- ]making|loss[- ]makers?|lost money|in the red|unprofitable)\b"
)
# P/E columns, null for a loss-maker: the question's loss-makers set aside beside them are their empty values
_EMPTY_FOR_LOSS = {"pe", "pe_ttm"}
_SET_ASIDE = re.compile(
    r"剔除|排除|去除|去掉|除去|不含|不包括|不算|不计|除外"
    r"|\b(?:exclud\w*|leav\w* out|without|not counted|ignor\w*)\b"
)
_PROFIT = re.compile(r"盈利|\b(?:profitable|made a profit|in the black|turned a profit)\b")
_NET = re.compile(r"净|\bnet\b")
_PROFIT_COLUMNS = {"n_income", "n_income_attr_p", "operate_profit", "total_profit"}
_BELOW, _ABOVE = {"<", "<="}, {">", ">="}
# A sign said in words right after a metric: 是负数 / 为负 / 小于零 is below zero, 是正数 / 为正 above.
_SIGN_AFTER_METRIC = re.compile(
    r"\s*(?:的值)?\s*(?:(?:是|为)?\s*(?:(?P<negative>负数|负值)|(?P<positive>正数|正值))"
    r"|为(?:(?P<negative_short>负)|(?P<positive_short>正))(?=$|[^\u4e00-\u9fff]|且|的|、|和|或|而))"
    r"|\s+(?:is|was|are|were)\s+(?:(?P<negative_en>negative)|(?P<positive_en>positive))\b"
)


@dataclass(frozen=True)
class ProfitSignDetail:
    kind: ClassVar[Kind] = Kind.PROFIT_SIGN
    loss: bool  # a loss asked: the profit below zero
    columns: frozenset[str] = frozenset(_PROFIT_COLUMNS)  # the figure whose sign is asked

    def check(self, sql: Sql) -> Finding:
        sides = set()
        for comparison in sql.comparisons:
            if comparison.number != 0 or comparison.negated:
                continue
            subject = strip(comparison.subject)
            if not columns_of(subject) or not columns_of(subject) <= self.columns:
                continue
            sides.add("below" if comparison.op in _BELOW else "above" if comparison.op in _ABOVE else "")
        wanted, other = ("below", "above") if self.loss else ("above", "below")
        figure = "a profit figure" if self.columns == _PROFIT_COLUMNS else "/".join(sorted(self.columns))
        if wanted in sides:
            return passed(f"{figure} is kept {wanted} zero")
        if other in sides:
            return failed(
                Attribution.CONDITION,
                f"{figure} is kept {other} zero; the question asks for it {wanted} zero",
            )
        return undecided(f"{figure} is not compared with zero")


@dataclass(frozen=True)
class LossBesidePeDetail:
    kind: ClassVar[Kind] = Kind.PROFIT_SIGN

    def check(self, sql: Sql) -> Finding:
        read = sorted(
            {
                column
                for comparison in sql.comparisons
                if comparison.number == 0
                for column in columns_of(strip(comparison.subject)) & _PROFIT_COLUMNS
            }
        )
        if read:
            return undecided(
                f"loss-makers are read from a report's {'/'.join(read)} compared with zero; beside a P/E "
                "they are the stocks whose P/E is empty — which stocks drop out depends on the report read"
            )
        return passed("no report's profit is read for the loss-makers: an empty P/E drops them")


def _loss_beside_pe(question: Question, cue: re.Match[str]) -> list[Constraint]:
    """Loss-makers set aside (剔除亏损股, excluding loss-makers) in a question naming a P/E."""
    metrics = question.vocabulary.metrics
    pe = any(metrics[hit.key].columns & _EMPTY_FOR_LOSS for hit in question.hits_of(Category.METRIC))
    if not pe or _SET_ASIDE.search(question.text) is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：市盈率为空的股票（不是某期报表的利润）",
        f"“{span.text}”: the stocks whose P/E is empty (not a report's profit)",
    )
    return [Constraint(span, text, question.lang, LossBesidePeDetail())]


def _signs_said(question: Question) -> list[Constraint]:
    """A stored metric followed by its sign in words (ROE是负数): that column kept on that side of zero."""
    found = []
    for hit in question.hits_of(Category.METRIC):
        metric = question.vocabulary.metrics[hit.key]
        sign = _SIGN_AFTER_METRIC.match(question.text, hit.end)
        if sign is None or metric.derived or metric.negated:
            continue
        below = bool(sign["negative"] or sign["negative_short"] or sign["negative_en"])
        span = question.span(hit.start, sign.end())
        side_zh, side_en = ("< 0", "below zero") if below else ("> 0", "above zero")
        text = question.says(f"“{span.text}”：{hit.key} {side_zh}", f"“{span.text}”: {hit.key} {side_en}")
        # a profit's sign may be read on any profit column (净利润为正: n_income or n_income_attr_p)
        profit = bool(metric.columns & _PROFIT_COLUMNS)
        columns = frozenset(_PROFIT_COLUMNS) if profit else metric.columns
        found.append(Constraint(span, text, question.lang, ProfitSignDetail(below, columns)))
    return found


def extract(question: Question) -> list[Constraint]:
    said = _signs_said(question)
    loss, profit = _LOSS.search(question.text), _PROFIT.search(question.text)
    if (loss is None) == (profit is None):
        return said  # neither, or a swing from one to the other
    cue = loss or profit
    assert cue is not None
    named = any(
        question.vocabulary.metrics[hit.key].columns & _PROFIT_COLUMNS
        for hit in question.hits_of(Category.METRIC)
    )
    if not named and not _NET.search(cue.group()):
        # 亏损股 may be read from the P/E's sign: only a profit figure named is judged
        return sorted([*said, *(_loss_beside_pe(question, cue) if loss else [])], key=lambda c: c.span.start)
    span = question.span(cue.start(), cue.end())
    side_zh, side_en = ("< 0", "below zero") if loss else ("> 0", "above zero")
    text = question.says(f"“{span.text}”：利润 {side_zh}", f"“{span.text}”: the profit {side_en}")
    return sorted(
        [*said, Constraint(span, text, question.lang, ProfitSignDetail(loss is not None))],
        key=lambda constraint: constraint.span.start,
    )
