"""A loss or a profit named without a number (亏损, net loss, loss-making / 盈利, profitable) is the sign
of a profit figure: below zero for a loss, above zero for a profit.

The SQL's comparisons of a profit column (net profit, operating or total profit) with zero must keep
that side; comparisons only the other way (n_income_attr_p > 0 for "net loss") answer the opposite.
Read only with a profit figure named (净利润…亏损, net loss): 亏损股 alone may be read from the P/E's
sign. Both words in one question (扭亏为盈, swung from a loss to a profit) are not read; a SQL that
compares no profit column with zero is undecidable.
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

_LOSS = re.compile(r"亏损|净亏|\b(?:net loss(?:es)?|loss[- ]making|lost money|in the red|unprofitable)\b")
_PROFIT = re.compile(r"盈利|\b(?:profitable|made a profit|in the black|turned a profit)\b")
_NET = re.compile(r"净|\bnet\b")
_PROFIT_COLUMNS = {"n_income", "n_income_attr_p", "operate_profit", "total_profit"}
_BELOW, _ABOVE = {"<", "<="}, {">", ">="}


@dataclass(frozen=True)
class ProfitSignDetail:
    kind: ClassVar[Kind] = Kind.PROFIT_SIGN
    loss: bool  # a loss asked: the profit below zero

    def check(self, sql: Sql) -> Finding:
        sides = set()
        for comparison in sql.comparisons:
            if comparison.number != 0 or comparison.negated:
                continue
            subject = strip(comparison.subject)
            if not columns_of(subject) or not columns_of(subject) <= _PROFIT_COLUMNS:
                continue
            sides.add("below" if comparison.op in _BELOW else "above" if comparison.op in _ABOVE else "")
        wanted = "below" if self.loss else "above"
        if wanted in sides:
            return passed(f"a profit figure is kept {wanted} zero")
        if sides & {"below", "above"}:
            return failed(
                Attribution.CONDITION,
                f"the profit is kept {'above' if self.loss else 'below'} zero; "
                f"the question asks for a {'loss' if self.loss else 'profit'}",
            )
        return undecided("no profit figure is compared with zero")


def extract(question: Question) -> list[Constraint]:
    loss, profit = _LOSS.search(question.text), _PROFIT.search(question.text)
    if (loss is None) == (profit is None):
        return []  # neither, or a swing from one to the other
    cue = loss or profit
    assert cue is not None
    named = any(
        question.vocabulary.metrics[hit.key].columns & _PROFIT_COLUMNS
        for hit in question.hits_of(Category.METRIC)
    )
    if not named and not _NET.search(cue.group()):
        return []  # 亏损股 may be read from the P/E's sign: only a profit figure named is judged
    span = question.span(cue.start(), cue.end())
    side_zh, side_en = ("< 0", "below zero") if loss else ("> 0", "above zero")
    text = question.says(f"“{span.text}”：利润 {side_zh}", f"“{span.text}”: the profit {side_en}")
    return [Constraint(span, text, question.lang, ProfitSignDetail(loss is not None))]
