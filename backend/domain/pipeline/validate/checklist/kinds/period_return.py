"""A period's return, not a day's change: 全年涨幅 / 今年以来涨了 / 年初至今 / 区间涨幅 / 涨幅翻倍 /
year to date / so far this year / full-year gain → a gain between two closes of the period.

The gain over a period is written as a ratio of two prices (the period's last close over the base
close, through argMax, sumIf, a join of two days …) or compounded daily changes. A SQL whose only
gain is the stored one-day `pct_chg` (or `change`) compared or shown row by row answers "rose that
much on one day". Sums of daily changes approximate the return: undecidable.
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
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    enclosing_select,
    function_name,
)

_GAIN_ZH = r"(?:涨幅|涨跌幅|收益率?|回报率?|涨了|上涨|下跌|跌了|跌幅|翻倍|翻番)"
_CUE = re.compile(
    rf"(?:全年|年内|年初至今|年初以来|今年以来|本年以来|年度|整年|区间|累计|(?:\d{{4}}年|今年|年初)以来)的?\s*{_GAIN_ZH}"
    # 2025年以来各板块的平均涨幅, 近20个交易日涨幅: a span, then its gain (not 每天/连续/都: a move each day)
    rf"|(?:(?:\d{{4}}年|今年|年初)以来|(?:近|最近|过去)\s*{COUNT}\s*个?\s*(?:交易日|天|日|周|个月|月|年))"
    r"[^，,。？?；;每连都天日]{0,12}?(?:涨幅|跌幅|涨跌幅|收益率|回报率)"
    r"|涨幅翻倍|股价翻倍"
    r"|\b(?:year[- ]to[- ]date|ytd|so far this year|since the (?:start|beginning) of the year"
    r"|full[- ]year (?:gain|return|change)|for the (?:whole |full )?year|cumulative (?:gain|return)"
    r"|(?:gain|return)s? over the (?:whole |full )?year)\b",
    re.IGNORECASE,
)
_DAILY_CHANGE = {"pct_chg", "change"}
_PRICES = {"close", "open", "high", "low", "adj_close", "qfq_close", "hfq_close"}  # not pre_close: one day
_COMPOUNDING = {"exp", "exp2", "exp10", "arrayproduct", "product"}


@dataclass(frozen=True)
class PeriodReturnDetail:
    kind: ClassVar[Kind] = Kind.PERIOD_RETURN

    def check(self, sql: Sql) -> Finding:
        if any(_between_prices(sql, node) for node in sql.nodes() if isinstance(node, _PRICE_PAIRS)):
            return passed("the gain compares two prices")
        if any(function_name(node) in _COMPOUNDING for node in sql.nodes() if isinstance(node, exp.Func)):
            return passed("the daily changes are compounded")
        daily = [
            node
            for node in sql.nodes()
            if isinstance(node, exp.Column) and node.name.lower() in _DAILY_CHANGE
        ]
        if not daily:
            return undecided("no price ratio and no daily change: how the gain is computed is not read")
        aggregated = [node.find_ancestor(exp.AggFunc, exp.Window) for node in daily]
        if any(isinstance(node, exp.Avg) for node in aggregated):
            return failed(
                Attribution.AGGREGATION,
                "the SQL averages the daily changes: a typical day's move, not the gain over the period",
            )
        if any(node is not None for node in aggregated):
            return undecided("daily changes are aggregated: a sum only approximates the period's return")
        return failed(
            Attribution.TIME_SCOPE,
            "the SQL reads the stored one-day change, not the gain over the period asked",
        )


_PRICE_PAIRS = (exp.Div, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Sub)


def _between_prices(sql: Sql, node: exp.Binary) -> bool:
    """A ratio, difference or comparison with a price on both sides (close / base close)."""
    select = enclosing_select(node)
    left = columns_of(sql.resolve(node.this, select))
    right = columns_of(sql.resolve(node.expression, select))
    return bool(left & _PRICES) and bool(right & _PRICES)


def extract(question: Question) -> list[Constraint]:
    cue = question.first_cue(_CUE)
    if cue is None:
        return []
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：整段时期的涨幅（两个收盘价之比），不是某一天的涨跌幅",
        f"“{span.text}”: the gain over the period (a ratio of two closes), not one day's change",
    )
    return [Constraint(span, text, question.lang, PeriodReturnDetail())]
