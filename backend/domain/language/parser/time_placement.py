"""Where each time of a question belongs: the question's day or window, a report period, or one
comparison (近10个交易日涨幅超过20%且今日换手率大于10%). Run by the assembly, after all passes."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import (
    REPORT_TIME_LABELS,
    BoolOp,
    Compare,
    Condition,
    Not,
    Screen,
    Technical,
    TimeSpec,
)
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.word_order import FIGURE_KINDS
from backend.domain.language.semantic import Metric, SemanticModel

PlacedCondition = tuple[Condition, bool, str]  # (condition, is an entity scope, connector before it)
REPORT_LIKE = REPORT_TIME_LABELS
AND_BETWEEN_DAYS = frozenset({"and", "和", "与", "、"})


def attach_second_times(
    conditions: list[PlacedCondition], starts: list[int], times: list[Token], tokens: list[Token]
) -> list[PlacedCondition]:
    """近10个交易日涨幅超过20%且今日换手率大于10%: the first market time is the question's; a later,
    different one belongs to the comparisons it governs — in Chinese those written after it (今天收阳
    并且涨幅超过5%) up to the next time, in English those written before it (closed up and gained
    5% today) back to the previous time; if none, the comparison written next to it. A day's test
    (涨停, 站上20日均线) takes a later single day the same way (昨天涨停、今天跌停). Two days joined by
    "and" with nothing between (limit-up yesterday and today, 昨天和今天都涨停) are both the condition's:
    it holds on each, never on the later day alone."""
    market_times = [token for token in times if token.value.label not in REPORT_LIKE]
    if not market_times:
        return conditions
    first = market_times[0].value
    result = list(conditions)
    bounds = [token.start for token in market_times]
    for position, token in enumerate(market_times[1:], start=1):
        if token.value == first:
            continue
        candidates = [
            k for k, (condition, is_scope, _c) in enumerate(result)
            if not is_scope and _takes_time(condition, token.value)
        ]  # fmt: skip
        if not candidates:
            continue
        governed = _governed(candidates, starts, bounds, position, token)
        nearest = min(candidates, key=lambda k: (abs(starts[k] - token.start), starts[k] < token.start))
        both = position == 1 and joined_days(tokens, tokens.index(token))
        for k in governed or [nearest]:
            condition, is_scope, connector = result[k]
            assert isinstance(condition, Compare | Technical)
            later: Condition = replace(condition, time=token.value)
            result[k] = (BoolOp("and", (condition, later)) if both else later, is_scope, connector)
    return result


def joined_days(tokens: list[Token], index: int) -> bool:
    """tokens[index] is a single day joined by "and" [again] to the single day right before it
    (yesterday and today, yesterday and again today, 昨天和今天): the two days said of one condition."""
    before = _joined_before(tokens, index)
    if before is None or not _single_market_day(tokens[before]):
        return False
    # each day with a condition of its own (below book six months ago but now above 1x book): two conditions
    first_said_after_condition = before > 0 and tokens[before - 1].kind == "cond"
    return not (first_said_after_condition and _opens_own_condition(tokens, index))


def joined_to_said_day(tokens: list[Token], index: int) -> int | None:
    """tokens[index] is a single day joined by "and" [again] to a condition read with a single day of
    its own (rose yesterday and today: the move took yesterday): that condition's index, else None."""
    before = _joined_before(tokens, index)
    if before is None or tokens[before].kind != "cond" or _opens_own_condition(tokens, index):
        return None
    said = tokens[before].value
    own = said.time if isinstance(said, Compare | Technical) else None
    return before if own is not None and own.is_single_day and own != tokens[index].value else None


def repeat_on_joined_day(
    conditions: list[PlacedCondition], starts: list[int], tokens: list[Token]
) -> list[PlacedCondition]:
    """rose yesterday and [again] today / 涨停 yesterday and today, the first day read into the
    condition: it holds on the later day too (never on the first alone, the later one dropped)."""
    result = list(conditions)
    for index, token in enumerate(tokens):
        said = joined_to_said_day(tokens, index) if _single_market_day(token) else None
        if said is None or tokens[said].start not in starts:
            continue
        k = starts.index(tokens[said].start)
        condition, is_scope, connector = result[k]
        if isinstance(condition, Compare | Technical) and condition == tokens[said].value:
            later = replace(condition, time=token.value)
            result[k] = (BoolOp("and", (condition, later)), is_scope, connector)
    return result


# between a later day and the condition it governs (昨天下跌，今天就上涨: 就 / then)
BEFORE_OWN_CONDITION = frozenset({"then"})


