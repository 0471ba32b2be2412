"""Nothing silently ignored: which tokens may be left after every pass, and the refusal for the rest.

Filler words (filler_words.yaml) are dropped before the passes. After them, a token no rule consumed
may stay only if it cannot change the answer: a connector, a unit word, or a word restating what a
rule already read (分别 / a trailing 各 after a grouping, 都 after a condition held over several
periods, "only" or "among" right before a filter). Anything else (各, 以后, 每天, 都, 平均, only,
since, excluding, at least, twice …) means a rule is missing, so the question is refused with those
words named rather than answered without them.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.domain.language.ir import (
    BoolOp,
    Compare,
    Condition,
    Frequency,
    GrowthStreak,
    Not,
    Scope,
    Screen,
    Sustained,
    Technical,
)
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.composition import LIST_DIMENSIONS
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.rewriting import kind_at
from backend.domain.language.parser.time_placement import joined_days, joined_to_said_day

# kinds that never carry a condition of their own ("and", 只/家, 之间, 成分股, 上市, 年报, 排名)
HARMLESS = {"count_unit", "betw_end", "constituent", "listed", "annual", "order", "and", "dir"}
# words of an otherwise meaningful kind that are also plain connectives or copulas
CONNECTIVE_TEXTS = {"to": {"和", "与", "and"}, "cmp": {"是", "为"}, "between": {"在", "处于"}}
# streaks hold over several days, so 都 may restate them too
STREAK_KINDS = {"up_streak", "down_streak", "volume_up_streak", "volume_down_streak"}
# window measures counted in trading days: the longest run of up / down days
RUN_LENGTHS = {"longest_up_streak", "longest_down_streak"}
# metrics that are themselves year-on-year growth rates (fina_indicator)
YOY_RATES = {"netprofit_yoy", "or_yoy"}
# the name of a crossing of two averages, said again beside the crossing the rules read (a 死叉 in
# brackets after 10日线下穿30日线): only the name, never a verb (跌破) that could be another condition
CROSS_NAMES = {
    "cross_below": ({"死叉", "death cross", "death crosses"}, "ma_death_cross"),
    "cross_above": ({"金叉", "golden cross", "golden crosses"}, "ma_golden_cross"),
}
# a screener word with no threshold of its own (冲高回落), restated by the question's own conditions
# (冲高回落，盘中最高涨幅超过7%但收盘涨幅不到1%): each measure compared on the side the word says
RESTATED_BY_CONDITIONS = {
    "冲高回落": (("high_pct", {">", ">="}), ("pct_chg", {"<", "<="})),
}
# how much is asked (多少亿, 是多少 at the end) after a 各 of several figures, never a condition (各超过10亿)
ASKED_AMOUNTS = {"count", "out_unit", ""}  # "": 多少 said last, dropped as a filler
# what "only" / "among" may point at: a filter the rules read ("only industries with more than 10")
FILTERS = {"cond", "having"}
SKIPPED_BEFORE_FILTER = {"dim", "and", "count_unit", "count"}  # 只看股票数超过100只的地区
# the average named as a thing to show (带上平均值, 列出均值: the verbs are filler), not 平均 + a figure
AVERAGE_NOUNS = {"平均值", "均值"}
CLAUSE_BREAKS = {",", "，", ";", "；"}


def is_harmless(token: Token) -> bool:
    # "the market" with no comparison to read it was filler before it named a benchmark; 大盘 never was
    english_benchmark = token.kind == "benchmark" and token.text.isascii()
    # sorted by / ranked by left over: the figure it orders by was not read (sorted by that growth)
    names_a_basis = token.kind == "order" and token.text.endswith(" by")
    return not names_a_basis and (
        token.kind in HARMLESS or token.text in CONNECTIVE_TEXTS.get(token.kind, set()) or english_benchmark
    )


def refuse_leftovers(tokens: list[Token], leftovers: list[int], screen: Screen) -> None:
    """Refuse the question if a leftover token (by index) could change its meaning, naming the words."""
    meaningful = [tokens[k] for k in leftovers if not _restates(tokens, k, screen)]
    if meaningful:
        words = ", ".join(f"'{token.text}'" for token in meaningful[:6])
        raise NotUnderstood(f"could not place: {words} (no rule reads these words; they change the meaning)")


def _restates(tokens: list[Token], index: int, screen: Screen) -> bool:
    token = tokens[index]
    if token.kind == "quantifier" and token.value == "each":  # 各行业分别有几家, 茅台和五粮液分别…
        several = len(screen.aggregates) > 1 and not _names_several_groups(screen)  # 主板和创业板…: per group
        several = several or _several_figures(screen)
        return screen.group_by is not None or _lists_named_stocks(screen) or several  # 营收和净利润分别…
    if token.kind == "traded_daily":  # traded every day and never fell…: a bar each day, which every
        return any(_every_day(condition) for condition in screen.where)  # day's condition needs anyway
    if token.kind == "tunit" and token.value in {"day", "trading_day"}:  # longest winning streak (days)
        return _counts_streak_days(screen)
    if token.kind == "when":  # the days when …: the days were made the rows
        return screen.group_by == "trade_date"
    if token.kind == "hits":  # Moutai hits a new high: the verb of reaching, before what it reached
        return _next_kind(tokens, index) == "cond"
    if token.kind == "distribution":  # 涨停股按板块分布: a distribution is the grouping itself
        return screen.group_by is not None
    if token.kind == "per":  # 省份有哪些，各多少家: a 各 with no dimension after it repeats the grouping
        several = screen.group_by is not None or len(screen.aggregates) > 1  # 上涨家数和下跌家数各是多少
        copula = index + 1 < len(tokens) and tokens[index + 1].text in CONNECTIVE_TEXTS["cmp"]  # 各是多少
        asked = _next_kind(tokens, index + copula) in ASKED_AMOUNTS  # 茅台的营收和净利润各多少亿: shown
        several = several or (asked and _names_stocks(screen) and _several_figures(screen))
        several = several or (asked and _ranks_several_stocks(screen))  # 权重最大的5只，权重各是多少
        return several and _next_kind(tokens, index) != "dim"
    if token.kind == "quantifier" and _said_of_joined_days(tokens, index):  # 昨天和今天都涨停, both … and
        return True
    if token.kind == "quantifier":  # 连续三年ROE都在15%以上
        return any(_held_over_periods(condition) for condition in screen.where)
    if token.kind == "latest_period":  # 最近一期年报 (alone it is the time scope latest_report)
        return _next_kind(tokens, index) == "timespec" and tokens[index + 1].value.label == "annual"
    if token.kind == "volatility_definition":  # most volatile …, measured by the std dev of daily % change
        return _measures_volatility(screen)
    if token.kind == "shown_value":  # … above 15% over the last 20 sessions, with that average
        return _shows_an_average(screen)
    if token.kind == "agg" and token.text in AVERAGE_NOUNS:  # 平均ROE超过5%的行业，带上平均值
        return _asked_last_after_comma(tokens, index) and _shows_an_average(screen)
    if token.kind == "of_float":  # turning over 10% of their float: what a turnover rate is a share of
        previous = tokens[index - 1] if index > 0 else None
        return previous is not None and previous.kind == "cond" and _compares(previous.value, "turnover_rate")
    if token.kind == "yoy":  # revenue growth yoy: the growth rate is already year on year
        previous = tokens[index - 1] if index > 0 else None
        return previous is not None and previous.kind == "metric" and previous.value in YOY_RATES
    if token.kind in CROSS_NAMES and token.text in CROSS_NAMES[token.kind][0]:  # MA10下穿MA30的股票（死叉）
        return any(_holds_technical(condition, CROSS_NAMES[token.kind][1]) for condition in screen.where)
    if token.kind == "any":  # a winning streak of 15 days or more at some point in 2025
        # Any stocks that …? / any death crosses among … today?: a question asking which (曾经 before a
        # condition is a time; "any bank" may mean any one of them: neither is this)
        # any death crosses …? (10-day MA falling through the 30-day): the crossing named, then read
        named = _next_kind(tokens, index) in CROSS_NAMES and _restates(tokens, index + 1, screen)
        event = token.text == "any" and (_next_kind(tokens, index) == "cond" or named) and len(tokens) > 1
        event = event and not tokens[index + 1].extra.get("scope")
        asked = index == 0 and (_next_kind(tokens, index) == "count_unit" or event)
        return asked or _longest_run_at_least(screen)
    if token.kind == "undefined" and token.text in RESTATED_BY_CONDITIONS:
        return all(
            _compared_on_side(screen.where, metric, ops) for metric, ops in RESTATED_BY_CONDITIONS[token.text]
        )
    if token.kind == "again":  # 昨天涨停、今天接着涨停: the same event read again on a later day
        # limit-up yesterday and again today, rose yesterday and again today
        following = index + 1 < len(tokens)
        joined = following and (
            joined_days(tokens, index + 1) or joined_to_said_day(tokens, index + 1) is not None
        )
        return joined or _same_event_on_later_day(tokens, index) or _also_another_condition(tokens, index)
    if token.kind == "between" and token.text == "from":  # BYD's ROE and gross margin from its latest report
        return _figures_from_report(tokens, index, screen)
    if token.kind == "then":  # 昨天还跌停，今天就收红: the later condition read with its own day
        return _later_day_condition(tokens, index)
    if token.kind == "at_close":  # 今天低开、最后收红: the close said after the open of the same day
        return _close_after_other_condition(tokens, index)
    if token.kind == "how_much":  # CATL's TTM net profit — how much?: the named stocks' figures shown
        return _shows_named_figures(screen) or _ranked_figure_again(tokens, index, screen)
    if token.kind in {"only", "among"}:  # only industries with more than 10 …, among ChiNext stocks
        trailing = token.kind == "only" and index == len(tokens) - 1 and index > 0  # main board only
        if trailing and tokens[index - 1].kind == "cond" and tokens[index - 1].extra.get("scope"):
            return True
        if token.kind == "only" and _previous_kind(tokens, index, skip={"count_unit"}) == "having":
            return _next_kind(tokens, index) in {"", "and"}  # industries with 50+ stocks only[, …]
        return _next_kind(tokens, index, skip=SKIPPED_BEFORE_FILTER) in FILTERS
    return False


def _asked_last_after_comma(tokens: list[Token], index: int) -> bool:
    """The word closes the question, in a clause of its own (…的行业，带上平均值)."""
    previous = tokens[index - 1] if index > 0 else None
    after_comma = previous is not None and previous.kind == "and" and previous.text in CLAUSE_BREAKS
    return after_comma and all(is_harmless(token) for token in tokens[index + 1 :])


def _several_figures(screen: Screen) -> bool:
    """Two or more figures shown, never of groups named (主板和创业板的换手率分别: per group)."""
    several = len(screen.outputs) + len(screen.figures) > 1
    return several and not _names_several_groups(screen)


def _compares(condition: Condition, metric: str) -> bool:
    return isinstance(condition, Compare) and condition.metric == metric


def _compared_on_side(conditions: Sequence[Condition], metric: str, ops: set[str]) -> bool:
    """A plain comparison of `metric` on one of the sides `ops`, among the conditions AND-ed."""
    for condition in conditions:
        if (
            isinstance(condition, BoolOp)
            and condition.op == "and"
            and _compared_on_side(condition.items, metric, ops)
        ):
            return True
        if isinstance(condition, Compare) and condition.metric == metric and condition.op in ops:
            return True
    return False


def _same_event_on_later_day(tokens: list[Token], index: int) -> bool:
    """接着 / 又 / again before a condition said earlier too, with a day said in between (昨天涨停、今天又
    涨停): each day's condition is read with its own day, so the word only restates that it repeats."""
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if following is None or following.kind != "cond":
        return False
    for k in range(index - 1, -1, -1):
        if tokens[k].kind == "cond" and tokens[k].value == following.value:
            return any(token.kind == "timespec" for token in tokens[k + 1 : index])
    return False


