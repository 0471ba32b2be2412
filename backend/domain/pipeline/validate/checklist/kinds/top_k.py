"""Top-k and which side: 前10 / 最高的5只 / top 10 / the 3 largest → ORDER BY … DESC LIMIT 10; lowest → ASC.

The ranking is an ORDER BY … LIMIT (LIMIT k BY g when the question asks per group) or a
row_number()/rank() cut. Its key must move with the metric named next to the superlative (跌幅最大
and "biggest losers" rank pct_chg ascending); a superlative with no count ("收盘价最高的股票",
"which stock had the highest …") asks for one row. A key the checker cannot relate to the metric
leaves the side undecided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import per_group
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
    Outcome,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import COUNT, Question, parse_count
from backend.domain.pipeline.validate.checklist.sqltree import (
    OrderKey,
    Ranking,
    Sql,
    columns_of,
    direction,
    first_argument,
    function_name,
    is_date_column,
    number_value,
    strip,
)
from backend.domain.pipeline.validate.checklist.vocabulary import Category, MetricInfo


class Side(StrEnum):
    HIGH = "high"
    LOW = "low"


_LOW_WORDS = {
    "最低", "最小", "最少", "最慢",
    "lowest", "smallest", "least", "worst", "bottom", "fewest", "slowest", "weakest",
}  # fmt: skip
# A count followed by a time word or % is a window or a share, not a number of rows (前5日, top 10%).
_TIME_UNIT = (
    r"\s*(?:个?交易日|日|天|年|期|个报告期|季度|个季度|月|个月|周|%|percent\b"
    r"|(?:trading )?days?\b|years?\b|weeks?\b|months?\b|quarters?\b)"
)
# fastest / slowest / 最快 rank a growth or a rise: its size
_SUPERLATIVE_ZH = r"最高|最大|最多|最快|最低|最小|最少|最慢"
_SUPERLATIVE_EN = (
    r"highest|largest|biggest|greatest|best|top|fastest|strongest"
    r"|lowest|smallest|worst|least|most|fewest|slowest|weakest"
)
_EXPLICIT = (
    # The count is taken whole before the time-word test: 前10日 must not match as 前1.
    re.compile(
        rf"(?P<sup>前)\s*(?P<n>{COUNT})(?![\d零一二两三四五六七八九十百千])(?!{_TIME_UNIT})\s*(?:名|只|个|家|支)?"
    ),
    re.compile(rf"(?P<sup>{_SUPERLATIVE_ZH})\s*的?\s*(?P<n>{COUNT})\s*(?:只|个|家|支|名)"),
    # a superlative before its count: top 10, the worst 10 performers, best 5 stocks
    re.compile(rf"\b(?P<sup>top|bottom|worst|best)\s+(?P<n>{COUNT})\b(?!{_TIME_UNIT})"),
    # "the 3 largest", "its three largest stocks", "which 5 areas (regions of registration) have the most";
    # a possessive is a determiner too: "today's 10 biggest gainers", "the market's five largest"
    re.compile(
        rf"(?:^|\b(?:the|which|what|its|their|[a-z]+['’]s|[a-z]+s['’])\s+)(?P<n>{COUNT})\s+(?!{_TIME_UNIT})"
        rf"(?:[a-z0-9]+\s+|\([^()]*\)\s+){{0,5}}?(?P<sup>{_SUPERLATIVE_EN})\b"
    ),
)
_IMPLICIT = (
    re.compile(rf"(?P<sup>{_SUPERLATIVE_ZH})\s*的\s*[^，,。；的\d]{{0,8}}?(?:股票|公司|个股|行业|板块)"),
    re.compile(
        # a period ranked too: which month / trading day had the largest …
        r"\b(?:which|the)\s+(?:[a-z0-9]+\s+){0,4}?"
        r"(?:stock|company|industry|sector|board|exchange|month|quarter|week|day|session)s?\s+"
        r"(?:(?:that\s+)?(?:had|has|have)|with|traded|posted|recorded|reported|logged|saw|showed)"
        rf"\s+the\s+(?P<sup>{_SUPERLATIVE_EN})\b"
    ),
)
# 哪五个行业平均涨得最多, 哪个板块成交额最大: groups ranked, the k (one without a count) after 哪, the
# metric and the superlative after the group.
_WHICH_ZH = re.compile(
    rf"哪\s*(?P<n>{COUNT})?\s*(?:个|只|家|支)\s*(?P<what>行业|板块|交易所|地区|省份)"
    rf"[^，,。；;？?\d]{{0,14}}?(?P<sup>{_SUPERLATIVE_ZH})"
)
# 平均市盈率最低的是哪5个行业, 涨幅最大的是哪3只: the superlative first, then 是哪 with the count (one
# without it) and what is ranked; the metric sits before the superlative.
_WHICH_AFTER_ZH = re.compile(
    rf"(?P<sup>{_SUPERLATIVE_ZH})\s*的\s*(?:是|为)\s*哪\s*(?P<n>{COUNT})?\s*(?:个|只|家|支)"
    r"\s*(?P<what>行业|板块|交易所|地区|省份)?"
)
# Groups named between the count and the superlative: which 3 sub-industries carry the highest …
_GROUPS_COUNTED = re.compile(r"\b(?:industries|sectors|boards|exchanges|regions|provinces)\b|个(?:行业|板块)")
# "the most stocks" ranks by a count of rows; "most" before anything else is an adjective's degree.
_COUNTED = re.compile(
    r"\s+(?:\w+\s+)?(?:stocks|companies|firms|shares|constituents|members|listings"
    r"|decliners|gainers|advancers|losers|risers|fallers)\b"
)
_YEAR = re.compile(r"(?:19|20)\d{2}")
# 数量最多, 家数最少: a count of rows ranked (哪10个行业的上市公司数量最多).
_COUNTED_ZH = re.compile(r"(?:数量|家数|个数|只数|数目)的?\s*最(?:多|少)")
# 占比最高, 比例最低, the highest share of …: a share of rows ranked (亏损公司占比最高的5个行业).
_SHARE_ZH = re.compile(r"(?:占比|比例|比重|百分比)\s*最(?:高|低|大|小)")
_SHARE_EN = re.compile(r"\s+(?:share|proportion|percentage|fraction)\s+of\b")
# "gainers" and "losers" name the metric with the superlative: the biggest losers fell the most.
# "performers" ranks by the gain too: the worst performers gained the least.
_MOVERS = re.compile(r"\s*(?P<word>gainers?|losers?|decliners?|advancers?|performers?)\b")
# The rows asked are some of the k: of the top 50 …, among the 10 largest; 前100的公司里 / 中 / 当中.
_SUBSET_BEFORE = re.compile(r"\b(?:among|of|within|from)\s+(?:the\s+|these\s+|those\s+)?$")
_SUBSET_AFTER = re.compile(r"[^，,。；;]{0,12}?(?:之中|当中|其中|中|里)")
# A ranking said per day (每天…最大的股票, on each of the last 5 days … the biggest): one pick per day.
_PER_DAY = re.compile(r"每(?:天|日|个交易日)(?!都)|\b(?:on each|for each|each|every|per) (?:trading )?day\b")
# …最高的20只，其中…; the top 20 …, which of them …: a later clause picks among the k. "Those" given a
# condition of its own (among those with, of those companies whose) names the pool the k are taken from.
_SUBSET_LATER = re.compile(
    r"[，,；;]\s*(?:其中|这其中|它们中|这些股票中)|\b(?:of|among) (?:them|these)\b"
    r"|\b(?:of|among) those\b(?!\s+(?:[a-z]+\s+)?(?:with|that|which|who|whose|having|where)\b)"
)
# …最大的50只股票，市盈率平均是多少（亏损的不算）: an exclusion in brackets after the statistic asked
# of the k leaves rows out of the statistic, not out of the ranking
_STATISTIC_EXCLUDES = re.compile(
    r"[^()]*?(?:平均|均值|中位数|合计|总和|\b(?:average|mean|median|total|sum)\b)[^()]*"
    r"\([^()]*?(?:不算|不计|不含|除外|剔除|排除|\bexclud|\bignor|\bnot count|\bleaving out\b)"
)
# the largest constituents / members of an index (no measure named): its heaviest weights
_MEMBERS = re.compile(r"\s*(?:index\s+)?(?:constituents|members|component stocks)\b")
_TIE_BREAKS = {"ts_code", "name", "symbol", "con_code"}
# A stock's state on a day (its market cap, a valuation, its close) ranks the stocks as of one day; its
# average (or extreme) over a span of days is another figure, asked only with an average word.
_LEVELS = frozenset(
    {"total_mv", "circ_mv", "pe", "pe_ttm", "pb", "ps", "ps_ttm", "dv_ratio", "dv_ttm", "close"}
)
_AVERAGE_WORD = re.compile(r"平均|均值|日均|\b(?:average|mean|avg)\b", re.IGNORECASE)
# the rest of an English ranking's clause (the 10 stocks with the highest average market cap)
_CLAUSE_END = re.compile(r"[—–,;:?!.，。；？]|\s-\s")
_OVER_DAYS = (exp.Avg, exp.Sum, exp.Max, exp.Min)


class Averaging(StrEnum):
    SAID = "said"  # an average said with the ranking: its figure may be taken over days
    ELSEWHERE = "elsewhere"  # said only after it (their average return since …): another figure's
    UNSAID = "unsaid"


_PICKS_ONE = {"argmax", "argmin", "max", "min"}


@dataclass(frozen=True)
class TopKDetail:
    kind: ClassVar[Kind] = Kind.TOP_K
    k: int
    side: Side
    columns: frozenset[str]  # the ranked metric's columns; empty when no metric was named
    descending: bool | None  # the stored column's order asked for; None without a metric
    gain: bool  # a gain may be ranked as a ratio of later to earlier price
    group: str  # "" or the column whose groups each get their own top k
    ranks_groups: bool = False  # the k are groups (the 5 industries with …): one figure per group
    counts: bool = False  # ranked by a number of rows (the areas with the most stocks): a count key
    subset: bool = False  # the rows asked are some of the k (of the top 50, which…; 前100的公司里…)
    # metrics a later clause filters the k on (…最高的20只，其中市盈率低于8倍的): after the cut, not before
    picked_after: frozenset[str] = frozenset()
    shares: bool = False  # ranked by a share of rows (亏损公司占比最高的行业): a ratio of two counts
    averaging: Averaging = Averaging.SAID  # whether an average of the ranked figure is said

    def check(self, sql: Sql) -> Finding:
        rankings = [r for r in sql.rankings if not all(_not_a_measure(key) for key in r.keys)]
        if self.group:
            rankings = [r for r in rankings if any(self.group in columns_of(by) for by in r.by)]
        if not rankings:
            return self._no_ranking(sql)
        on_metric = [r for r in rankings if self._metric_key(r) is not None]
        judged = [(r, self._judge(r)) for r in (on_metric or rankings)]
        findings = [f for _, f in judged]
        cut = next(((r, f) for r, f in judged if f.outcome is Outcome.PASS), None)
        if cut is not None:
            if self.ranks_groups and _grouped_after(sql, cut[0]):
                return failed(
                    Attribution.TOP_K,
                    f"the top {self.k} rows are cut before they are grouped: the question ranks the groups, "
                    "the cut belongs after the grouping",
                )
            if not self.subset and not self.group and _filtered_after(sql, cut[0]):
                return failed(
                    Attribution.TOP_K,
                    f"the top {self.k} is cut first and filtered after: fewer than {self.k} rows may "
                    f"remain, the question's filters belong before the cut",
                )
            if self.picked_after and not _filtered_after(sql, cut[0]) and _filtered_before(sql, cut[0], self):
                return failed(
                    Attribution.TOP_K,
                    f"the rows are filtered on {'/'.join(sorted(self.picked_after))} before the top {self.k} "
                    f"is cut: the question picks among the top {self.k}",
                )
            return cut[1]
        if findings and all(f.outcome is Outcome.FAIL for f in findings):
            return findings[0]
        return next((f for f in findings if f.outcome is Outcome.UNDECIDABLE), findings[0])

    def _no_ranking(self, sql: Sql) -> Finding:
        picked = self._picked(sql) if self.k == 1 else None
        if picked is not None:
            return picked
        if self.k == 1 and sql.functions & _PICKS_ONE:
            return undecided("no ORDER BY … LIMIT 1, but max/argMax may pick the top row")
        if sql.functions & {"topk", "grouparray", "arrayslice", "grouparraysorted"}:
            return undecided("the top rows may be taken with array functions")
        if self.group and any(not all(_not_a_measure(key) for key in r.keys) for r in sql.rankings):
            return failed(
                Attribution.TOP_K, f"the top {self.k} is taken over all rows, not within each {self.group}"
            )
        where = f" within each {self.group}" if self.group else ""
        return failed(Attribution.TOP_K, f"no ORDER BY … LIMIT {self.k}{where}")

    def _picked(self, sql: Sql) -> Finding | None:
        """One row per group picked by argMax/argMin keyed on the metric (argMax(name, (roe, ts_code)))
        in a SELECT grouped by the group (or, with no group asked, not grouped at all); None when no
        such pick is read."""
        if self.descending is None:
            return None
        sides: set[int] = set()
        for select in sql.selects:
            keys = per_group.group_keys(sql, select)
            if not (any(self.group in columns_of(key) for key in keys) if self.group else not keys):
                continue
            for pick in select.find_all(exp.ArgMax, exp.ArgMin):
                if pick.find_ancestor(exp.Select) is not select:
                    continue
                key = pick.expression
                key = key.expressions[0] if isinstance(key, exp.Tuple) and key.expressions else key
                moves = direction(sql.resolve(key, select), self.columns, self.gain)
                if moves is not None:
                    sides.add(moves if isinstance(pick, exp.ArgMax) else -moves)
        wanted = 1 if self.descending else -1
        where = f" in each {self.group}" if self.group else ""
        if wanted in sides:
            picker = "argMax" if self.descending else "argMin"
            return passed(f"the row{where} is picked by {picker} of the metric")
        if sides:
            return failed(Attribution.TOP_K, f"the row{where} is picked at the other end of the metric")
        return None

    def _metric_key(self, ranking: Ranking) -> OrderKey | None:
        if self.counts:
            return next((key for key in ranking.keys if _counts_rows(key.expression)), None)
        if self.shares:
            return next((key for key in ranking.keys if _shares_rows(key.expression)), None)
        for key in ranking.keys:
            if self.columns & columns_of(key.expression) or direction(
                key.expression, self.columns, self.gain, ranking.select
            ):
                return key
        return None

    def _judge(self, ranking: Ranking) -> Finding:
        if ranking.limit is not None and (ranking.limit != self.k or ranking.offset):
            skipped = f" after skipping {ranking.offset}" if ranking.offset else ""
            return failed(
                Attribution.TOP_K,
                f"the ranking keeps {ranking.limit} rows{skipped}, the question asks for {self.k}",
            )
        split = {c for by in ranking.by for c in columns_of(by)} & per_group.GROUP_DIMENSIONS
        if not self.group and split:
            return failed(
                Attribution.TOP_K,
                f"the top {self.k} is cut within each {'/'.join(sorted(split))} (LIMIT … BY, PARTITION BY): "
                f"the question asks one ranking",
            )
        key = self._metric_key(ranking)
        if key is None or self.descending is None:
            return undecided("the ranking key cannot be related to the metric the question ranks by")
        moves = (
            1
            if self.counts or self.shares
            else direction(key.expression, self.columns, self.gain, ranking.select)
        )
        if moves is None:
            return undecided("which way the ranking key moves with the metric is not read")
        descending = key.descending if moves > 0 else not key.descending
        if descending != self.descending:
            side = "highest" if descending else "lowest"  # `descending` is on the metric asked
            return failed(
                Attribution.TOP_K,
                f"the ranking keeps the {side} rows, the question asks for the {self.side.value} side",
            )
        if ranking.limit is None:
            return undecided("the rank is never cut at a fixed count")
        over_days = self._level_over_days(key.expression)
        if over_days is not None and self.averaging is Averaging.UNSAID:
            return failed(
                Attribution.TIME_SCOPE,
                f"the stocks are ranked on {over_days} over several days; the question ranks them on "
                "the figure of one day (no average said)",
            )
        if over_days is not None and self.averaging is Averaging.ELSEWHERE:
            return undecided(
                f"the stocks are ranked on {over_days} over several days; the average the question says "
                "comes after the ranking, of another figure"
            )
        return passed(f"ORDER BY … {'DESC' if descending else 'ASC'} LIMIT {self.k}")

    def _level_over_days(self, key: exp.Expr) -> str | None:
        """avg(total_mv) for a ranking of stocks on their market cap: one stock's rows aggregated, so
        its days; None when the key is no such aggregate (or groups are ranked: their stocks summed)."""
        if self.group or self.ranks_groups or not self.columns or not self.columns <= _LEVELS:
            return None
        for node in strip(key).find_all(*_OVER_DAYS):
            if columns_of(node) & self.columns:
                return node.sql(dialect="clickhouse")
        return None


def _grouped_after(sql: Sql, ranking: Ranking) -> bool:
    """Rows cut ungrouped (ORDER BY pe LIMIT 10 over stocks) that a query reading them then groups."""
    cut = ranking.select
    if cut.args.get("group") is not None:
        return False
    return any(
        select.args.get("group") is not None and cut in sql.sources(select)
        for select in sql.selects
        if select is not cut
    )


def _filtered_after(sql: Sql, ranking: Ranking) -> bool:
    """A query reading the cut rows (FROM the subquery or CTE that cuts) keeps only some of them: a
    WHERE condition other than a join key (a.ts_code = b.ts_code)."""
    select, parent = ranking.select, ranking.select.parent
    readers: list[tuple[exp.Select, str]] = []  # each reading query, with the name it reads the cut by
    if not isinstance(select.args.get("limit"), exp.Limit):
        return False  # a rank window: its cut (rn <= k) is itself a WHERE of the reading query
    if isinstance(parent, exp.Subquery) and isinstance(parent.parent, exp.From):
        outer = parent.parent.parent
        readers = [(outer, parent.alias_or_name.lower())] if isinstance(outer, exp.Select) else []
    elif isinstance(parent, exp.CTE):
        name = parent.alias_or_name.lower()
        readers = [
            (s, f.this.alias_or_name.lower())
            for s in sql.selects
            if s is not select
            and isinstance(f := s.args.get("from_"), exp.From)
            and isinstance(f.this, exp.Table)
            and f.this.name.lower() == name
        ]
    for reader, cut_name in readers:
        where = reader.args.get("where")
        if where is None:
            continue
        conditions = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        if any(
            not (
                isinstance(c, exp.EQ)
                and isinstance(c.this, exp.Column)
                and isinstance(c.expression, exp.Column)
            )
            and not _joined_period(c, cut_name)
            for c in conditions
        ):
            return True
    return False


def _joined_period(condition: exp.Expr, cut_name: str) -> bool:
    """A condition on nothing but the dates of a table joined to the cut rows (f.end_date =
    '2024-12-31'): it picks that table's period for each of the k, it keeps every one of them."""
    columns = [column for column in condition.find_all(exp.Column) if not _in_subquery(column, condition)]
    return bool(columns) and all(
        is_date_column(column.name.lower()) and column.table and column.table.lower() != cut_name
        for column in columns
    )