def _opens_own_condition(tokens: list[Token], index: int) -> bool:
    """The day at tokens[index] opens a condition of its own (昨天涨停，今天跌停; 昨天下跌，今天就上涨): it
    is that condition's day, not a second day of the condition before it."""
    k = index + 1
    while k < len(tokens) and tokens[k].kind in BEFORE_OWN_CONDITION:
        k += 1
    return k < len(tokens) and tokens[k].kind == "cond"


def _joined_before(tokens: list[Token], index: int) -> int | None:
    """The token an "and" [again] right before tokens[index] joins it to, if any."""
    if not _single_market_day(tokens[index]):
        return None
    joint = index - 1 - (index > 0 and tokens[index - 1].kind == "again")
    return joint - 1 if joint >= 1 and _and_word(tokens[joint]) else None


def _and_word(token: Token) -> bool:
    # 和 / and between two days is lexed as a range's end (between A and B); 到 / to / through never joins
    return token.kind == "and" or (token.kind == "to" and token.text in AND_BETWEEN_DAYS)


def _single_market_day(token: Token) -> bool:
    spec = token.value
    return token.kind == "timespec" and isinstance(spec, TimeSpec) and spec.is_single_day


def _takes_time(condition: Condition, spec: TimeSpec) -> bool:
    if isinstance(condition, Technical):
        return condition.time is None and spec.is_single_day
    return isinstance(condition, Compare) and condition.time is None


def attach_report_times(
    model: SemanticModel, conditions: list[PlacedCondition], starts: list[int], times: list[Token]
) -> list[PlacedCondition]:
    """2024年四季度单季亏损、但全年是盈利 / 2023年净利润超过10亿且2024年营收超过100亿: with several report
    periods, each governs the report figures said with it (the same reading as later market times)."""
    report_times = [token for token in times if token.value.label in REPORT_LIKE]
    if len({token.value for token in report_times}) < 2:
        return conditions
    result = list(conditions)
    bounds = [token.start for token in report_times]
    named_years = [token.value.year for token in report_times if token.value.year]
    for position, token in enumerate(report_times):
        spec = token.value
        if spec.year is None and spec.label in {"annual", "quarter"} and named_years:
            spec = replace(spec, year=named_years[0])  # 2024年四季度…全年: the full year 2024
        candidates = [
            k for k, (condition, is_scope, _c) in enumerate(result)
            if isinstance(condition, Compare) and condition.time is None and not is_scope
            and model.metrics[condition.metric].kind == "report"
        ]  # fmt: skip
        for k in _governed(candidates, starts, bounds, position, token):
            condition, is_scope, connector = result[k]
            assert isinstance(condition, Compare)
            result[k] = (replace(condition, time=spec), is_scope, connector)
    return result


def _governed(
    candidates: list[int], starts: list[int], bounds: list[int], position: int, token: Token
) -> list[int]:
    """The conditions a time governs: in Chinese those after it up to the next time, in English
    those before it back to the previous one (a time opening the question, before any figure, the
    figures after it)."""
    if token.text.isascii():
        if position == 0 and len(bounds) > 1 and not any(starts[k] < token.start for k in candidates):
            # Q3'25 net profit up 50% q/q, only names with a profitable Q2: a time opening the
            # question governs what follows it, but the last figure before the next time (that one's)
            after = [k for k in candidates if token.start < starts[k] < bounds[1]]
            return after[:-1]
        previous = bounds[position - 1] if position > 0 else -1
        opener = position == 1 and not any(starts[k] < bounds[0] for k in candidates)
        if opener:  # the opening time took all but the last figure before this one
            before = [k for k in candidates if previous < starts[k] < token.start]
            return before[-1:]
        return [k for k in candidates if previous < starts[k] < token.start]
    following = bounds[position + 1] if position + 1 < len(bounds) else max([*starts, token.start]) + 1
    return [k for k in candidates if token.start < starts[k] < following]


def rank_on_latest_day(
    model: SemanticModel, screen: Screen, tokens: list[Token], order_index: int, times: list[Token]
) -> None:
    """市值前20的股票今年以来平均涨了多少: in Chinese a window governs what is written after it, so one
    said after a ranking is the move's, not the ranking's; a day's figure ranked with no time of its
    own (market cap, traded value) ranks on the latest day, never on its average over that window.
    In English a window follows what it governs: it is the move's when another figure stands between
    the ranking and it (the 20 largest by market cap — their average return since the start of the
    year); one right after the ranking (largest by market cap this year) stays the ranking's.
    A move ranked (涨幅前10) keeps the window: its change is over the window's days."""
    order = screen.order
    ranking_start = tokens[order_index].start
    market = [token for token in times if token.value.label not in REPORT_LIKE]
    if order is None or order.time is not None or order.other_time is not None or not market:
        return
    metric = model.metrics.get(order.metric)
    if metric is None or metric.kind != "daily" or metric.column == "pct_chg":
        return
    figures = [token.start for token in tokens[order_index + 1 :] if token.kind in FIGURE_KINDS]

    def said_for_another_figure(time: Token) -> bool:
        if time.start <= ranking_start or not time.text:
            return False
        return not time.text.isascii() or any(start < time.start for start in figures)

    if all(said_for_another_figure(token) for token in market) and not any(
        token.value.is_single_day for token in market
    ):
        screen.order = replace(order, time=TimeSpec())