# the report periods a figure is taken from (its latest report, the 2024 annual report)
REPORTS_TAKEN_FROM = {"latest_report", "annual"}


def _figures_from_report(tokens: list[Token], index: int, screen: Screen) -> bool:
    """from + a report period closing a question that only shows figures of the stocks it names (BYD — ROE
    and gross margin from its most recent report): the period the figures are taken from, as "in" says it;
    beside a change, a ranking or any condition (increase in ROE from Q2) it may be a base, left to refuse."""
    following = index + 1
    period = kind_at(tokens, following) == "timespec" and tokens[following].value.label in REPORTS_TAKEN_FROM
    closing = all(is_harmless(token) for token in tokens[following + 1 :])
    shown_only = (
        screen.order is None and not screen.aggregates and all(isinstance(c, Scope) for c in screen.where)
    )
    return period and closing and shown_only and kind_at(tokens, index - 1) == "metric"


# between two conditions, what may stand beside 就 / then (昨天跌停，今天就收红; …, then bounced today)
BESIDE_THEN = {"timespec", "and", "to", "then"}  # and then: "and" is read as `to` first


def _later_day_condition(tokens: list[Token], index: int) -> bool:
    """就 / then between two conditions, each with a day of its own (昨天还跌停，今天就收红; fell yesterday,
    then rose today): each is read on its day, so the word only restates their order; without a day for
    each, or the same day for both (涨停，就回落; rose today, then fell: when?), it is left to refuse."""
    before = _nearest_condition(tokens, index, -1)
    after = _nearest_condition(tokens, index, 1)
    if before is None or after is None:
        return False
    said_before = [k for k in (before - 1, before + 1) if kind_at(tokens, k) == "timespec"]
    earlier = getattr(tokens[before].value, "time", None) or (
        tokens[said_before[0]].value if said_before else None
    )
    # the later one's day: its own, said between the two (今天就收红) or right after it (then bounced today)
    said_after = [
        k
        for k in (*range(before + 1, after), after + 1)
        if kind_at(tokens, k) == "timespec" and k not in said_before
    ]
    later = getattr(tokens[after].value, "time", None) or (
        tokens[said_after[0]].value if said_after else None
    )
    return earlier is not None and later is not None and earlier != later


