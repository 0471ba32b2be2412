"""A gap given a size (gapped up more than 5%, 向上跳空高开3%以上, 跳空高开超过3%) is a change of the open
over the previous close; the `number` kind reads the threshold. The change the SQL compares must be
measured from the open: one measured from another price of the day (high / pre_close - 1 > 0.05)
answers "traded 5% above the previous close at some point", another measure.

Read on the tree: the changes (a ratio or difference of two prices) in comparisons with a constant.
One that reads the open passes (open / pre_close, t.open / y.close); only other prices fail; no
change of two prices compared (pct_chg, a stored change) is undecidable.
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
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, bar_prices

_CUE = re.compile(r"(?:向上|向下)?跳空(?:高开|低开)?|\bgap(?:ped|s)?[ -](?:up|down)\b", re.IGNORECASE)
_SIZE_AFTER = re.compile(r"^[^,，。;；]{0,16}?\d+(?:\.\d+)?\s*(?:%|％|percent)", re.IGNORECASE)
_OTHERS = ("high", "low", "close")


@dataclass(frozen=True)
class GapSizeDetail:
    kind: ClassVar[Kind] = Kind.GAP_SIZE

    def check(self, sql: Sql) -> Finding:
        measured: set[str] = set()
        for comparison in sql.comparisons:
            for change in comparison.subject.find_all(exp.Div, exp.Sub):
                first, second = bar_prices(change.this), bar_prices(change.expression)
                if first and second:
                    measured |= first | second
        if "open" in measured:
            return passed("the gap is measured from the open")
        others = sorted(measured & set(_OTHERS))
        if others:
            return failed(
                Attribution.ENTITY_MAPPING,
                f"the change compared is measured from {', '.join(others)}, not from the open",
            )
        return undecided("no change of two prices is compared: how the gap is measured is not read")


def extract(question: Question) -> list[Constraint]:
    for match in _CUE.finditer(question.text):
        if not _SIZE_AFTER.match(question.text[match.end() :]):
            continue
        span = question.span(match.start(), match.end())
        text = question.says(
            f"“{span.text}”：开盘价相对前收盘价的变化",
            f"“{span.text}”: the open's change over the previous close",
        )
        return [Constraint(span, text, question.lang, GapSizeDetail())]
    return []
