"""Aggregates and the set they run over: 平均/average → avg, 合计/总额/total → sum; 前N…的平均 → over the N.

An average or total the question asks for must be computed (avg, avgIf, sum(x)/count(), …) on the
metric named with it. When it follows a top-k ("涨幅前三的股票及其平均市值", "the three biggest
gainers and their average market cap") it must be computed over the top-k rows: in a SELECT that
reads them from a subquery or CTE cut by ORDER BY … LIMIT k (or LIMIT k BY, or rn <= k), not in
the SELECT that does the cut — there the aggregate sees every row before the LIMIT.

How a group's figure is defined is asked of the SQL too, and what the question does not settle is
left undecided: an average of averages (each stock weighing the same, not each bar) where one average
was asked; a daily average of a flow (日均成交额) taken over the stock-days of a group rather than per
stock or over the group's daily totals; a group's average only filtered on (HAVING) and not shown.
An average of a valuation multiple whose missing values are filled with zero (avg(ifNull(pe_ttm, 0)):
loss-makers have no P/E) averages in a multiple nobody has, unless the question says to count them as 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import count, top_k
from backend.domain.pipeline.validate.checklist.kinds.per_group import per_day_divisor
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    direction,
    enclosing_select,
    function_name,
    is_power_of_ten,
    number_value,
)


class Function(StrEnum):
    AVERAGE = "average"
    TOTAL = "total"
    MEDIAN = "median"
    STDDEV = "standard deviation"


_AVERAGE = re.compile(
    r"平均|均值|日均(?!线|量)|均线|均量|\b(?:moving average|average[ds]?|averaging|mean|avg)\b"
)
# 总额 and "total" alone also name single figures (净利润总额, total profit): only these ask for a sum.
_TOTAL = re.compile(r"合计|总和|总计|之和|加总|\b(?:in total|sum of|combined)\b")
_CLAUSE = re.compile(r"[，,。；;？?]")
_TOTAL_BEFORE_METRIC = re.compile(r"总|\btotal\b")
_SUMMED = {"amount", "vol", "weight"}  # flows and index weights: 总成交额, total trading amount, total weight
_IMPLIED_METRIC = {"均线": "close", "moving average": "close", "均量": "vol"}
_AVERAGE_NAMES = {"avgif", "avgornull", "arrayavg", "avgweighted"}
_TOTAL_NAMES = {"sumif", "sumornull", "arraysum", "sumkahan"}
# A statistic named outright: the mean or the variance is another figure (中位数 ≠ 平均, 标准差 ≠ 方差).
_NAMED_STATISTICS = (
    (re.compile(r"中位数|中值|\bmedian\b"), Function.MEDIAN),
    (re.compile(r"标准差|\b(?:standard deviation|std ?dev)\b"), Function.STDDEV),
)
_MEDIAN_PREFIXES = ("median", "quantile")
_UNIT_DIVISOR = 1000  # from 千元 up: a power of ten this large converts a unit, it counts no days
# Valuation multiples: missing (a loss, no sales) is no multiple, and zero is not one either.
_MULTIPLES = frozenset({"pe", "pe_ttm", "pb", "ps", "ps_ttm"})
_ZERO_SAID = re.compile(r"(?:按|记为|算作|当作|视为|计为)\s*(?:0|零)|\b(?:as|at) (?:0|zero)\b", re.IGNORECASE)
_STDDEV_NAMES = {"stddev", "stddevsamp", "stddevpop", "std", "stddevsampstable", "stddevpopstable"}


@dataclass(frozen=True)
class AggregateDetail:
    kind: ClassVar[Kind] = Kind.AGGREGATE
    function: Function
    columns: frozenset[str]  # the aggregated metric's columns; empty when none was named
    over_top: int  # 0, or k when the aggregate must run over the top-k rows
    daily_flow: bool = False  # 日均成交额, daily average volume: a flow averaged over days
    single: bool = True  # the only average asked of this metric (not 平均…的日均…)
    zero_said: bool = False  # missing values to be counted as zero (按0计)

    def check(self, sql: Sql) -> Finding:
        computed = [node for node in sql.nodes() if self._computes(node)]
        if not computed:
            return failed(Attribution.AGGREGATION, f"the SQL computes no {self.function.value}")
        on_metric = [node for node in computed if self._of_metric(sql, node)]
        if not on_metric:
            return undecided(
                f"the SQL computes a {self.function.value}, but not of {'/'.join(sorted(self.columns))}"
            )
        if not self.over_top:
            return self._definition(sql, on_metric)
        if any(sql.reads_cut_rows(node, self.over_top) for node in on_metric):
            return passed(f"the {self.function.value} runs over the top {self.over_top} rows")
        if any(_running(node) for node in on_metric):
            return undecided("a running window aggregate may stop at the top rows")
        return failed(
            Attribution.AGGREGATION,
            f"the {self.function.value} is taken over all rows, not over the top {self.over_top}",
        )

    def _definition(self, sql: Sql, on_metric: list[exp.Expr]) -> Finding:
        """Which rows the average weighs, and whether a group's figure is shown."""
        if self.function is Function.AVERAGE:
            filled = next(
                (column for node in on_metric if (column := _multiple_filled_with_zero(node))), None
            )
            if filled and not self.zero_said:
                return failed(
                    Attribution.AGGREGATION,
                    f"the average fills a missing {filled} with 0: stocks with no multiple (loss-makers) "
                    "are averaged in as zero instead of left out",
                )
            if self.single and any(_nested_average(sql, node) for node in on_metric):
                return undecided(
                    "an average of averages: each stock weighs the same, not each bar; the question "
                    "does not say which"
                )
            one_stock = any(_STOCK_CODE.match(text) for text in sql.strings)
            if self.daily_flow and not one_stock and all(_over_group_bars(node) for node in on_metric):
                return undecided(
                    "a daily average of a flow taken over a group's stock-days, not per stock or over "
                    "the group's daily totals"
                )
        if all(node.find_ancestor(exp.Having) is not None for node in on_metric) and _answers_groups(sql):
            return undecided(
                f"the groups' {self.function.value} is only filtered on; the answer does not show it"
            )
        return passed(f"the SQL computes the {self.function.value}")

    def _of_metric(self, sql: Sql, node: exp.Expr) -> bool:
        if not self.columns:
            return True
        # Through subquery outputs: avg(g.gain_pct) averages argMax(close, d) / argMin(close, d) - 1.
        resolved = sql.resolve(node, enclosing_select(node))
        gain = self.columns == frozenset({"pct_chg"})
        return (
            bool(self.columns & columns_of(resolved)) or direction(resolved, self.columns, gain) is not None
        )

    def _computes(self, node: exp.Expr) -> bool:
        name = function_name(node) if isinstance(node, exp.Func) else ""
        if self.function is Function.MEDIAN:
            return name.startswith(_MEDIAN_PREFIXES)
        if self.function is Function.STDDEV:
            # sqrt(varSamp(x)) is a standard deviation written out
            return name in _STDDEV_NAMES or (
                isinstance(node, exp.Sqrt) and function_name(node.this).startswith("var")
            )
        if self.function is Function.AVERAGE:
            if isinstance(node, exp.Avg) or name in _AVERAGE_NAMES:
                return True
            # a count over the days divided by their number (countIf(pct_chg < 0) / count(DISTINCT
            # trade_date)) is the average count per day
            if per_day_divisor(node) and _counts_rows(node.this):
                return True
            # sum(x) / count() or sum(x) / n is an average written out, a unit converted on the way
            # too (sum(x) / 1e5 / count()); sum(x) / 1e8 alone converts a unit
            if not (isinstance(node, exp.Div) and isinstance(_unit_converted(node.this), exp.Sum)):
                return False
            divisor = number_value(node.expression)
            return divisor is None or not (divisor >= _UNIT_DIVISOR and is_power_of_ten(divisor))
        return isinstance(node, exp.Sum) or name in _TOTAL_NAMES


