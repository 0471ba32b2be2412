"""What is counted: a question that counts stocks, companies or occurrences (多少只 / 几家 / 数量 / 次 /
how many / number of / count) with no word for distinct values (不同的, distinct, …) is answered by
counting rows or stocks. A distinct count of another column counts something else: of a measure
(uniqExactIf(pct_chg, pct_chg > 0): different change values, not stocks), or of a dimension the question
never names where it counts (count(DISTINCT industry) for how many loss-makers: industries, not
companies). Likewise an average or sum over DISTINCT values drops the repeated ones (flat days counted
once). Identifiers (ts_code, name) and the time keys (trade_date, end_date: days or periods traded,
often what is counted) are left alone — unless the question asks how many times (多少次, how many
times: occurrences), which a count of different stocks undercounts (a stock hitting the limit twice in a
month). A share of stocks (红盘率, 占比, what percent of stocks) counts stocks too: a distinct count of a
measure (uniqExactIf(close, close > ma): different closes) fails there as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import distinct
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, first_argument, function_name

_CUE = re.compile(
    r"多少\s*(?:只|家|个|支|次|天|股票|公司)|(?<!哪)几\s*(?:只|家|个|支|次)|数量|家数|个数|只数|\d+\s*次|[一二两三四五六七八九十]+\s*次"
    r"|\bhow many\b|\bnumber of\b|\bcount\b|\bcounts\b|\btimes\b",
    re.IGNORECASE,
)
_AGGREGATE_CUE = re.compile(
    r"平均|均值|均价|日均|合计|总和|总计|\b(?:average|mean|sum|total)\b", re.IGNORECASE
)
# a share of stocks (红盘率, 占比, what percent of): stocks counted over stocks
_SHARE_CUE = re.compile(
    r"率|占比|比例|比重|百分之|\b(?:percent(?:age)?|share|proportion|fraction)\b", re.IGNORECASE
)
# how many times: occurrences counted, with no count of stocks asked beside them (涨停超过5次的有几只)
_OCCURRENCES = re.compile(r"多少次|几次|次数|\b(?:how many times|number of times)\b", re.IGNORECASE)
_STOCKS_COUNTED = re.compile(
    r"多少\s*(?:只|家|支|个股票|个公司)|(?<!哪)几\s*(?:只|家|支)"
    r"|\bhow many (?:\w+ )?(?:stocks|companies|firms|shares)\b",
    re.IGNORECASE,
)
_IDENTIFIERS = frozenset({"ts_code", "con_code", "index_code", "name", "symbol", "code", "fullname"})
_TIME_KEYS = frozenset({"trade_date", "end_date", "ann_date", "f_ann_date", "cal_date"})
# A dimension counted where the question names it (几个行业, how many boards, 上市日期的个数).
_DIMENSION_WORDS = {
    "industry": r"行业|industr|sector",
    "market": r"板块|board|market|segment",
    "exchange": r"交易所|沪|深|exchange",
    "area": r"地区|地域|省|城市|area|region|province|city|cities",
    "list_date": r"上市日|listing dates?\b|listing days?\b",
}
_DISTINCT_COUNTING = ("uniq", "approxdistinct")


def _distinct_counted(node: exp.Expr) -> exp.Expr | None:
    """The argument of count(DISTINCT x) / uniq…(x, …), or None for other nodes."""
    if isinstance(node, exp.Count) and isinstance(node.this, exp.Distinct):
        arguments = node.this.expressions
        return arguments[0] if len(arguments) == 1 else None
    if isinstance(node, exp.Func) and function_name(node).startswith(_DISTINCT_COUNTING):
        return first_argument(node)
    return None


@dataclass(frozen=True)
class CountedThingDetail:
    kind: ClassVar[Kind] = Kind.COUNTED_THING
    counts: bool  # the question counts (a statistic over DISTINCT values is read either way)
    named: tuple[str, ...]  # the dimension columns the question names
    occurrences: bool = False  # how many times: a stock counted once per occurrence
    # a share asked: the stored columns of metrics, whose different values are never the stocks counted
    measures: frozenset[str] = frozenset()

    def check(self, sql: Sql) -> Finding:
        for node in sql.nodes():
            if isinstance(node, (exp.Avg, exp.Sum)) and isinstance(node.this, exp.Distinct):
                return failed(
                    Attribution.AGGREGATION,
                    f"`{node.sql(dialect='clickhouse')}` drops repeated values the question counts in",
                )
            counted = _distinct_counted(node)
            if not isinstance(counted, exp.Column):
                continue
            column = counted.name.lower()
            if self.occurrences and column in _IDENTIFIERS:
                return failed(
                    Attribution.AGGREGATION,
                    f"`{node.sql(dialect='clickhouse')}` counts each {column} once; the question counts "
                    "how many times it happened",
                )
            if not self.counts and column not in self.measures:
                continue
            if column in _IDENTIFIERS or column in _TIME_KEYS or column in self.named:
                continue
            return failed(
                Attribution.AGGREGATION,
                f"`{node.sql(dialect='clickhouse')}` counts different values of {column}, "
                "not the stocks or occurrences the question counts",
            )
        return passed("nothing but rows, stocks or periods is counted distinct")


def extract(question: Question) -> list[Constraint]:
    text = question.text
    if distinct.extract(question):
        return []
    cue = next((match for match in _CUE.finditer(text) if not question.covered(match.start())), None)
    counts = cue is not None
    # 率 ends metric words too (市盈率): only a rate no vocabulary word covers (红盘率) is a share
    share = next(
        (m for m in _SHARE_CUE.finditer(text) if m.group() != "率" or not question.covered(m.start())), None
    )
    cue = cue or _AGGREGATE_CUE.search(text) or share
    if cue is None:
        return []
    named = tuple(
        column for column, words in _DIMENSION_WORDS.items() if re.search(words, text, re.IGNORECASE)
    )
    occurrences = _OCCURRENCES.search(text) is not None and _STOCKS_COUNTED.search(text) is None
    metrics = question.vocabulary.metrics.values()
    measures = frozenset(column for metric in metrics for column in metric.columns) if share else frozenset()
    span = question.span(cue.start(), cue.end())
    says = question.says(
        f"“{span.text}”：数的是股票或次数，不去重",
        f"“{span.text}”: stocks or occurrences counted, repeats kept",
    )
    detail = CountedThingDetail(counts, named, occurrences, measures - _IDENTIFIERS - _TIME_KEYS)
    return [Constraint(span, says, question.lang, detail)]