def _in_subquery(node: exp.Expr, top: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None and parent is not top:
        if isinstance(parent, exp.Select):
            return True
        parent = parent.parent
    return False


def _filtered_before(sql: Sql, ranking: Ranking, detail: TopKDetail) -> bool:
    """The SELECT that cuts compares a metric picked after the cut with a number."""
    return any(
        c.select is ranking.select and c.number is not None and columns_of(c.subject) & detail.picked_after
        for c in sql.comparisons
    )


def _counts_rows(expression: exp.Expr) -> bool:
    """count() / count(x) / countIf(…) / uniqExact(x), alone: a key that grows with the number of rows
    (countIf(pct_chg < 0): the decliners counted)."""
    node = expression.this if isinstance(expression, exp.Paren) else expression
    return isinstance(node, exp.Count | exp.CountIf) or (
        isinstance(node, exp.Anonymous) and node.name.lower() in {"uniq", "uniqexact"}
    )


def _shares_rows(expression: exp.Expr) -> bool:
    """countIf(…) / count(), sum(if(…)) / count(), avg(x < 0), through rounding and a positive factor:
    a key that grows with the share of rows counted."""
    node = strip(expression)
    if isinstance(node, exp.Round) or function_name(node) == "round":
        inner = first_argument(node)
        return inner is not None and _shares_rows(inner)
    if isinstance(node, exp.Mul):
        scaled = _unscaled(node)
        return scaled is not node and _shares_rows(scaled)
    if isinstance(node, exp.Div):
        return _counts_some(_unscaled(node.this)) and _counts_some(_unscaled(node.expression))
    if isinstance(node, exp.Avg):
        return isinstance(strip(node.this), exp.LT | exp.LTE | exp.GT | exp.GTE | exp.EQ | exp.NEQ)
    return False


def _unscaled(node: exp.Expr) -> exp.Expr:
    """x of 100 * x or x * 100 (a positive factor); the node itself otherwise."""
    node = strip(node)
    if isinstance(node, exp.Mul):
        for factor, other in ((node.this, node.expression), (node.expression, node.this)):
            value = number_value(factor)
            if value is not None and value > 0:
                return strip(other)
    return node


def _counts_some(node: exp.Expr) -> bool:
    node = strip(node)
    if isinstance(node, exp.Count | exp.CountIf) or function_name(node).startswith(("count", "uniq")):
        return True
    return isinstance(node, exp.Sum) and strip(node.this).find(exp.If, exp.LT, exp.GT, exp.EQ) is not None


def _not_a_measure(key: OrderKey) -> bool:
    """A key on days or on the stock itself: a time window or a tie-break, not a ranking by a metric."""
    columns = columns_of(key.expression)
    return bool(columns) and all(is_date_column(column) or column in _TIE_BREAKS for column in columns)


def _metric(question: Question, start: int, end: int) -> tuple[MetricInfo | None, bool]:
    """The metric ranked by, and whether a mover word (losers) turns the side round."""
    if question.lang is Lang.ZH:
        bound = question.metric_before(start, 8)
        return (bound[1] if bound else None), False
    mover = _MOVERS.match(question.text, end)
    if mover is not None:
        metrics = question.vocabulary.metrics
        falling = mover["word"].startswith(("loser", "decliner"))
        return metrics["pct_chg"], falling
    bound = question.metric_after(end, 30)
    return (bound[1] if bound else None), False


def _detail(
    question: Question, k: int, superlative: str, start: int, end: int, group: str, ranks_groups: bool
) -> TopKDetail:
    side = Side.LOW if superlative in _LOW_WORDS else Side.HIGH
    if _SHARE_ZH.search(question.text, max(0, start - 8), end) or _SHARE_EN.match(question.text, end):
        return TopKDetail(k, side, frozenset(), side is Side.HIGH, False, group, ranks_groups, shares=True)
    if (superlative in {"most", "fewest"} and _COUNTED.match(question.text, end)) or (
        superlative in {"最多", "最少"} and _COUNTED_ZH.search(question.text, max(0, start - 8), end)
    ):
        return TopKDetail(k, side, frozenset(), side is Side.HIGH, False, group, ranks_groups, counts=True)
    metric, falling = _metric(question, start, end)
    if metric is None and _MEMBERS.match(question.text, end):
        # an index's largest members, no measure named: ranked by their weight in it
        return TopKDetail(k, side, frozenset({"weight"}), side is Side.HIGH, False, group, ranks_groups)
    if metric is None:
        return TopKDetail(k, side, frozenset(), None, False, group, ranks_groups)
    high = side is Side.HIGH
    descending = high != (metric.negated or falling)
    gain = metric.columns == frozenset({"pct_chg"})
    return TopKDetail(k, side, metric.columns, descending, gain, group, ranks_groups)


def _averaging(question: Question, end: int) -> Averaging:
    """An average word said before the ranking's end — in English also in the rest of its clause (the
    highest average market cap, the largest market cap on average) — or only elsewhere, or not at all."""
    text = question.text
    said = text[:end]
    if question.lang is Lang.EN:
        stop = _CLAUSE_END.search(text, end)
        said = text[: stop.start() if stop else len(text)]
    if _AVERAGE_WORD.search(said):
        return Averaging.SAID
    return Averaging.ELSEWHERE if _AVERAGE_WORD.search(text) else Averaging.UNSAID


# 涨得最多 / 跌得最多 after 哪…: the day's change ranked, a rise highest first, a fall lowest first.
_MOVE_ZH = re.compile(r"(?P<move>涨|跌)得?$")


def _move_ranked(question: Question, start: int, end: int, detail: TopKDetail) -> TopKDetail:
    move = _MOVE_ZH.search(question.text[start:end].rstrip("的 "))
    if move is None:
        return detail
    high = detail.side is Side.HIGH
    descending = high if move["move"] == "涨" else not high
    return replace(detail, columns=frozenset({"pct_chg"}), descending=descending, gain=True)


def extract(question: Question) -> list[Constraint]:
    read_groups = [c for c in per_group.extract(question) if isinstance(c.detail, per_group.PerGroupDetail)]
    groups = [
        (c.span.start, c.detail.column)
        for c in read_groups
        if isinstance(c.detail, per_group.PerGroupDetail) and not c.detail.ranked
    ]
    ranked_spans = [
        range(c.span.start, c.span.end)
        for c in read_groups
        if isinstance(c.detail, per_group.PerGroupDetail) and c.detail.ranked
    ]
    found: list[Constraint] = []
    taken: list[range] = []
    patterns = [(p, True) for p in _EXPLICIT] + [(p, False) for p in (*_IMPLICIT, _WHICH_ZH, _WHICH_AFTER_ZH)]
    for pattern, explicit in patterns:
        for match in pattern.finditer(question.text):
            if any(match.start("sup") in span for span in taken):
                continue
            which = pattern is _WHICH_ZH
            which_after = pattern is _WHICH_AFTER_ZH
            k = parse_count(match["n"]) if explicit or ((which or which_after) and match["n"]) else 1
            if k is None or k < 1 or (explicit and _YEAR.fullmatch(match["n"])):
                continue  # which 2025 session …: a year, no count
            # 各行业涨幅前三 ranks within each industry; 市值前100的公司里，各行业… groups one ranking.
            owners = [column for start, column in groups if question.lang is Lang.EN or start < match.start()]
            ranks_groups = (
                any(span.start < match.end() and match.start() < span.stop for span in ranked_spans)
                or which
                or (which_after and match["what"] is not None)
                or _GROUPS_COUNTED.search(question.text, match.start(), match.start("sup")) is not None
            )
            # the groups ranked are not also the groups each ranking runs within
            group = owners[0] if len(owners) == 1 and not ranks_groups else ""
            if not owners and not ranks_groups and _PER_DAY.search(question.text, 0, match.start()):
                group = "trade_date"  # 每天成交额最大的股票, the biggest gainer on each day: one per day
            taken.append(range(match.start(), match.end()))
            # the metric is read after the superlative, or after a count that follows it (worst 10 performers)
            end = max(match.end("sup"), match.end("n")) if "n" in match.groupdict() else match.end("sup")
            # after 哪…, the metric sits between the thing ranked and the superlative
            metric_at = match.start("sup") if which else match.start()
            detail = _detail(question, k, match["sup"], metric_at, end, group, ranks_groups)
            if detail.descending is None:
                # 哪个行业涨得最多; 12月涨得最多的3只: the move word right before the superlative
                before = match.end("what") if which else max(0, match.start("sup") - 3)
                detail = _move_ranked(question, before, match.start("sup"), detail)
            detail = replace(detail, averaging=_averaging(question, match.end()))
            later = _SUBSET_LATER.search(question.text, match.end())
            if (
                _SUBSET_BEFORE.search(question.text[: match.start()])
                or _SUBSET_AFTER.match(question.text, match.end())
                or later
                or _STATISTIC_EXCLUDES.match(question.text, match.end())
            ):
                detail = replace(detail, subset=True)
            if later is not None:
                picked = [hit for hit in question.hits_of(Category.METRIC) if hit.start >= later.end()]
                columns = {c for hit in picked for c in question.vocabulary.metrics[hit.key].columns}
                detail = replace(detail, picked_after=frozenset(columns - detail.columns))
            span = question.span(match.start(), match.end())
            order = {True: "降序", False: "升序", None: ""}[detail.descending]
            order_en = {True: "descending", False: "ascending", None: "ranked"}[detail.descending]
            where_zh, where_en = (f"每个 {group} 内", f" within each {group}") if group else ("", "")
            text = question.says(
                f"{span.text}：{where_zh}{order}排序取前 {k}",
                f"{span.text}: {order_en}, first {k}{where_en}",
            )
            found.append(Constraint(span, text, question.lang, detail))
    return sorted(found, key=lambda constraint: constraint.span.start)
