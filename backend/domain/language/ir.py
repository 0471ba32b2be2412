"""Typed form of a parsed question (the parser builds it, the QST serialises it, the compiler reads it).

Times stay symbolic ("latest", "last 30 days") so that a QST means the same thing tomorrow; the
compiler resolves them on the trading calendar. Numbers are already in the STORED unit of their
attribute (100亿 of market cap → 1e6, because total_mv is stored in 10k CNY).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

# Time labels: latest, yesterday, date, recent_days (calendar), recent_bars (trading days),
# recent_weeks, recent_months, this_year, last_year, year_before, this_month, last_month,
# this_week, last_week, this_quarter, last_quarter, year, month, quarter, half (the six months
# ending with `month`, 6 or 12), annual, date_range, date_span, since (day onwards),
# latest_report (the latest report period of any quarter, 最新一期财报), period_end (the last trading
# day of a month or, month 12, a year: 2024年6月底, end of 2024), period_start (the first trading day of a
# month or, month 1, a year: the first trading day of 2025), days_ago (the trading day `n` sessions
# before the latest: 3 sessions ago, the day before yesterday). A quarter without its year (三季报)
# is the latest report period of that quarter. year_quarters: each quarter of `year` (None: the latest
# day's) reported by the question's day, a condition held by each quarter alone (每个季度都亏损).
TIME_LABELS = (
    "latest", "yesterday", "date", "recent_days", "recent_bars", "recent_weeks", "recent_months",
    "this_year", "last_year", "year_before", "this_month", "last_month", "this_week", "last_week",
    "this_quarter", "last_quarter", "year", "month", "quarter", "half", "annual", "date_range", "date_span",
    "since", "latest_report", "period_end", "period_start", "days_ago", "recent_reports", "year_quarters",
)  # fmt: skip

EACH_QUARTER = "year_quarters"  # a condition held by each quarter of a year (see TIME_LABELS)

HALF_YEAR_ENDS = (6, 12)  # time:half: the first half ends in June, the second in December

# times that name a report period (a figure of 2024, the Q3 report, the latest report)
REPORT_TIME_LABELS = frozenset(
    {
        "year",
        "annual",
        "quarter",
        "half",
        "last_year",
        "year_before",
        "latest_report",
        "last_quarter",
        "this_quarter",
    }
)


@dataclass(frozen=True)
class TimeSpec:
    label: str = "latest"
    day: date | None = None  # label date; start of date_range / since
    end_day: date | None = None  # end of date_range / date_span (a span with none ends on the latest day)
    n: int | None = None  # recent_* count
    year: int | None = None  # year / month / quarter / annual
    month: int | None = None
    quarter: int | None = None

    @property
    def is_single_day(self) -> bool:
        return self.label in {"latest", "yesterday", "date", "period_end", "period_start", "days_ago"}


@dataclass(frozen=True)
class Compare:
    """attribute OP value (stored unit); between when op == 'between' (value..value2); op 'has': the
    attribute has a value at all (有市盈率的: a loss maker has no P/E). With `other`,
    (attribute at `time`) − (other at `other_time`) OP value: 收盘价高于开盘价 (value 0), 2024年净利润比
    2023年多10亿以上 (the same attribute in two periods, by more than 1e9)."""

    metric: str
    op: str
    value: float
    value2: float | None = None
    other: str | None = None  # compare with another attribute, or the same one at `other_time`
    time: TimeSpec | None = None  # overrides the question's time for this condition
    agg: str | None = None  # avg/sum over a window
    text: str = ""  # the words the value came from, for messages and the QST
    other_time: TimeSpec | None = None  # when `other` is read (its own period); else as `time`
    # with `agg`, a group's aggregate over its stocks where this holds: the share of an industry's
    # stocks that rose (agg share), how many of them hit limit up (agg count)
    where: Condition | None = None
    ratio: bool = False  # with `other`: 100 × metric ÷ other OP value (流通股占总股本比例低于60%)


# measures of a window of days, one value per stock (波动率, 最大回撤, 最长连涨天数): never a day's value
WINDOW_MEASURES = frozenset(
    {"stddevSamp", "drawdown", "max_drawdown", "rebound", "longest_up_streak", "longest_down_streak"}
)
# 历史新高 / all-time high (low) of the close, the volume, the traded value: over all the stock's bars
# up to the day, so their length n is 0 (no window)
ALL_TIME_TECHNICALS = frozenset({
    "all_time_high", "all_time_low", "volume_all_time_high", "volume_all_time_low", "amount_all_time_high",
    "amount_all_time_low",
})  # fmt: skip
# technical tests a day's own bars decide, so they can hold (or be counted) on each day of a window:
# a price limit, the close or a short average against a moving average, a crossing, a volume surge,
# an N-day high/low; streaks and gaps are runs over the market's days and are not among them
# a day's price limit: closed at it (涨停), or touched it intraday, the high (low) at it (盘中触及涨停)
PRICE_LIMITS = frozenset({"limit_up", "limit_down", "limit_up_touched", "limit_down_touched"})
DAY_BY_DAY_TECHNICALS = PRICE_LIMITS | frozenset({
    "ma_above", "ma_below", "ma_cross_above", "ma_cross_below", "ma_over_ma", "ma_under_ma",
    "ma_golden_cross", "ma_death_cross", "volume_surge", "n_day_high", "n_day_low", "volume_n_day_high",
    "volume_n_day_low",
})  # fmt: skip
# technical tests that are events: said with a window and no day of their own, they happened on
# some day of it (近一个月涨停, 最近5天内5日线上穿20日线), never on its last day only
EVENT_TECHNICALS = PRICE_LIMITS | frozenset({
    "ma_cross_above", "ma_cross_below", "ma_golden_cross", "ma_death_cross",
})  # fmt: skip


@dataclass(frozen=True)
class Technical:
    """kind: ma_above, ma_below, ma_cross_above, ma_cross_below, n_day_high, n_day_low, up_streak,
    down_streak, volume_surge, ma_rising / ma_falling (the N-day MA against itself a bar before)…"""

    kind: str
    n: int
    # volume_surge multiple; the long window of ma_golden/death_cross; ma_gap: the percent the close
    # is above its MA (negative: below), compared with `op`
    factor: float | None = None
    time: TimeSpec | None = None  # a day of its own (昨天涨停、今天跌停); else the question's day
    # ma_gap: (close / MA − 1) × 100 OP factor; n_day_high_gap (low_gap): % below the highest (above
    # the lowest) close of the last n bars OP factor; volume_surge: vol OP factor × average (None: >=)
    op: str | None = None


@dataclass(frozen=True)
class GrowthStreak:
    """The annual figure rose (or fell) year over year in each of the last `years` years."""

    metric: str
    years: int
    direction: str = "up"
    period: str = "year"  # year or quarter
    time: TimeSpec | None = None  # the last year of the streak (2021 through 2024); else the question's


@dataclass(frozen=True)
class LossToProfit:
    """扭亏为盈: the figure is above zero in its period and was below zero in the same kind of period
    a year before (the annual report before, or the same quarter's year-to-date figure)."""

    metric: str = "n_income_attr_p"
    time: TimeSpec | None = None  # the period; else the question's (the latest annual report)


@dataclass(frozen=True)
class Sustained:
    """A comparison that holds in each of the last `n` periods: year (annual reports), report
    (every report period) or day (trading days)."""

    compare: Compare
    n: int
    period: str = "year"


@dataclass(frozen=True)
class Scope:
    """kind: exchange, board, industry, group, index, stock, area, list_date, listed_years,
    name_marker (a marker in the stock's name: ST)."""

    kind: str
    values: tuple[str, ...] = ()
    op: str = "in"  # in; for list_date/listed_years a comparison operator; index: in / any (below)
    day: date | None = None
    number: float | None = None
    # index membership at a time of its own (2024年6月底在沪深300里): the snapshot in force that day;
    # with op "any" and a window (at some point during 2025), a member of any snapshot inside it
    time: TimeSpec | None = None
    # several values named by one word (两市: the SSE and the SZSE) are one set, never one row each; a
    # note for the parser's grouping only (the SQL is the same), so it takes no part in equality
    one_word: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class VersusGroup:
    """metric OP factor × the average (`fn`) of the same metric over the stock's own group (the
    industry average) + margin or, without a dimension, over every stock of the question's entity
    scopes: 比所在行业平均高出5个百分点 (margin 5), less than half of the industry average (factor 0.5)."""

    metric: str
    op: str
    dimension: str | None = None
    fn: str = "avg"
    time: TimeSpec | None = None
    within: tuple[Condition, ...] = ()  # the stocks the average is taken over (besides the group)
    factor: float = 1.0
    margin: float = 0.0  # in the metric's stored unit


@dataclass(frozen=True)
class Frequency:
    """A daily condition counted over the trading days of a window: on `op` `count` days
    (at least twice → >= 2), or on every one of them (op "every": a bar on each day, holding)."""

    item: Condition
    op: str
    count: int = 0
    time: TimeSpec | None = None  # the window; the question's own time when None


@dataclass(frozen=True)
class TopSubset:
    """The stocks an ordering ranks first: the 50 largest by market cap (among `within`), or the
    first n of each group. Composes like any condition: counted, averaged, grouped, filtered."""

    order: Order
    n: int
    within: tuple[Condition, ...] = ()
    per_group: str | None = None


@dataclass(frozen=True)
class BoolOp:
    op: str  # and / or
    items: tuple[Condition, ...]


@dataclass(frozen=True)
class Not:
    item: Condition


Condition = (
    Compare | Technical | GrowthStreak | LossToProfit | Sustained | Scope | BoolOp | Not  # a stock's own
    | VersusGroup | Frequency | TopSubset  # tests read from a query of their own (subsets.py)
)  # fmt: skip


@dataclass(frozen=True)
class Order:
    metric: str  # a metric key, or "agg:<fn>:<metric>" for group orderings
    direction: str  # desc / asc
    time: TimeSpec | None = None
    agg: str | None = None
    # ranked by the change: (metric at `time`) − (metric at `other_time`), 比半年前提高得最多
    other_time: TimeSpec | None = None
    percent_change: bool = False  # with other_time: 100 × (later ÷ earlier − 1), 增长最快


@dataclass(frozen=True)
class Aggregate:
    fn: str  # avg, sum, max, min, median, count, count_up, count_down, net_up, share
    metric: str | None = None  # None for count and share
    where: Condition | None = None  # only the stocks where it holds (countIf); share: % of the set


@dataclass(frozen=True)
class Figure:
    """A figure shown per stock over a window of its own: a report figure's (单季净利润, TTM revenue:
    `window` single_quarter, ttm or qoq, read at `time` — a report period — or the latest one), or a
    measure of a window of days (茅台近20个交易日的最大回撤: `window` one of WINDOW_MEASURES, read over
    the question's window)."""

    metric: str
    window: str
    time: TimeSpec | None = None


@dataclass
class Screen:
    time: TimeSpec = field(default_factory=TimeSpec)
    where: list[Condition] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    order: Order | None = None
    limit: int | None = None
    group_by: str | None = None
    per_group_limit: int | None = None
    aggregates: list[Aggregate] = field(default_factory=list)
    # group filters on aggregates (agg set), or a group's average against the whole set's (VersusGroup)
    having: list[Compare | VersusGroup] = field(default_factory=list)
    display_unit: float | None = None  # money outputs also shown in this unit (亿 = 1e8, billion = 1e9)
    daily_values: bool = False  # aggregates over a window use each day's value, not the window's change
    figures: list[Figure] = field(default_factory=list)  # derived report figures shown per stock

    @property
    def lists_stock_periods(self) -> bool:
        """Named stocks' figures per report period, nothing aggregated (五粮液2025年各报告期的每股收益,
        茅台近4个报告期的毛利率): one row per stock and period, not a group's figure."""
        named = any(isinstance(condition, Scope) and condition.kind == "stock" for condition in self.where)
        return self.group_by == "report_period" and named and not (self.aggregates or self.having)