def _multiple_filled_with_zero(node: exp.Expr) -> str | None:
    """The multiple of ifNull(pe_ttm, 0) / coalesce(pb, 0) inside an aggregate."""
    for filled in node.find_all(exp.Coalesce):
        multiples = columns_of(filled.this) & _MULTIPLES
        if multiples and any(number_value(value) == 0 for value in filled.expressions):
            return min(multiples)
    return None


def _counts_rows(node: exp.Expr) -> bool:
    """count() / countIf(…): the rows of every day. A distinct count (uniqExactIf(ts_code, …), count(DISTINCT
    ts_code)) counts each stock once over all the days: divided by the days it is no day's average."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Count):
        return not isinstance(node.this, exp.Distinct)
    return isinstance(node, exp.CountIf) or (
        isinstance(node, exp.Func) and function_name(node) in {"countif", "countornull", "countifornull"}
    )


def _unit_converted(node: exp.Expr) -> exp.Expr:
    """x of x / 1e5 or x * 1e-4 (a unit's power of ten), through brackets; the node itself otherwise."""
    while True:
        if isinstance(node, exp.Paren):
            node = node.this
            continue
        factor = number_value(node.expression) if isinstance(node, exp.Div | exp.Mul) else None
        scale = factor if isinstance(node, exp.Div) or not factor else 1 / factor
        if scale is None or scale < _UNIT_DIVISOR or not is_power_of_ten(scale):
            return node
        node = node.this


def _is_average(node: exp.Expr) -> bool:
    return isinstance(node, exp.Avg) or (isinstance(node, exp.Func) and function_name(node) in _AVERAGE_NAMES)


def _nested_average(sql: Sql, node: exp.Expr) -> bool:
    """avg(x) where x is itself an average read from a subquery or CTE."""
    if not _is_average(node):
        return False
    resolved = sql.resolve(node, enclosing_select(node))
    return any(_is_average(inner) for inner in resolved.find_all(exp.Func) if inner is not resolved)


_STOCK_CODE = re.compile(r"^\d{6}(?:\.[A-Z]{2})?$")
_STOCK_KEYS = {"ts_code", "con_code", "code", "symbol", "name"}


def _grouping(select: exp.Select | None) -> list[exp.Expr] | None:
    group = select.args.get("group") if select is not None else None
    return list(group.expressions) if isinstance(group, exp.Group) else None


def _over_group_bars(node: exp.Expr) -> bool:
    """avg of a raw column in a SELECT that groups by neither the stock nor the day: the average
    stock-day of the group (or of the market when it does not group at all)."""
    # avg(x), or sum(x) / count() written out (count(DISTINCT trade_date) counts days, not stock-days)
    written_out = (
        isinstance(node, exp.Div)
        and isinstance(node.this, exp.Sum)
        and isinstance(node.this.this, exp.Column)
        and isinstance(node.expression, exp.Count)
        and not isinstance(node.expression.this, exp.Distinct)
    )
    plain = isinstance(node, exp.Avg) and isinstance(node.this, exp.Column)
    if not (plain or written_out) or isinstance(node.parent, exp.Window):
        return False
    keys = _grouping(enclosing_select(node)) or []
    names = {key.name.lower() for key in keys if isinstance(key, exp.Column)}
    return not names & (_STOCK_KEYS | {"trade_date"})


def _answers_groups(sql: Sql) -> bool:
    """The outer SELECT answers one row per group of a dimension (not per stock)."""
    tree = sql.tree
    keys = _grouping(tree) if isinstance(tree, exp.Select) else None
    if not keys:
        return False
    names = {key.name.lower() for key in keys if isinstance(key, exp.Column)}
    return bool(names) and not names & _STOCK_KEYS


def _running(node: exp.Expr) -> bool:
    window = node.parent if isinstance(node.parent, exp.Window) else None
    return window is not None and window.args.get("order") is not None


def _metric_columns(question: Question, match: re.Match[str]) -> frozenset[str]:
    word = match.group()
    if word in _IMPLIED_METRIC:
        return frozenset({_IMPLIED_METRIC[word]})
    reach = 4 if question.lang is Lang.ZH else 25
    bound = question.metric_after(match.end(), reach) or question.metric_before(match.start(), 2)
    return bound[1].columns if bound is not None else frozenset()


def _totals_a_count(question: Question, match: re.Match[str]) -> bool:
    """合计/in total/combined said of a count (创业板和科创板合计有多少只, how many in total) with no
    metric of its own: the count is the total asked, nothing is summed."""
    if _metric_columns(question, match):
        return False
    text = question.text
    start = max((m.end() for m in _CLAUSE.finditer(text, 0, match.start())), default=0)
    end = next((m.start() for m in _CLAUSE.finditer(text, match.end())), len(text))
    return count.CUE.search(text, start, end) is not None


def _cues(question: Question) -> list[tuple[re.Match[str], Function]]:
    cues = [(m, Function.AVERAGE) for m in _AVERAGE.finditer(question.text)]
    cues += [
        (m, function) for pattern, function in _NAMED_STATISTICS for m in pattern.finditer(question.text)
    ]
    cues += [(m, Function.TOTAL) for m in _TOTAL.finditer(question.text) if not _totals_a_count(question, m)]
    for match in _TOTAL_BEFORE_METRIC.finditer(question.text):
        follows = question.metric_after(match.end(), 9)
        if follows is not None and follows[0].key in _SUMMED and not question.covered(match.start()):
            cues.append((match, Function.TOTAL))
    return [(match, function) for match, function in cues if not question.covered(match.start())]


def _daily_cue(question: Question, match: re.Match[str]) -> str:
    """The cue with "daily" read around it (average daily amount, daily average volume)."""
    text = question.text
    if match.group() == "日均":
        return "日均"
    around = text[max(0, match.start() - 6) : match.end() + 6].lower()
    return "daily average" if re.search(r"daily average|average daily", around) else match.group()


def _over_top(question: Question, match: re.Match[str], same_cues: list[int]) -> int:
    """k when the aggregate is asked of the top-k rows named before it (after it, in English "of the").

    `same_cues` are the starts of the cues naming the same aggregate (of the same metric, or of none):
    one of them before the top-k makes it the ranking key (平均涨幅最高的5个行业…列出平均涨幅), so a
    later mention names the key again, not an aggregate over the cut rows. A cue in brackets glosses a
    word of the question (波动率最低的10只（日涨跌幅标准差）): it defines the figure, ranking key or not."""
    if _in_brackets(question.text, match):
        return 0
    for constraint in top_k.extract(question):
        assert isinstance(constraint.detail, top_k.TopKDetail)
        if constraint.detail.ranks_groups or any(start < constraint.span.start for start in same_cues):
            continue  # the top groups are ranked by the aggregate: it is each group's own figure
        before = constraint.span.end <= match.start()
        if question.lang is Lang.ZH and before:
            return constraint.detail.k
        if (
            question.lang is Lang.EN
            and before
            and re.search(r"\b(their|its)\s*$", question.text[: match.start()])
        ):
            return constraint.detail.k
        between = question.text[match.end() : constraint.span.start]
        if (
            question.lang is Lang.EN
            and not before
            and re.search(r"\bof the\s*$", between)
            and len(between) < 40
        ):
            return constraint.detail.k
    return 0


def _in_brackets(text: str, match: re.Match[str]) -> bool:
    opened = max(text.rfind("(", 0, match.start()), text.rfind("（", 0, match.start()))
    closed_before = max(text.rfind(")", 0, match.start()), text.rfind("）", 0, match.start()))
    return opened > closed_before and re.search(r"[)）]", text[match.end() :]) is not None


_WHAT_ZH = {
    Function.AVERAGE: "平均值",
    Function.TOTAL: "合计",
    Function.MEDIAN: "中位数",
    Function.STDDEV: "标准差",
}
_DAILY = re.compile(r"^(?:日均|daily average|average daily)$", re.IGNORECASE)


def extract(question: Question) -> list[Constraint]:
    found: list[Constraint] = []
    cues = sorted(_cues(question), key=lambda cue: cue[0].start())
    read = [(match, function, _metric_columns(question, match)) for match, function in cues]
    for match, function, columns in read:
        averages = sum(f is Function.AVERAGE and c == columns for _, f, c in read)
        daily_flow = bool(_DAILY.match(_daily_cue(question, match)) and columns & _SUMMED)
        # a cue naming no metric (按合计值排列) may name the same aggregate again
        same_cues = [
            cue.start()
            for cue, f, c in read
            if f is function and (c == columns or not columns) and cue is not match
        ]
        over_top = _over_top(question, match, same_cues)
        detail = AggregateDetail(
            function,
            columns,
            over_top,
            daily_flow=daily_flow,
            single=averages <= 1,
            zero_said=_ZERO_SAID.search(question.text) is not None,
        )
        span = question.span(match.start(), match.end())
        what_zh = _WHAT_ZH[function]
        over_zh = f"（在前 {detail.over_top} 名之内计算）" if detail.over_top else ""
        over_en = f" over the top {detail.over_top} rows" if detail.over_top else ""
        of = "/".join(sorted(columns)) or question.says("所问指标", "the metric asked")
        text = question.says(
            f"“{span.text}”：{of} 的{what_zh}{over_zh}",
            f"“{span.text}”: the {function.value} of {of}{over_en}",
        )
        found.append(Constraint(span, text, question.lang, detail))
    return found
