"""How the operators of one question nest, settled by the assembly once every pass has run.

- a ranking under an aggregate picks a subset first (Of the 50 largest by market cap, how many
  closed up; 成交额前10的股票的平均市盈率; 市值前100的公司里各行业有几家);
- an aggregate over a list of named groups gives one row per group (银行、券商和保险的平均股息率);
- a share, and an average compared with, are taken over the question's own stocks.

Where the words allow two nestings the `Reading` says which one this reading takes.
"""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import (
    REPORT_TIME_LABELS,
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    Not,
    Scope,
    Screen,
    TimeSpec,
    TopSubset,
    VersusGroup,
)
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.readings import Reading
from backend.domain.language.parser.time_placement import PlacedCondition
from backend.domain.language.semantic import SemanticModel

# a scope kind listed with several values → the dimension it groups by
LIST_DIMENSIONS = {
    "industry": "industry",
    "exchange": "exchange",
    "board": "market",
    "area": "area",
    "index": "index",
}
STOCK_COUNTS = {"count", "share", "count_up", "count_down"}


def rank_subset(
    screen: Screen,
    conditions: list[PlacedCondition],
    indexes: list[int],
    order_index: int,
    ranked_per_group: bool,
    reading: Reading,
    *,
    inside_after_ranking: bool = False,
) -> list[PlacedCondition]:
    """A ranking that does not order the answer's rows picks the stocks the rest is computed on.

    It does when the question aggregates (the rows are groups or one total). Conditions written
    before the ranking, and the entity named right after it (涨幅前10的银行股), choose among which
    stocks it ranks; conditions written after it filter the ranked stocks — or, as the second
    reading, restrict the ranking too. A list of stocks ranks after its conditions; with conditions
    written after the ranking ("涨幅前10的股票中市盈率低于20的") the second reading filters the ranked.
    """
    order = screen.order
    if order is None or order.metric.startswith("agg:") or screen.limit is None:
        return conditions
    grouped_first = screen.group_by is not None and ranked_per_group  # 各行业…前三, top 3 … in each industry
    # the entity right after the ranking chooses what it ranks (涨幅前10的银行股), unless 里/中 closes the
    # ranked set before it (成交额前100的股票里科技股有几只: the top 100 of all, then the tech ones)
    chooses = -1 if inside_after_ranking else order_index + 1  # where a scope chooses what is ranked
    after = [item for item, index in zip(conditions, indexes, strict=True)
             if index > order_index and not (item[1] and index == chooses)]  # fmt: skip
    counts = {aggregate.fn for aggregate in screen.aggregates} & STOCK_COUNTS
    # 各行业涨幅前三的股票及其平均市值 shows the top 3 rows of each group with their average
    aggregated = bool(screen.aggregates or screen.having) and (not grouped_first or bool(counts))
    if not aggregated and not after:
        return conditions
    filter_after = aggregated
    if after:
        filter_after = aggregated != reading.choose("ranking_scope")
    if not aggregated and not filter_after:
        return conditions
    if any(connector == "or" for _condition, _is_scope, connector in conditions):
        raise NotUnderstood("'or' together with a ranked subset is not in the grammar yet")
    kept = after if filter_after else []
    within = tuple(item[0] for item in conditions if item not in kept)
    subset = TopSubset(order, screen.limit, within, screen.group_by if grouped_first else None)
    if aggregated:
        screen.order, screen.limit = None, None
    else:  # a list of the ranked stocks that pass the later conditions, in the ranking's order
        screen.limit = None
        if grouped_first and screen.group_by is not None:
            screen.outputs.append(screen.group_by)
            screen.group_by = None
    return [(subset, False, "and"), *kept]


