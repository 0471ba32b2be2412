"""A closing high (收盘价创60日新高, closed at a 60-day high) is a close at the highest close of the window.

The window's maximum is taken over the closes: a maximum of the intraday highs answers "traded at a
new high" (the close rarely reaches it), and comparing today's high with it drops the close the
question names. Judged on the tree: a maximum of close passes; maxima of high or low only fail; a
window maximum the tree does not show (arrays, NOT EXISTS) is undecidable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import COUNT, Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name

_CUE = re.compile(
    rf"收盘价?(?:创出?|再创|创下)?\s*(?:近|最近|过去)?\s*{COUNT}\s*(?:个交易日|日|天|周|个月|年)\s*(?:收盘)?新高"
    rf"|\bclos(?:ed|es|ing)\s+at\s+(?:a|an|its|their|the)\s+(?:new\s+)?"
    rf"{COUNT}[- ](?:trading[- ])?day\s+high\b"
    rf"|\b{COUNT}[- ](?:trading[- ])?day\s+closing\s+high\b",
    re.IGNORECASE,
)
_MAXIMA = {"max", "maxif"}


@dataclass(frozen=True)
class ClosingHighDetail:
    kind: ClassVar[Kind] = Kind.CLOSING_HIGH

    def check(self, sql: Sql) -> Finding:
        maxima = [
            node
            for node in sql.tree.find_all(exp.Max, exp.Anonymous, exp.CombinedAggFunc)
            if isinstance(node, exp.Max) or function_name(node) in _MAXIMA
        ]
        over = set().union(*(columns_of(node.this if isinstance(node, exp.Max) else node) for node in maxima))
        if "close" in over:
            return passed("the window's maximum is taken over the closes")
        if over & {"high", "low"}:
            return failed(
                Attribution.ENTITY_MAPPING,
                "the window's maximum is taken over the intraday highs; a closing high is over the closes",
            )
        return undecided("no maximum of a price is read: how the new high is found is not read")


def extract(question: Question) -> list[Constraint]:
    cue = _CUE.search(question.text)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：窗口内收盘价的最高值", f"“{span.text}”: the highest close of the window"
    )
    return [Constraint(span, text, question.lang, ClosingHighDetail())]