def _nearest_condition(tokens: list[Token], index: int, step: int) -> int | None:
    """The condition next to the word (step −1 before it, +1 after it), only days and connectives between."""
    k = index + step
    while 0 <= k < len(tokens) and tokens[k].kind in BESIDE_THEN:
        k += step
    return k if 0 <= k < len(tokens) and tokens[k].kind == "cond" else None


# the words of a condition of the day's close (收红, 收涨, 收阳, closed up, finished in the green)
CLOSE_WORD_STARTS = ("收", "closed", "closing", "finished", "ended")
# the words of a condition of how the day went before its close (低开, 冲高, gapped down, opened lower)
INTRADAY_MARKS = ("开", "冲高", "盘中", "跳空", "探底", "open", "gap", "intraday")


def _close_after_other_condition(tokens: list[Token], index: int) -> bool:
    """最后 / in the end right before a condition of the close, a condition of how the day opened or went
    said before it (低开、最后收红): the close is how the day ended anyway, so the word restates it."""
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if following is None or following.kind != "cond" or not following.text.startswith(CLOSE_WORD_STARTS):
        return False
    before = _nearest_condition(tokens, index, -1)
    return before is not None and any(mark in tokens[before].text for mark in INTRADAY_MARKS)


def _said_of_joined_days(tokens: list[Token], index: int) -> bool:
    """都 right after two days joined by and (昨天和今天都涨停), or both right before them (limit-up
    both yesterday and today): the condition on each day, as `attach_second_times` reads it."""
    if tokens[index].value != "all":
        return False
    after = index + 3 < len(tokens) and joined_days(tokens, index + 3)
    return joined_days(tokens, index - 1) or (tokens[index].text == "both" and after)