def group_lists(screen: Screen, conditions: list[Condition], reading: Reading, *, each_said: bool) -> None:
    """An aggregate over several named industries (exchanges, boards, areas): one row per group; a set
    one word names (两市涨跌家数: the two exchanges together) is one scope, one row, unless each is said
    (两市各成交了多少亿)."""
    if screen.group_by is not None or not screen.aggregates or screen.order is not None:
        return
    lists = [
        c
        for c in conditions
        if isinstance(c, Scope)
        and c.kind in LIST_DIMENSIONS
        and len(c.values) > 1
        and (each_said or not c.one_word)
    ]
    if len(lists) == 1 and not reading.choose("listed_groups"):
        screen.group_by = LIST_DIMENSIONS[lists[0].kind]


def take_share_and_averages_over_scope(screen: Screen, reading: Reading) -> None:
    """A share is of the question's stocks (its scopes) and counts those meeting its other conditions;
    an average compared with, without a group, is the average of the question's stocks."""
    scopes = tuple(condition for condition in screen.where if _is_scope(condition))
    rest = [condition for condition in screen.where if not _is_scope(condition)]
    if any(aggregate.fn == "share" and aggregate.where is None for aggregate in screen.aggregates):
        if not rest:
            raise NotUnderstood("a share of the stocks needs a condition to count (share of stocks up …)")
        counted: Condition = rest[0] if len(rest) == 1 else BoolOp("and", tuple(rest))
        screen.aggregates = [
            Aggregate("share", None, counted) if aggregate.fn == "share" else aggregate
            for aggregate in screen.aggregates
        ]
        screen.where = list(scopes)
    screen.where = [_average_over(condition, scopes, reading) for condition in screen.where]


def _average_over(condition: Condition, scopes: tuple[Condition, ...], reading: Reading) -> Condition:
    if not isinstance(condition, VersusGroup) or not scopes:
        return condition
    if condition.dimension is None or reading.choose("group_average_scope"):
        return replace(condition, within=scopes)
    # 有市盈率的…PE高于板块均值: the group's average is over the stocks that have the figure, as the share is
    present = tuple(scope for scope in scopes if _has_value(scope))
    return replace(condition, within=present) if present else condition


def _is_scope(condition: Condition) -> bool:
    negated = isinstance(condition, Not) and isinstance(condition.item, Scope)
    return isinstance(condition, Scope) or negated or _has_value(condition)


def _has_value(condition: Condition) -> bool:
    """有市盈率的: the stocks with a value of the figure, which the question is about (values_present.py)."""
    return isinstance(condition, Compare) and condition.op == "has"


def groups_by_aggregate_comparison(
    model: SemanticModel, conditions: list[Condition], times: list[TimeSpec], reading: Reading
) -> bool:
    """平均涨幅超过1%的行业: an average compared, with a dimension word, filters groups (HAVING). On one
    day it can only be an average over stocks; over a window the second reading takes each stock's
    own average over the days (and shows the dimension). A report figure of one period said inside
    the average (an average FY2024 ROE) has one value per stock: an average over stocks too."""
    averaged = any(
        isinstance(condition, Compare)
        and condition.agg in {"avg", "sum", "median"}
        and (condition.time is None or one_report_figure(model, condition.metric, condition.time))
        for condition in conditions
    )
    if not averaged:
        return False
    return all(time.is_single_day for time in times) or not reading.choose("window_average_scope")


def one_report_figure(model: SemanticModel, metric: str, time: TimeSpec) -> bool:
    """A report figure at one report period (FY2024 ROE): a single value per stock, never a window."""
    known = model.metrics.get(metric)
    return known is not None and known.kind == "report" and time.label in REPORT_TIME_LABELS


def refuse_groups_without_aggregate(model: SemanticModel, screen: Screen) -> None:
    """各行业股票的市盈率: per group, but which figure of the group (average, total, highest…)?
    Answering with a count of stocks would answer another question."""
    measured = [name for name in screen.outputs if name in model.metrics]
    plain = not (screen.aggregates or screen.having or screen.order or screen.per_group_limit)
    if plain and screen.lists_stock_periods:  # 五粮液2025年各报告期的每股收益: one row per period
        return
    if screen.group_by and plain and measured:
        raise NotUnderstood(
            f"per {screen.group_by}: say which figure of {', '.join(measured)} to compute "
            "(average, total, highest, lowest…)"
        )
