"""Assembly: the rewritten tokens → one Screen, after every grammar pass has run.

The tokens are read once, left to right (`_collect`); then a fixed sequence of rules settles what
the tokens leave open: the ordering a bare direction refers to, whole-set aggregates, the grouping,
the limit, group filters, the AND/OR structure of the conditions and where each time belongs.
Anything left that is not harmless refuses the question with the words that could not be placed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import pairwise

from backend.domain.language.ir import (
    WINDOW_MEASURES,
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    Figure,
    Not,
    Order,
    Scope,
    Screen,
    TimeSpec,
    TopSubset,
)
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.composition import (
    LIST_DIMENSIONS,
    group_lists,
    groups_by_aggregate_comparison,
    one_report_figure,
    rank_subset,
    refuse_groups_without_aggregate,
    take_share_and_averages_over_scope,
)
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.later_direction import direction_after_ranking
from backend.domain.language.parser.leftovers import RUN_LENGTHS, is_harmless, refuse_leftovers
from backend.domain.language.parser.loss_makers import read_losses_by_valuation
from backend.domain.language.parser.ratio_totals import refuse_totals_of_ratios
from backend.domain.language.parser.readings import Reading
from backend.domain.language.parser.rewriting import kind_at, metric_of, synthetic
from backend.domain.language.parser.time_placement import (
    PlacedCondition,
    attach_report_times,
    attach_second_times,
    place_times,
    rank_on_latest_day,
    refuse_periods_governing_nothing,
    repeat_on_joined_day,
)
from backend.domain.language.semantic import Metric, SemanticModel

# the days of a window grouped by month, quarter or year (grouping.py, 每个月 / per year)
PERIOD_GROUPINGS = {"trade_month", "trade_quarter", "trade_year"}
# words saying a figure is meant for each of several named groups: 分别 / respectively, a trailing 各
EACH_WORDS = {"quantifier": {"each"}, "per": {"per"}}
# how many rose / fell, their ratio and their difference
BREADTH_AGGREGATES = {"count_up", "count_down", "up_down_ratio", "net_up"}
# how far (in tokens) the number of a ranking may be written from it: the 50 ChiNext stocks with the …
NUMBER_REACH = 4
# what may stand between 'among' and its ranking: among the 50 ChiNext stocks with the highest …
RANKED_PHRASE = {"number", "count_unit", "and", "cond"}


@dataclass
class _Collected:
    """What one left-to-right read of the tokens found, before the rules settle the screen."""

    screen: Screen = field(default_factory=Screen)
    conditions: list[PlacedCondition] = field(default_factory=list)
    condition_starts: list[int] = field(default_factory=list)  # where each condition was written
    condition_indexes: list[int] = field(default_factory=list)  # and its token's place in the list
    order_index: int = -1  # the ordering's token, the grouping's: which of them comes first
    group_index: int = -1
    times: list[Token] = field(default_factory=list)
    limit_numbers: list[int] = field(default_factory=list)
    number_indexes: list[int] = field(default_factory=list)  # where each of those numbers was written
    first_ranking: tuple[Token, int] | None = None  # 市值前50的股票中市盈率最低的5只: the earlier ranking
    dims: list[str] = field(default_factory=list)
    dim_indexes: list[int] = field(default_factory=list)  # where each dimension word was written
    pending_direction: str | None = None  # 从高到低 with no ordering phrase of its own
    per_day: bool = False
    counts_events: bool = False  # 涨停多少次: each time counted (a stock's days; a group's stock-days)
    all_of: bool = False
    has_count_unit: bool = False  # a count word (只, 个, 家) was said
    counts_stocks: bool = False  # one that counts stocks (3个行业 counts groups)
    names_stocks: bool = False  # a word for stocks was said (股票, stocks, 只): the rows are stocks
    leftovers: list[int] = field(default_factory=list)  # indexes of the tokens no rule consumed
    figure_indexes: list[int] = field(default_factory=list)  # report figures shown (单季净利润)
    metric_indexes: list[int] = field(default_factory=list)  # figures named bare (shown per stock)
    having_indexes: list[int] = field(default_factory=list)  # filters on a group's figure (70% of stocks …)


def assemble(
    model: SemanticModel,
    tokens: list[Token],
    reading: Reading | None = None,
    *,
    names_stocks: bool = False,
    inside_at: tuple[int, ...] = (),
) -> Screen:
    """`names_stocks`: a word for stocks was said (and dropped as filler): the rows are stocks;
    `inside_at`: where 里/中 (in, among) were said, dropped as filler."""
    reading = reading or Reading()
    found = _collect(model, tokens)
    found.names_stocks = names_stocks or found.counts_stocks
    screen = found.screen
    _order_by_direction_alone(model, screen, found.pending_direction)
    _whole_set_aggregates(model, found)
    _nest_first_ranking(found)
    _order_groups_by_window_aggregate(screen, found)
    _order_groups_by_own_figure(model, tokens, screen, found)
    _choose_group(model, screen, found, reading)
    _count_distribution(tokens, screen)
    _refuse_periods_without_aggregate(tokens, found)
    _refuse_group_filters_without_groups(tokens, found)
    _order_each_stock_by_window_aggregate(model, screen)
    _place_limit(screen, found.limit_numbers, found.has_count_unit)
    conditions = attach_second_times(found.conditions, found.condition_starts, found.times, tokens)
    conditions = repeat_on_joined_day(conditions, found.condition_starts, tokens)
    conditions = attach_report_times(model, conditions, found.condition_starts, found.times)
    if found.order_index >= 0:
        rank_on_latest_day(model, screen, tokens, found.order_index, found.times)
    conditions = rank_subset(
        screen,
        conditions,
        found.condition_indexes,
        found.order_index,
        _ranked_per_group(tokens, found, inside_at),
        reading,
        inside_after_ranking=_inside_after_ranking(tokens, found.order_index, inside_at),
    )
    _limit_per_group(screen)
    conditions = _aggregate_compares_to_having(model, screen, conditions, found.times)
    screen.where = _combine(conditions)
    said_aggregates = bool(screen.aggregates)  # before a bare figure becomes each named group's total
    _each_named_group_figure(model, tokens, screen, found)
    _count_days_per_stock(screen, found.counts_events)
    _window_measures_per_stock(screen)
    _breadth_each_day(screen)
    # 分别 after several figures (涨停家数和跌停家数分别是多少) is each figure's, not each exchange's
    each_group = len(screen.aggregates) < 2 and any(_says_each(token) for token in tokens)
    group_lists(screen, screen.where, reading, each_said=each_group)
    take_share_and_averages_over_scope(screen, reading)
    refuse_groups_without_aggregate(model, screen)
    place_times(model, screen, found.times)
    read_losses_by_valuation(screen)
    refuse_totals_of_ratios(model, tokens, screen)
    # 每天 / each day reads only as a per-day breakdown; anywhere else no rule used it
    unread_days = (
        [] if screen.group_by == "trade_date" else [k for k, t in enumerate(tokens) if _asks_per_day(t)]
    )
    ranked = [k for k in found.leftovers if _among_ranked(tokens, k, screen)]
    # a quarter's own or trailing figure is shown per stock: over groups no rule reads it
    unread_figures = found.figure_indexes if screen.aggregates or screen.group_by else []
    # 各行业的总市值和平均市值 / total and average market cap by exchange: beside a figure computed
    # per group, one named bare is no figure of the group (which: total, average, highest…?)
    grouped_figures = screen.group_by and said_aggregates and not (screen.order or screen.per_group_limit)
    unread_figures += found.metric_indexes if grouped_figures else []
    unread_figures += _figures_beside_whole_set(model, tokens, screen, found)
    refuse_leftovers(
        tokens, [k for k in found.leftovers if k not in ranked] + unread_days + unread_figures, screen
    )
    _refuse_counts_apart(tokens, found)
    refuse_periods_governing_nothing(screen, found.times)
    _refuse_count_order_without_groups(tokens, found, screen)
    return screen


def _figures_beside_whole_set(
    model: SemanticModel, tokens: list[Token], screen: Screen, found: _Collected
) -> list[int]:
    """有市盈率的科创板公司里…的占比 / with a P/E, the share of …: beside one figure computed over the
    whole set (a share, a count, an average), a figure named bare is shown nowhere — the answer is one
    row — and may have said which stocks the set holds; dropped silently it answers another question."""
    if screen.group_by or not screen.aggregates or screen.per_group_limit:
        return []
    shown = set(screen.outputs)
    return [
        k
        for k in found.metric_indexes
        if _shown_name(model, tokens[k]) in shown and not _names_its_condition(model, tokens, k)
    ]


def _names_its_condition(model: SemanticModel, tokens: list[Token], k: int) -> bool:
    """a negative return: the figure said right beside the condition on it only names what it tests."""
    name = _shown_name(model, tokens[k])
    beside = [tokens[j] for j in (k - 1, k + 1) if kind_at(tokens, j) == "cond"]
    return any(isinstance(token.value, Compare) and token.value.metric == name for token in beside)


def _shown_name(model: SemanticModel, token: Token) -> str:
    """The output a figure word shows: 跌幅 is shown as the signed change."""
    metric = metric_of(token)
    return model.metrics[metric].column if model.metrics[metric].negated else metric


def _among_ranked(tokens: list[Token], index: int, screen: Screen) -> bool:
    """among the 50 largest …: 'among' before a ranking that picked the stocks (a ranked subset)."""
    following = [token.kind for token in tokens[index + 1 :] if token.kind not in RANKED_PHRASE]
    subset = any(isinstance(condition, TopSubset) for condition in screen.where)
    return tokens[index].kind == "among" and subset and following[:1] == ["orderspec"]


def _collect(model: SemanticModel, tokens: list[Token]) -> _Collected:
    found = _Collected(
        has_count_unit=any(token.kind == "count_unit" for token in tokens),
        counts_stocks=any(_counts_stocks(tokens, k) for k in range(len(tokens))),
    )
    screen = found.screen
    connector = "and"
    pending_not = ""  # the word of a negation waiting for its condition
    for index, token in enumerate(tokens):
        kind = token.kind
        if kind == "cond":
            condition: Condition = token.value
            if pending_not:
                condition = Not(condition)
                pending_not = ""
            found.conditions.append((condition, bool(token.extra.get("scope")), connector))
            found.condition_starts.append(token.start)
            found.condition_indexes.append(index)
            connector = "and"
        elif kind == "or":
            connector = "or"
        elif kind == "not":
            pending_not = token.text
        elif kind == "timespec":
            found.times.append(token)
        elif kind == "orderspec":
            if found.first_ranking is not None:
                raise NotUnderstood(f"three orderings in one question: '{token.text}'")
            if _restates_order(screen.order, token.value) and token.extra.get("limit") in {None, 1}:
                continue  # 数量最多的5个地区，按数量从多到少排: the same ranking said again
            first = screen.order
            if (
                first
                and not found.counts_stocks
                and _basis_then_direction(first, tokens[found.order_index], token.value)
            ):
                # 按平均涨跌幅算，今天跌得最狠的3个行业: the basis said first with no direction, the
                # move's superlative after it says only which end (its day is the question's)
                screen.order = replace(first, direction=token.value.direction)
                if token.value.time is not None:
                    found.times.append(Token("timespec", token.value.time, "", index))
                if screen.limit is None and token.extra.get("limit") is not None:
                    screen.limit = token.extra["limit"]  # 跌得最狠的行业: the first one
                continue
            if screen.order is not None and screen.order.metric.startswith("agg:"):
                # 平均市盈率最低的5个行业，按市盈率从高到低排: groups were picked, never stocks
                raise NotUnderstood(
                    f"could not place: '{token.text}' (a second ranking after groups ranked by an aggregate)"
                )
            if screen.order is not None:  # ranked among the stocks an earlier ranking picked
                found.first_ranking = (tokens[found.order_index], found.order_index)
                screen.limit = None
            screen.order = token.value
            found.order_index = index
            if token.extra.get("limit") is not None:
                screen.limit = token.extra["limit"]
        elif kind == "groupby":
            if screen.group_by is not None and screen.group_by != token.value:
                # 每个月…的交易日有多少个: days counted within each month is a grouping of groups, not read
                raise NotUnderstood(
                    f"could not place: '{tokens[found.group_index].text}', '{token.text}' (two groupings: "
                    "the rows of one grouped by the other are not read)"
                )
            screen.group_by = token.value
            found.group_index = index
        elif kind == "aggmetric":
            fn, metric = token.value
            screen.aggregates.append(Aggregate(fn, metric, token.extra.get("where")))
            if token.extra.get("time") is not None:
                found.times.append(synthetic("timespec", token.extra["time"], [token]))
        elif kind == "count" and not token.extra and kind_at(tokens, index + 1) == "count_move":
            continue  # how many advancers: the count word of the count that follows
        elif kind in {"count", "share"}:  # a count (of the stocks where its condition holds), a share
            fn = "trading_days" if token.extra.get("days") else kind  # how many trading days
            fn = "stock_days" if token.extra.get("stock_days") else fn  # 涨停家次: stock-day bars
            fn = "groups" if token.extra.get("groups") else fn  # how many industries …: the groups
            found.counts_events = found.counts_events or bool(token.extra.get("events"))
            aggregate = Aggregate(fn, None, token.extra.get("where"))
            if aggregate not in screen.aggregates:  # 数量…各多少家 asks for one count
                screen.aggregates.append(aggregate)
        elif kind == "count_move":  # 上涨家数 / number of decliners; 涨跌家数: both
            for fn in BOTH_COUNTS.get(str(token.value), (str(token.value),)):
                if Aggregate(fn, "pct_chg") not in screen.aggregates:  # breadth: how many advancers …
                    screen.aggregates.append(Aggregate(fn, "pct_chg"))
        elif kind == "having":
            screen.having.append(token.value)
            found.having_indexes.append(index)
        elif _asks_per_day(token):
            found.per_day = True
        elif kind == "all_of":
            found.all_of = True
        elif kind == "daily_values":
            screen.daily_values = True
        elif kind == "out_unit":
            screen.display_unit = float(token.value)
        elif kind == "report_figure":  # 茅台2025年三季度单季净利润: shown, read at the question's period
            screen.figures.append(Figure(str(token.value), str(token.extra["window"])))
            found.figure_indexes.append(index)
        elif kind in {"metric", "change_word"}:
            found.metric_indexes.append(index)
            metric = _shown_name(model, token)
            if metric not in screen.outputs:
                screen.outputs.append(metric)
        elif kind == "dim":
            found.dims.append(token.value)
            found.dim_indexes.append(index)
        elif kind == "number" and not token.extra.get("unit") and float(token.value).is_integer():
            found.limit_numbers.append(int(token.value))
            found.number_indexes.append(index)
        elif kind == "dir" and screen.order is None:
            found.pending_direction = token.value
        elif kind == "dir":
            screen.order = direction_after_ranking(tokens[found.order_index], token)
        elif not is_harmless(token):
            found.leftovers.append(index)
    if pending_not:
        raise NotUnderstood(f"could not place: '{pending_not}' (no condition follows it to negate)")
    return found


def _counts_stocks(tokens: list[Token], k: int) -> bool:
    """A count word (只, 个, 家) says the rows are stocks, unless a dimension word follows it: the
    3 industries (3个行业) are groups counted."""
    return tokens[k].kind == "count_unit" and kind_at(tokens, k + 1) != "dim"


def _restates_order(first: Order | None, again: Order) -> bool:
    """The same ranking said again: the same order, or the measure of a ranking of groups by its
    aggregate said alone (平均涨幅最高的5个行业，按涨幅排: the groups' rows hold only their average)."""
    if first == again:
        return True
    if first is None or not first.metric.startswith("agg:") or again.time or again.other_time or again.agg:
        return False
    return first.metric.split(":")[-1] == again.metric and first.direction == again.direction


def _basis_then_direction(first: Order, first_token: Token, again: Order) -> bool:
    """A ranking of groups by an aggregate said with no direction (按平均涨跌幅), then a superlative of
    the same measure alone (跌得最狠): one ranking, the later words giving its direction."""
    if not first.metric.startswith("agg:") or first_token.extra.get("said_direction"):
        return False
    if first_token.extra.get("limit") is not None or again.agg or again.other_time:
        return False
    return first.metric.split(":")[-1] == again.metric


def _says_each(token: Token) -> bool:
    """各 / 分别 / respectively: each group of a set named by one word is asked (两市各成交了多少亿)."""
    return token.kind in EACH_WORDS and token.value in EACH_WORDS[token.kind]


def _refuse_counts_apart(tokens: list[Token], found: _Collected) -> None:
    """Two how-manys with a condition between them (涨停的多少家，放量的多少家 where no rule paired each
    with its own condition) ask two counts; one count of the stocks meeting both would merge filters
    the question kept apart: refused, never answered. A count of the groups (how many trading days
    … with more than 25 limit-up stocks) counts rows, not stocks: it is no second count of stocks."""
    bare = [
        k
        for k, token in enumerate(tokens)
        if token.kind == "count" and token.extra.get("where") is None and not token.extra.get("groups")
    ]
    for first, second in pairwise(bare):
        if any(first < k < second for k in found.condition_indexes):
            raise NotUnderstood(
                f"could not place: '{tokens[first].text}', '{tokens[second].text}' (several counts asked, "
                "each of its own stocks: ask them one at a time)"
            )


def _asks_per_day(token: Token) -> bool:
    return token.kind == "per_day" or (token.kind == "consecutive" and "each" in token.text)


def _inside_after_ranking(tokens: list[Token], order_index: int, inside_at: tuple[int, ...]) -> bool:
    """成交额前100的股票里 + an entity: 里/中 said between the ranking and the token after it."""
    if order_index < 0 or order_index + 1 >= len(tokens):
        return False
    return any(tokens[order_index].start < k < tokens[order_index + 1].start for k in inside_at)


def _ranked_per_group(tokens: list[Token], found: _Collected, inside_at: tuple[int, ...]) -> bool:
    """各行业市值前三 / the top 3 by market cap in each industry: the grouping is written before the
    ranking or right after it in the same phrase; after a break (市值前100的公司里，各行业…), or 里/中
    closing the ranked set (市值前100的公司里各行业有几家), it groups what the ranking picked."""
    order, group = found.order_index, found.group_index
    if group < 0 or order < 0 or any(token.kind == "distribution" for token in tokens):
        return False  # 成交额前50的股票按板块分布: how the 50 spread over the boards
    if group < order:
        return True
    same_phrase = all(tokens[k].kind in {"timespec", "count_unit"} for k in range(order + 1, group))
    return same_phrase and not any(tokens[order].start < k < tokens[group].start for k in inside_at)


def _orders_by_aggregate(screen: Screen) -> bool:
    return screen.order is not None and screen.order.metric.startswith("agg:")


def _order_by_direction_alone(model: SemanticModel, screen: Screen, direction: str | None) -> None:
    """各行业成交额合计，按从高到低排列: order by the one aggregate (or metric) asked about."""
    if screen.order is not None or direction is None:
        return
    first = screen.aggregates[0] if screen.aggregates else None
    if first is not None and (first.metric or (first.fn == "count" and first.where is None)):
        screen.order = Order(f"agg:{first.fn}:{first.metric or ''}", direction)  # 各地区公司数量，从高到低
    elif first is not None and first.fn == "share":  # 各行业红盘率，从高到低: by the share shown
        screen.order = Order("agg:share:", direction)
    elif screen.outputs and screen.outputs[0] in model.metrics:
        screen.order = Order(screen.outputs[0], direction)


BOTH_COUNTS = {"count_up_down": ("count_up", "count_down")}  # 涨跌家数: the advancers and the decliners
EXTREME_OF = {"high": "max", "low": "min"}  # a window's high is its highest high, its low the lowest low
CALENDAR_WINDOWS = {
    "recent_days", "recent_bars", "recent_weeks", "recent_months", "this_year", "last_year", "year_before",
    "this_month", "last_month", "this_week", "last_week", "year", "quarter", "month", "date_range", "since",
    "half", "this_quarter", "last_quarter",
}  # fmt: skip


def _whole_set_aggregates(model: SemanticModel, found: _Collected) -> None:
    """'Total market cap of all bank stocks' → a sum; 'highest close of one stock' → a max (over the
    ranking's window: Wuliangye's highest close so far this year), and its high (low) over a window →
    the highest high (lowest low)."""
    screen, conditions, times = found.screen, found.conditions, found.times
    plain = screen.order is None and not screen.aggregates and screen.group_by is None
    metrics = [name for name in screen.outputs if name in model.metrics]
    if found.all_of and plain and len(metrics) == 1:
        screen.aggregates.append(Aggregate("sum", metrics[0]))
        screen.outputs.remove(metrics[0])
        found.metric_indexes.clear()  # the bare figure is the set's total now (每天的全市场成交额: per day)
        return
    one_stock = [c for c, _is_scope, _ in conditions if isinstance(c, Scope) and c.kind == "stock"]
    named = len(one_stock) == 1 and len(one_stock[0].values) == 1
    extremes = [EXTREME_OF.get(metric, "") for metric in metrics] if screen.outputs == metrics else []
    extreme = bool(extremes) and all(extremes)
    window = len(times) == 1 and times[0].value.label in CALENDAR_WINDOWS
    if named and plain and extreme and window and len(conditions) == 1 and not found.per_day:
        # 茅台今年的最高价 / Moutai's high this year: the window's highest high, not each day's (最高价和
        # 最低价: its highest high and its lowest low)
        screen.aggregates.extend(map(Aggregate, extremes, metrics))
        screen.outputs.clear()
        screen.daily_values = True
        return
    order = screen.order
    if (order is not None and screen.limit == 1 and len(one_stock) == 1 and len(one_stock[0].values) == 1
            and not screen.aggregates and order.metric in model.metrics):  # fmt: skip
        screen.aggregates.append(Aggregate("max" if order.direction == "desc" else "min", order.metric))
        screen.daily_values = True
        if order.time is not None and screen.time == TimeSpec():  # highest close so far this year: over it
            screen.time = order.time
        screen.order, screen.limit = None, None


def _nest_first_ranking(found: _Collected) -> None:
    """市值前50的股票中市盈率最低的5只 / among the 50 largest by market cap, the 5 with the lowest P/E:
    the earlier ranking picks the stocks (with the number written next to it), among the conditions
    written before it; the later ranking orders what it picked."""
    if found.first_ranking is None:
        return
    token, at = found.first_ranking
    limit = token.extra.get("limit")
    later = found.order_index  # the later ranking's number is written right next to it
    mine = [
        k for k, index in enumerate(found.number_indexes)
        if index < later and index not in {later - 1, later + 1} and abs(index - at) <= NUMBER_REACH
    ]  # fmt: skip
    if mine and limit in {None, 1}:
        k = min(mine, key=lambda k: abs(found.number_indexes[k] - at))
        limit = found.limit_numbers.pop(k)
        found.number_indexes.pop(k)
    if limit is None:
        raise NotUnderstood(f"two orderings in one question: '{token.text}' — say how many it picks")
    before = [k for k, index in enumerate(found.condition_indexes) if index < at]
    within = tuple(found.conditions[k][0] for k in before)
    subset = TopSubset(token.value, int(limit), within)
    kept = [k for k in range(len(found.conditions)) if k not in before]
    found.conditions = [(subset, False, "and"), *(found.conditions[k] for k in kept)]
    found.condition_starts = [token.start, *(found.condition_starts[k] for k in kept)]
    found.condition_indexes = [at, *(found.condition_indexes[k] for k in kept)]


def _order_groups_by_window_aggregate(screen: Screen, found: _Collected) -> None:
    """Which industry had the highest average turnover over the last 10 days: with a dimension word
    and no word for stocks, the groups are ranked by the aggregate (its window is the question's)."""
    order = screen.order
    if order is None or order.agg is None or not found.dims or found.counts_stocks or screen.group_by:
        return
    if order.time is not None:
        found.times.append(Token("timespec", order.time, "", found.order_index))
    screen.order = Order(f"agg:{order.agg}:{order.metric}", order.direction)


def _order_groups_by_own_figure(
    model: SemanticModel, tokens: list[Token], screen: Screen, found: _Collected
) -> None:
    """今天成交额最大的行业是哪个 / the region with the most listed companies: a ranking written right
    next to a dimension word, with no word for stocks, ranks the groups by their own figure — a
    money or share amount's total, any other figure's average (a count stays a count)."""
    order = screen.order
    if order is None or order.agg is not None or found.names_stocks or screen.group_by:
        return
    beside = _dimension_places_beside(tokens, found.order_index)
    if not any(index in beside for index in found.dim_indexes):
        return
    if _orders_by_aggregate(screen):
        return  # already a group's aggregate (数量最多, 平均市盈率最低)
    metric = model.metrics.get(order.metric)
    if metric is None:
        return
    if order.time is not None:
        found.times.append(Token("timespec", order.time, "", found.order_index))
    screen.order = Order(f"agg:{_group_figure(metric)}:{order.metric}", order.direction)


def _dimension_places_beside(tokens: list[Token], k: int) -> set[int]:
    """Where a dimension word said with the ranking at k stands: right next to it, after the number
    of groups (成交额最大的3个行业), or before 'with' (the board with the largest traded value)."""
    places = {k - 1, k + 1}
    if kind_at(tokens, k + 1) == "number" and kind_at(tokens, k + 2) == "count_unit":
        places.add(k + 3)
    if k > 0 and tokens[k - 1].text == "with":
        places.add(k - 2)
    return places


def _window_measures_per_stock(screen: Screen) -> None:
    """茅台近20个交易日的最大回撤 / 宁德时代2025年的波动率: a measure of a window of days with no grouping
    nor ranking is each stock's own figure (a set of stocks has no such aggregate)."""
    if screen.group_by is not None or screen.order is not None:
        return
    measures = [a for a in screen.aggregates if a.fn in WINDOW_MEASURES and a.metric and a.where is None]
    if not measures or len(measures) != len(screen.aggregates):
        return
    if screen.limit is not None and len(measures) == 1 and measures[0].fn in RUN_LENGTHS:
        # the 5 stocks with the longest winning streak: the superlative is in the measure's own name,
        # so a number of stocks asked ranks by it (never the first 5 codes)
        screen.order = Order(str(measures[0].metric), "desc", agg=measures[0].fn)
        screen.aggregates = []
        return
    screen.figures += [Figure(str(aggregate.metric), aggregate.fn) for aggregate in measures]
    screen.aggregates = []


def _count_days_per_stock(screen: Screen, counts_events: bool) -> None:
    """涨停次数 / number of limit-up days with no grouping: counted for each stock (the days an event
    happened are a stock's figure, as 每只股票 would say). The times it happened in a group (每个月涨停
    多少次) are its stocks' times: the stock-days, where the days alone would count each day once."""
    shown_days = any(a.fn == "trading_days" and a.where is not None for a in screen.aggregates)
    if shown_days and screen.group_by is None:
        screen.group_by = "ts_code"
    elif shown_days and counts_events and screen.group_by != "ts_code":
        screen.aggregates = [
            replace(a, fn="stock_days") if a.fn == "trading_days" and a.where is not None else a
            for a in screen.aggregates
        ]


def _breadth_each_day(screen: Screen) -> None:
    """daily advance/decline ratio, 每日上涨家数 over a window: one figure per day (a count of the
    stocks that rose has no 'daily value' to aggregate)."""
    breadth = screen.aggregates and all(a.fn in BREADTH_AGGREGATES for a in screen.aggregates)
    if screen.daily_values and breadth and screen.group_by is None:
        screen.group_by, screen.daily_values = "trade_date", False


def _group_figure(metric: Metric) -> str:
    """A group's own figure of a metric: a money or share amount adds up, any other is averaged."""
    return "sum" if metric.unit_kind in {"money", "shares"} else "avg"


def _each_named_group_figure(
    model: SemanticModel, tokens: list[Token], screen: Screen, found: _Collected
) -> None:
    """深市和沪市今天成交额分别多少亿 / 各交易所的成交额分别是多少: a money or share amount with
    分别/各/respectively after several named groups (or with 分别 after a grouping), no aggregate word
    and no word for stocks, is each group's total (one row per group, `group_lists`). Any other
    figure of a group (an average? a median?) stays refused, asking which."""
    if screen.aggregates or screen.order or found.names_stocks or not screen.outputs:
        return
    said = {token.kind for token in tokens if _says_each(token)}
    listed = [
        c for c in screen.where if isinstance(c, Scope) and c.kind in LIST_DIMENSIONS and len(c.values) > 1
    ]
    named_groups = not screen.group_by and len(listed) == 1 and len(screen.where) == 1 and said
    grouped = screen.group_by and not screen.where and "quantifier" in said
    metrics = [model.metrics.get(output) for output in screen.outputs]
    flows = all(metric is not None and metric.unit_kind in {"money", "shares"} for metric in metrics)
    if (named_groups or grouped) and flows:
        screen.aggregates = [Aggregate("sum", metric.key) for metric in metrics if metric]
        screen.outputs = []


def _choose_group(model: SemanticModel, screen: Screen, found: _Collected, reading: Reading) -> None:
    """A dimension word groups when something is aggregated; otherwise it is shown."""
    ordered_by_aggregate = _orders_by_aggregate(screen)
    if found.per_day and screen.group_by is None and (screen.aggregates or ordered_by_aggregate):
        screen.group_by = "trade_date"
    conditions = [condition for condition, _is_scope, _connector in found.conditions]
    aggregated = screen.aggregates or screen.having or ordered_by_aggregate
    times = [token.value for token in found.times]
    compared = found.dims and groups_by_aggregate_comparison(model, conditions, times, reading)
    grouping = aggregated or compared
    for dim in found.dims:
        if screen.group_by is None and grouping:
            screen.group_by = dim
        elif dim not in screen.outputs and dim != screen.group_by:
            screen.outputs.append(dim)


def _count_distribution(tokens: list[Token], screen: Screen) -> None:
    """按行业分布 / break down … by industry with nothing computed: how many stocks fall in each group
    (so that a ranking said before it picks the stocks counted, never ranks within each group)."""
    said = any(token.kind == "distribution" for token in tokens)
    if said and screen.group_by is not None and not screen.aggregates:
        screen.aggregates.append(Aggregate("count", None, None))


def _refuse_periods_without_aggregate(tokens: list[Token], found: _Collected) -> None:
    """每个月 / every quarter groups by period only when something is counted or computed per period:
    'lost money in every quarter of 2025' asks for a condition held in each period, which no rule
    reads as a grouping (the rows would be periods with nothing in them)."""
    screen = found.screen
    computed = screen.aggregates or screen.having or _orders_by_aggregate(screen)
    if screen.group_by in PERIOD_GROUPINGS and found.group_index >= 0 and not computed:
        raise NotUnderstood(
            f"could not place: '{tokens[found.group_index].text}' (no rule reads these words; "
            "they change the meaning)"
        )


def _refuse_group_filters_without_groups(tokens: list[Token], found: _Collected) -> None:
    """A filter on a group's figure (more than 70% of stocks rose) with no group and nothing
    computed filters nothing: 'within 5% of their 52-week high' read as a share of stocks would
    list the stocks unfiltered, so its words are refused instead. Days counted with a filter on a
    count (有多少个交易日涨停家数超过25家) would filter the window's total, not each day: refused too
    (the days themselves are listed: 涨停家数超过25家的交易日)."""
    screen = found.screen
    counts_days = any(aggregate.fn == "trading_days" for aggregate in screen.aggregates)
    if screen.having and screen.group_by is None and (not screen.aggregates or counts_days):
        words = ", ".join(f"'{tokens[k].text}'" for k in found.having_indexes)
        raise NotUnderstood(f"could not place: {words} (no rule reads these words; they change the meaning)")


def _order_each_stock_by_window_aggregate(model: SemanticModel, screen: Screen) -> None:
    """日均成交额最大的股票: without groups the aggregate runs over each stock's window."""
    if not _orders_by_aggregate(screen) or screen.group_by is not None or screen.order is None:
        return
    _prefix, fn, metric_key = screen.order.metric.split(":", 2)
    if metric_key in model.metrics and model.metrics[metric_key].kind == "daily":
        screen.order = Order(metric_key, screen.order.direction, time=screen.order.time, agg=fn)


def _refuse_count_order_without_groups(tokens: list[Token], found: _Collected, screen: Screen) -> None:
    """A ranking of groups by their count of stocks (the most profitable companies) with no groups to
    rank would order nothing and cut the stocks anywhere: refused, named."""
    counted = screen.order is not None and screen.order.metric == "agg:count:"
    if counted and screen.group_by is None and found.order_index >= 0:
        words = tokens[found.order_index].text
        raise NotUnderstood(f"could not place: '{words}' (a ranking of groups, and no groups are named)")


def _place_limit(screen: Screen, limit_numbers: list[int], has_count_unit: bool) -> None:
    """A number left over is the limit of the ordering (涨幅最大的10只); with groups, the limit per group."""
    if len(limit_numbers) > 1 or (limit_numbers and screen.order is None and not has_count_unit):
        raise NotUnderstood("could not place the number(s): " + ", ".join(str(n) for n in limit_numbers))
    if limit_numbers and (screen.order is None or screen.limit in {None, 1}):
        screen.limit = limit_numbers[0]


def _limit_per_group(screen: Screen) -> None:
    """各行业涨幅前三: with groups, the limit of a stock ordering is the limit in each group."""
    if (
        screen.group_by
        and screen.limit is not None
        and screen.order is not None
        and not _orders_by_aggregate(screen)
    ):
        screen.per_group_limit, screen.limit = screen.limit, None


def _aggregate_compares_to_having(
    model: SemanticModel, screen: Screen, conditions: list[PlacedCondition], times: list[Token]
) -> list[PlacedCondition]:
    """With groups, a comparison on an aggregate (平均市盈率低于20的行业) filters the groups. A report
    period said inside the average (an average FY2024 ROE above 9%) is the question's period: the
    groups' figures are read at it (with another time said too, which one the groups take is unsaid)."""
    if not screen.group_by:
        return conditions
    kept = []
    for condition, is_scope, connector in conditions:
        own_period = (
            isinstance(condition, Compare)
            and condition.time is not None
            and one_report_figure(model, condition.metric, condition.time)
        )
        if isinstance(condition, Compare) and condition.agg and own_period and condition.time is not None:
            if times or screen.time not in (TimeSpec(), condition.time):
                raise NotUnderstood(
                    f"the average {condition.metric} has a period of its own beside another time: "
                    "say which period the groups' figures are for"
                )
            screen.time = condition.time
            screen.having.append(replace(condition, time=None))
        elif isinstance(condition, Compare) and condition.agg and condition.time is None:
            screen.having.append(condition)
        else:
            kept.append((condition, is_scope, connector))
    return kept


def _combine(conditions: list[PlacedCondition]) -> list[Condition]:
    """Entity scopes are AND-ed at top level; other conditions follow AND-before-OR precedence."""
    scopes = [condition for condition, is_scope, _connector in conditions if is_scope]
    rest = [(condition, connector) for condition, is_scope, connector in conditions if not is_scope]
    if not rest:
        return scopes
    groups: list[list[Condition]] = [[rest[0][0]]]
    for condition, connector in rest[1:]:
        if connector == "or":
            groups.append([condition])
        else:
            groups[-1].append(condition)
    if len(groups) == 1:
        return scopes + groups[0]
    disjuncts = tuple(group[0] if len(group) == 1 else BoolOp("and", tuple(group)) for group in groups)
    return [*scopes, BoolOp("or", disjuncts)]