def _also_another_condition(tokens: list[Token], index: int) -> bool:
    """又 after a connective, between two different conditions (PB不到1倍、又亏损), the figure a one-word
    condition is of said before it or not (市净率又破净): "and also", AND-ed like the connective; never
    said of the same condition (涨停、又涨停 repeats it: again, refused)."""
    subject = kind_at(tokens, index - 1) == "metric"  # 市净率又破净: shown, as in 市净率破净
    if tokens[index].text != "又" or index < 2 + subject or index + 1 >= len(tokens):
        return False
    before, connective = tokens[index - 2 - subject], tokens[index - 1 - subject]
    after = tokens[index + 1]
    joined = connective.kind == "and" and before.kind == "cond" and after.kind == "cond"
    return joined and before.value != after.value


def _holds_technical(condition: Condition, kind: str) -> bool:
    if isinstance(condition, BoolOp):
        return any(_holds_technical(item, kind) for item in condition.items)
    return isinstance(condition, Technical) and condition.kind == kind


def _counts_streak_days(screen: Screen) -> bool:
    """The screen shows or ranks the longest run of up (down) days: a count of trading days, so a
    unit word for days only restates it."""
    shown = {aggregate.fn for aggregate in screen.aggregates} | {figure.window for figure in screen.figures}
    if screen.order is not None:
        shown |= {screen.order.agg or "", *screen.order.metric.split(":")}
    return bool(shown & RUN_LENGTHS)