def place_times(model: SemanticModel, screen: Screen, times: list[Token]) -> None:
    """The question's time; a report year mixed with market data goes to the fundamentals only."""
    specs: list[TimeSpec] = []
    for token in times:
        if token.value not in specs:
            specs.append(token.value)
    if not specs:
        return
    daily_specs = [spec for spec in specs if spec.label not in REPORT_LIKE]
    report_specs = [spec for spec in specs if spec.label in REPORT_LIKE]
    metrics = model.metrics
    if len(report_specs) > 1:
        # each report figure took the period said with it (attach_report_times); one left without
        # its own would have to pick one of them
        unplaced = [
            c for c in compares_in(screen.where) if metrics[c.metric].kind == "report" and c.time is None
        ]
        if unplaced or not compares_in(screen.where):
            words = ", ".join(f"'{token.text}'" for token in times if token.value in report_specs)
            raise NotUnderstood(f"several report periods ({words}): say which figure each one is for")
        screen.time = daily_specs[0] if daily_specs else TimeSpec()
        return
    kinds = {
        metrics[c.metric].kind for c in compares_in(screen.where) if c.metric in metrics and c.time is None
    }
    if _ranks_a_day_figure(screen, metrics):
        kinds.add("daily")  # 2024年每股收益超过2块的股票里，市盈率最低的10只: P/E ranked on a day
    if report_specs and (daily_specs or ("daily" in kinds and "report" in kinds)):
        # 2025年9月8日 … 2024年净利润 / "PE below 30 or 2024 revenue growth": the year belongs to the
        # fundamentals, the trading day (latest unless given) to the market data
        screen.time = daily_specs[0] if daily_specs else TimeSpec()
        screen.where = [_with_report_time(condition, report_specs[0], metrics) for condition in screen.where]
        return
    screen.time = specs[0]


def _ranks_a_day_figure(screen: Screen, metrics: dict[str, Metric]) -> bool:
    """A day's level figure ranked with no time of its own (P/E, market cap): beside a report figure
    its year is the report's, the ranking is on the day. A move ranked (涨幅最大) is left out: its
    change may be the year's own."""
    order = screen.order
    if order is None or order.time is not None or order.other_time is not None or order.agg is not None:
        return False
    metric = metrics.get(order.metric)
    return metric is not None and metric.kind == "daily" and metric.column != "pct_chg"


def refuse_periods_governing_nothing(screen: Screen, times: list[Token]) -> None:
    """2024年和2025年日均成交额超过1万亿: several years said, none the period of a report figure — a
    daily figure's average in each year, or the market's — would drop every year and answer for the
    latest day. With several report periods, one no comparison took is refused, named (run after the
    leftovers, which name the words no rule read first)."""
    report_specs = {token.value for token in times if token.value.label in REPORT_LIKE}
    if len(report_specs) < 2:
        return
    taken = [c.time for c in compares_in(screen.where) if c.time is not None]

    def took(spec: TimeSpec) -> bool:  # 2024年四季度…全年: the full year took the named year
        return any(
            time == spec or (spec.year is None and time == replace(spec, year=time.year)) for time in taken
        )

    unused = [token for token in times if token.value in report_specs and not took(token.value)]
    if unused:
        words = ", ".join(f"'{token.text}'" for token in unused)
        raise NotUnderstood(f"could not place: {words} (no figure is read in that period)")


def compares_in(conditions: list[Condition]) -> list[Compare]:
    """Every comparison among the conditions, inside and/or/not too."""
    found: list[Compare] = []
    for condition in conditions:
        if isinstance(condition, Compare):
            found.append(condition)
        elif isinstance(condition, BoolOp):
            found.extend(compares_in(list(condition.items)))
        elif isinstance(condition, Not):
            found.extend(compares_in([condition.item]))
    return found


def _with_report_time(condition: Condition, spec: TimeSpec, metrics: dict[str, Metric]) -> Condition:
    if (
        isinstance(condition, Compare)
        and condition.time is None
        and metrics[condition.metric].kind == "report"
    ):
        return replace(condition, time=spec)
    if isinstance(condition, BoolOp):
        return BoolOp(condition.op, tuple(_with_report_time(item, spec, metrics) for item in condition.items))
    if isinstance(condition, Not):
        return Not(_with_report_time(condition.item, spec, metrics))
    return condition