def _longest_run_at_least(screen: Screen) -> bool:
    """The window's longest run of up (down) days is at least N: a run that long at some point of the
    window, so "at some point" / ever restates it (never with "at most", which some shorter run meets)."""
    return any(
        isinstance(condition, Compare) and condition.agg in RUN_LENGTHS and condition.op in {">", ">="}
        for condition in screen.where
    )


def _every_day(condition: Condition) -> bool:
    if isinstance(condition, BoolOp):
        return any(_every_day(item) for item in condition.items)
    return isinstance(condition, Frequency) and condition.op == "every"


def _measures_volatility(screen: Screen) -> bool:
    """The screen ranks or compares the volatility of the daily change (its standard deviation)."""
    ranked = (
        screen.order is not None and screen.order.agg == "stddevSamp" and screen.order.metric == "pct_chg"
    )
    compared = any(
        isinstance(c, Compare) and c.agg == "stddevSamp" and c.metric == "pct_chg" for c in screen.where
    )
    return ranked or compared


def _shows_an_average(screen: Screen) -> bool:
    """The screen already shows an average: one it compares (avg over a window, or each group's: 平均ROE
    在8%以上的行业) or one it computes."""
    compared = any(isinstance(c, Compare) and c.agg == "avg" for c in [*screen.where, *screen.having])
    return compared or any(aggregate.fn == "avg" for aggregate in screen.aggregates)


def _lists_named_stocks(screen: Screen) -> bool:
    """A list of several named stocks shown one row each (nothing aggregated over them)."""
    return not screen.aggregates and any(
        isinstance(condition, Scope) and condition.kind == "stock" and len(condition.values) > 1
        for condition in screen.where
    )


def _names_stocks(screen: Screen) -> bool:
    """Stocks named and shown one row each (nothing aggregated over them)."""
    return not screen.aggregates and any(
        isinstance(condition, Scope) and condition.kind == "stock" for condition in screen.where
    )


def _ranks_several_stocks(screen: Screen) -> bool:
    """Several stocks ranked and shown one row each: each one's figure is shown already."""
    ranked = screen.order is not None and (screen.limit or 0) > 1
    return ranked and screen.group_by is None and not screen.aggregates


def _shows_named_figures(screen: Screen) -> bool:
    """Figures of named stocks shown, nothing compared, ranked or grouped: what 'how much' asks."""
    only_named = all(isinstance(condition, Scope) and condition.kind == "stock" for condition in screen.where)
    shown = bool(screen.outputs or screen.figures) and screen.order is None and screen.group_by is None
    return _names_stocks(screen) and only_named and shown and not screen.having


def _ranked_figure_again(tokens: list[Token], index: int, screen: Screen) -> bool:
    """…, and how much [in billion yuan] closing a question that ranks groups (months, days, industries)
    by their aggregate: that figure, shown beside each one already."""
    ranked = (
        screen.order is not None and screen.order.metric.startswith("agg:") and screen.group_by is not None
    )
    after_ranking = any(token.kind == "orderspec" for token in tokens[:index])
    trailing = all(token.kind in {"out_unit", "and"} for token in tokens[index + 1 :])
    return ranked and after_ranking and trailing


def _names_several_groups(screen: Screen) -> bool:
    """A scope naming several groups (主板和创业板, banks and brokers), not grouped by."""
    return screen.group_by is None and any(
        isinstance(condition, Scope) and condition.kind in LIST_DIMENSIONS and len(condition.values) > 1
        for condition in screen.where
    )


def _next_kind(tokens: list[Token], index: int, skip: frozenset[str] | set[str] = frozenset()) -> str:
    for token in tokens[index + 1 :]:
        if token.kind not in skip:
            return token.kind
    return ""


def _previous_kind(tokens: list[Token], index: int, skip: set[str]) -> str:
    for token in reversed(tokens[:index]):
        if token.kind not in skip:
            return token.kind
    return ""


def _held_over_periods(condition: Condition) -> bool:
    if isinstance(condition, Not):
        return _held_over_periods(condition.item)
    if isinstance(condition, BoolOp):
        return any(_held_over_periods(item) for item in condition.items)
    if isinstance(condition, Technical):
        return condition.kind in STREAK_KINDS
    return isinstance(condition, Sustained | GrowthStreak)
