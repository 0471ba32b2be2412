"""The composition matrix: questions generated from parts (measure × time scope × operator ×
grouping × scope), in Chinese and English, each with its reference SQL from `reference.py`.

Parts are written once with their words in both languages; a family of questions is a template
over them. Nothing here looks at the language engine: a case fails when the engine's answer differs
from the reference's on the demo data, or when the engine refuses a question built from parts it
is supposed to know.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from tests.language.composition import reference as ref
from tests.language.composition.reference import Measure, Span


@dataclass(frozen=True)
class Words:
    zh: str
    en: str


@dataclass(frozen=True)
class Time:
    key: str
    words: Words
    span: Span
    window: bool


@dataclass(frozen=True)
class Quantity:
    """A per-stock value on a time scope, with a threshold people put on it."""

    key: str
    measure: Measure
    words: Words  # the measure's name
    op: str
    threshold: float  # in the stored unit
    limit_words: Words  # the threshold as said ("超过3%", "above 3%")


@dataclass(frozen=True)
class Group:
    key: str
    each: Words  # 各行业 / by industry
    plural: Words  # 行业 / industries
    own: Words  # 所在行业 / their industry
    one: Words  # 行业 / industry


@dataclass(frozen=True)
class Scope:
    key: str
    stocks: Words  # 半导体股 / semiconductor stocks
    sql: str  # condition on stock_basic s


@dataclass(frozen=True)
class Case:
    family: str
    lang: str
    question: str
    reference_sql: str
    order_matters: bool = False

    @property
    def id(self) -> str:
        return f"{self.family}:{self.lang}:{self.question}"


TIMES_DAY = (
    Time("latest", Words("今天", "today"), ref.latest_day(), False),
    Time("date", Words("2025年9月8日", "on 2025-09-08"), ref.named_day("2025-09-08"), False),
)
TIMES_WINDOW = (
    Time("last10", Words("近10个交易日", "over the last 10 trading days"), ref.last_trading_days(10), True),
    Time(
        "month",
        Words("2025年11月", "in November 2025"),
        ref.calendar_period("2025-11-01", "2025-11-30"),
        True,
    ),
    Time(
        "range",
        Words("2025年9月1日至9月30日", "from 2025-09-01 to 2025-09-30"),
        ref.between_days("2025-09-01", "2025-09-30"),
        True,
    ),
    Time(
        "since", Words("2025年12月1日以来", "since 2025-12-01"), ref.calendar_period("2025-12-01", None), True
    ),
)

LAST_3 = Time("last3", Words("近3个交易日", "over the last 3 trading days"), ref.last_trading_days(3), True)
# the week before the latest day's (2025-12-31 is a Wednesday in the demo)
LAST_WEEK = Time(
    "last_week", Words("上周", "last week"), ref.calendar_period("2025-12-22", "2025-12-28"), True
)

DAY_QUANTITIES = (
    Quantity(
        "pct_chg", Measure("daily", "pct_chg"), Words("涨幅", "gain"), ">", 1, Words("超过1%", "above 1%")
    ),
    Quantity(
        "turnover",
        Measure("daily_basic", "turnover_rate"),
        Words("换手率", "turnover rate"),
        ">",
        3,
        Words("超过3%", "above 3%"),
    ),
    Quantity(
        "amount",
        Measure("daily", "amount"),
        Words("成交额", "trading value"),
        ">",
        300000,
        Words("超过3亿", "above 300 million yuan"),
    ),
    Quantity(
        "pe", Measure("daily_basic", "pe"), Words("市盈率", "P/E"), "<", 30, Words("低于30", "below 30")
    ),
    Quantity(
        "total_mv",
        Measure("daily_basic", "total_mv"),
        Words("总市值", "market cap"),
        ">",
        1000000,
        Words("超过100亿", "above 10 billion yuan"),
    ),
    Quantity(
        "close",
        Measure("daily", "close"),
        Words("收盘价", "closing price"),
        ">",
        20,
        Words("高于20元", "above 20 yuan"),
    ),
)
# 跌幅 is the change with its sign turned: an average decline above 1% is an average change below −1%
DECLINE = Quantity(
    "decline", Measure("daily", "pct_chg"), Words("跌幅", "decline"), "<", -1, Words("超过1%", "above 1%")
)
WINDOW_QUANTITIES = (
    Quantity(
        "gain", Measure("daily", "close", "gain"), Words("涨幅", "gain"), ">", 5, Words("超过5%", "above 5%")
    ),
    Quantity(
        "avg_turnover",
        Measure("daily_basic", "turnover_rate", "avg"),
        Words("平均换手率", "average turnover rate"),
        ">",
        3,
        Words("超过3%", "above 3%"),
    ),
    Quantity(
        "avg_amount",
        Measure("daily", "amount", "avg"),
        Words("日均成交额", "average daily trading value"),
        ">",
        300000,
        Words("超过3亿", "above 300 million yuan"),
    ),
)
GROUPS = (
    Group(
        "exchange",
        Words("各交易所", "by exchange"),
        Words("交易所", "exchanges"),
        Words("所在交易所", "their exchange"),
        Words("交易所", "exchange"),
    ),
    Group(
        "market",
        Words("各板块", "by board"),
        Words("板块", "boards"),
        Words("所在板块", "their board"),
        Words("板块", "board"),
    ),
    Group(
        "industry",
        Words("各行业", "by industry"),
        Words("行业", "industries"),
        Words("所在行业", "their industry"),
        Words("行业", "industry"),
    ),
    Group(
        "area",
        Words("各地区", "by region"),
        Words("地区", "regions"),
        Words("所在地区", "their region"),
        Words("地区", "region"),
    ),
    Group(
        "list_year",
        Words("各上市年份", "by listing year"),
        Words("上市年份", "listing years"),
        Words("同一上市年份", "their listing year"),
        Words("上市年份", "listing year"),
    ),
)
SCOPES = (
    Scope("all", Words("股票", "stocks"), ""),
    Scope("semis", Words("半导体股", "semiconductor stocks"), "s.industry = '半导体'"),
    Scope("not_semis", Words("非半导体股", "non-semiconductor stocks"), "s.industry != '半导体'"),
    Scope("chinext", Words("创业板股票", "ChiNext stocks"), "s.market = '创业板'"),
)
AGGREGATES = (
    ("avg", Words("平均", "Average")),
    ("max", Words("最大", "Highest")),
    ("min", Words("最小", "Lowest")),
)
UP = "d.pct_chg > 0"
# closed at the board's price limit (10% main board, 30% Beijing, 20% ChiNext and STAR), to the cent
LIMIT = "round(d.pre_close * (1 {sign} multiIf(s.market = '主板', 10, s.market = '北交所', 30, 20) / 100), 2)"
LIMIT_UP = f"d.close >= {LIMIT.format(sign='+')} - 0.005"
LIMIT_DOWN = f"d.close <= {LIMIT.format(sign='-')} + 0.005"
ANNUAL_2024 = Time(
    "annual2024", Words("2024年年报", "in the 2024 annual report"), ref.report_period("2024-12-31"), False
)
REPORT_QUANTITIES = (
    Quantity(
        "roe", Measure("fina_indicator", "roe"), Words("ROE", "ROE"), ">", 10, Words("超过10%", "above 10%")
    ),
    Quantity(
        "revenue",
        Measure("income", "revenue"),
        Words("营业收入", "revenue"),
        ">",
        2e9,
        Words("超过20亿", "above 2 billion yuan"),
    ),
)
CSI_300 = "000300.SH"
DAY_CONDITIONS = (
    (Words("上涨", "closed up"), UP),
    (Words("涨停", "hit limit up"), LIMIT_UP),
    (Words("涨幅超过5%", "gained more than 5%"), "d.pct_chg > 5"),
)


def _aggregated(aggregate: str, name: str) -> str:
    """平均 + 平均换手率 → 平均换手率; 平均 + 日均成交额 → 日均成交额 (the name already averages)."""
    return name if name.startswith(("平均", "日均")) else aggregate + name


def _both(family: str, words: Words, sql: str, order_matters: bool = False) -> Iterator[Case]:
    yield Case(family, "zh", words.zh, sql, order_matters)
    yield Case(family, "en", words.en, sql, order_matters)


def filters() -> Iterator[Case]:
    """Stocks whose value on a day or over a window passes a threshold, within / outside a scope."""
    plans = [(q, t, s) for q in DAY_QUANTITIES for t in TIMES_DAY for s in SCOPES]
    plans += [(q, t, s) for q in WINDOW_QUANTITIES for t in TIMES_WINDOW for s in SCOPES[:3]]
    for quantity, time, scope in plans:
        words = Words(
            f"{time.words.zh}{quantity.words.zh}{quantity.limit_words.zh}的{scope.stocks.zh}",
            f"Which {scope.stocks.en} had a {quantity.words.en} {quantity.limit_words.en} {time.words.en}?",
        )
        sql = ref.filtered(quantity.measure, time.span, quantity.op, quantity.threshold, scope.sql)
        yield from _both("filter", words, sql)


def aggregates_by_group() -> Iterator[Case]:
    """An aggregate of a value over the stocks, for the whole market or per group."""
    plans = [(q, TIMES_DAY[0], a) for q in DAY_QUANTITIES[:5] for a in AGGREGATES]
    plans += [(q, t, AGGREGATES[0]) for q in WINDOW_QUANTITIES for t in TIMES_WINDOW[:2]]
    for (quantity, time, (fn, agg)), group in itertools.product(plans, (None, *GROUPS)):
        each = group.each if group else Words("", "")
        words = Words(
            f"{time.words.zh}{each.zh}股票的{_aggregated(agg.zh, quantity.words.zh)}",
            f"{agg.en} {quantity.words.en.removeprefix('average ')} {time.words.en} {each.en}".strip(),
        )
        key = group.key if group else None
        if quantity.key == "avg_amount":  # 日均 / average daily: the total per trading day
            sql = ref.aggregated_daily(quantity.measure, time.span, key)
        else:
            sql = ref.aggregated(quantity.measure, time.span, fn, key)
        yield from _both("aggregate", words, sql)


def group_filters() -> Iterator[Case]:
    """The groups whose average value passes a threshold (HAVING)."""
    plans = [(q, t) for q in (DECLINE, DAY_QUANTITIES[1]) for t in TIMES_DAY[:1]] + [
        (q, t) for q in WINDOW_QUANTITIES[:2] for t in TIMES_WINDOW[:2]
    ]
    for (quantity, time), group in itertools.product(plans, GROUPS):
        name = quantity.words
        words = Words(
            f"{time.words.zh}平均{name.zh.removeprefix('平均')}{quantity.limit_words.zh}的{group.plural.zh}",
            f"Which {group.plural.en} had an average {name.en.removeprefix('average ')} "
            f"{quantity.limit_words.en} {time.words.en}?",
        )
        sql = ref.groups_averaging(quantity.measure, time.span, group.key, quantity.op, quantity.threshold)
        yield from _both("having", words, sql)


def counts_by_group() -> Iterator[Case]:
    """How many stocks pass a threshold, per group."""
    plans = [(q, TIMES_DAY[0]) for q in DAY_QUANTITIES[:3]] + [(WINDOW_QUANTITIES[0], TIMES_WINDOW[0])]
    for (quantity, time), group in itertools.product(plans, (None, *GROUPS)):
        each = group.each if group else Words("", "")
        words = Words(
            f"{time.words.zh}{each.zh}{quantity.words.zh}{quantity.limit_words.zh}的股票有多少只",
            f"How many stocks had a {quantity.words.en} {quantity.limit_words.en} {time.words.en} "
            f"{each.en}".strip()
            + "?",
        )
        sql = ref.counted(
            quantity.measure, time.span, quantity.op, quantity.threshold, group.key if group else None
        )
        yield from _both("count", words, sql)


def ranked_subsets() -> Iterator[Case]:
    """A ranking picks the stocks; then an aggregate over them, per group, or a count filtered."""
    amount, total_mv, pe, pct_chg = DAY_QUANTITIES[2], DAY_QUANTITIES[4], DAY_QUANTITIES[3], DAY_QUANTITIES[0]
    latest = TIMES_DAY[0]
    for ranked, n, measure in ((amount, 20, pe), (total_mv, 30, pct_chg), (pct_chg, 15, total_mv)):
        words = Words(
            f"{latest.words.zh}{ranked.words.zh}前{n}的股票的平均{measure.words.zh}",
            f"Average {measure.words.en} of the top {n} stocks by {ranked.words.en} {latest.words.en}",
        )
        sql = ref.top_subset_aggregate(
            ranked.measure, latest.span, n, "avg", measure.measure, latest.span, None
        )
        yield from _both("top_subset", words, sql)
    for ranked, group in itertools.product((total_mv, amount), GROUPS[:3]):
        words = Words(
            f"{latest.words.zh}{ranked.words.zh}前30的股票里，{group.each.zh}分别有几只",
            f"Of the top 30 stocks by {ranked.words.en} {latest.words.en}, "
            f"how many are there {group.each.en}?",
        )
        sql = ref.top_subset_aggregate(
            ranked.measure, latest.span, 30, "count", ranked.measure, latest.span, group.key
        )
        yield from _both("top_subset", words, sql)
    for ranked, filtered in ((total_mv, pct_chg), (amount, DAY_QUANTITIES[1])):
        words = Words(
            f"{latest.words.zh}{ranked.words.zh}最大的50只股票中，{filtered.words.zh}{filtered.limit_words.zh}的有多少只",
            f"Of the 50 stocks with the highest {ranked.words.en} {latest.words.en}, how many had a "
            f"{filtered.words.en} {filtered.limit_words.en}?",
        )
        sql = ref.top_subset_filtered_count(
            ranked.measure, latest.span, 50, filtered.measure, filtered.op, filtered.threshold
        )
        yield from _both("top_subset", words, sql)


def versus_group_average() -> Iterator[Case]:
    """Stocks whose value is above (below) the average of their own group."""
    plans = [(q, t) for q in (DAY_QUANTITIES[0], DAY_QUANTITIES[1], DAY_QUANTITIES[3]) for t in TIMES_DAY]
    plans += [(WINDOW_QUANTITIES[0], TIMES_WINDOW[0])]
    for (quantity, time), group in itertools.product(plans, GROUPS[1:4]):
        above = quantity.op == ">"
        name = quantity.words
        words = Words(
            f"{time.words.zh}{name.zh}{'高于' if above else '低于'}{group.own.zh}平均的股票",
            f"Stocks whose {name.en} {time.words.en} is {'above' if above else 'below'} "
            f"the average of {group.own.en}",
        )
        sql = ref.above_group_average(quantity.measure, time.span, group.key, quantity.op)
        yield from _both("versus_group", words, sql)


def versus_group_scaled() -> Iterator[Case]:
    """Stocks whose value is below a part of their group's average (less than half of the average of
    their industry). The margin form (比所在行业平均高出2个百分点以上) is read in Chinese only: a
    fixture question, not a family, until English says it too."""
    pe = DAY_QUANTITIES[3]
    for time, group in itertools.product(TIMES_DAY, GROUPS[1:4]):
        words = Words(
            f"{time.words.zh}{pe.words.zh}低于{group.own.zh}平均的一半的股票",
            f"Stocks whose {pe.words.en} {time.words.en} is below half of the average of {group.own.en}",
        )
        sql = ref.above_group_average(pe.measure, time.span, group.key, "<", factor=0.5)
        yield from _both("versus_group_scaled", words, sql)


def per_day() -> Iterator[Case]:
    """For each trading day of a window, how many stocks met a day's condition."""
    for (condition, sql_condition), time in itertools.product(DAY_CONDITIONS, TIMES_WINDOW[:3]):
        words = Words(
            f"{time.words.zh}每天有多少只股票{condition.zh}",
            f"How many stocks {condition.en} each day {time.words.en}?",
        )
        yield from _both("per_day", words, ref.per_day_count(time.span, sql_condition))


def days_counted() -> Iterator[Case]:
    """Stocks meeting a day's condition on at least k days of a window, or on every one of them."""
    once_twice = ((1, Words("1次", "once")), (2, Words("2次", "twice")), (2, Words("2次", "twice")))
    for time, (count, times) in zip(TIMES_WINDOW[:3], once_twice, strict=True):
        words = Words(
            f"{time.words.zh}至少{times.zh}涨停的股票",
            f"Stocks that hit limit up at least {times.en} {time.words.en}",
        )
        yield from _both("days_counted", words, ref.days_counted(time.span, LIMIT_UP, ">=", count))
        words = Words(
            f"{time.words.zh}上涨超过6天的股票", f"Stocks that closed up on more than 6 days {time.words.en}"
        )
        yield from _both("days_counted", words, ref.days_counted(time.span, UP, ">", 6))
    for time in (LAST_3, LAST_WEEK):
        words = Words(
            f"{time.words.zh}每天都上涨的股票", f"Which stocks closed up every day {time.words.en}?"
        )
        yield from _both("days_counted", words, ref.days_counted(time.span, UP, "=", None))


# tests on a stock's own bars that one day decides (reference.bar_test_days columns), with the
# words that say them
BAR_TESTS = (
    (Words("站上20日均线", "closed above the 20-day moving average"), "k >= 20 AND close > ma20"),
    (Words("5日均线在10日均线上方", "had the 5-day moving average above the 10-day moving average"),
     "k >= 10 AND ma5 > ma10"),
    (Words("成交量高于5日均量", "traded volume above the 5-day average volume"), "k >= 6 AND vol > vol5"),
)  # fmt: skip
BAR_CROSSINGS = (
    (Words("5日均线上穿10日均线", "had the 5-day moving average cross above the 10-day moving average"),
     "k >= 11 AND ma5 > ma10 AND prev_ma5 <= prev_ma10"),
    (Words("收盘价跌破20日均线", "closed below the 20-day moving average after being above it"),
     "k >= 21 AND close < ma20 AND prev_close >= prev_ma20"),
)  # fmt: skip


def bar_tests_each_day() -> Iterator[Case]:
    """A test on the stock's own bars (above a moving average, one average above another, volume
    above its average) held on each of the last N days, on at least k of them, or a crossing on
    some day of a window."""
    for words, test in BAR_TESTS:
        sql = ref.bar_test_days(ref.last_trading_days(5), test, "=", None)
        yield from _both("bar_tests_each_day", Words(
            f"连续5天{words.zh}的股票", f"Stocks that {words.en} on each of the last 5 trading days"
        ), sql)  # fmt: skip
        sql = ref.bar_test_days(ref.last_trading_days(3), test, "=", None)
        yield from _both("bar_tests_each_day", Words(
            f"近3个交易日每天都{words.zh}的股票", f"Stocks that {words.en} for 3 consecutive days"
        ), sql)  # fmt: skip
        sql = ref.bar_test_days(ref.last_trading_days(10), test, ">=", 6)
        yield from _both("bar_tests_each_day", Words(
            f"近10个交易日至少有6天{words.zh}的股票",
            f"Stocks that {words.en} on at least 6 of the last 10 days",
        ), sql)  # fmt: skip
    for words, test in BAR_CROSSINGS:
        sql = ref.bar_test_days(ref.last_trading_days(5), test, ">=", 1)
        yield from _both("bar_tests_each_day", Words(
            f"近5个交易日内{words.zh}的股票", f"Stocks that {words.en} in the last 5 trading days"
        ), sql)  # fmt: skip


def longest_streaks() -> Iterator[Case]:
    """Each stock's longest winning (losing) streak over a window, filtered or ranked."""
    for time, threshold in zip(TIMES_WINDOW[:3], (3, 5, 5), strict=True):
        runs = ref.longest_runs(time.span, ">")
        yield from _both("longest_streaks", Words(
            f"{time.words.zh}最长连涨天数超过{threshold}天的股票",
            f"Stocks whose longest winning streak {time.words.en} was more than {threshold} days",
        ), f"SELECT ts_code FROM ({runs}) WHERE v > {threshold}")  # fmt: skip
        runs = ref.longest_runs(time.span, "<")
        yield from _both("longest_streaks", Words(
            f"{time.words.zh}最长连跌天数最多的5只股票",
            f"Top 5 stocks by longest losing streak {time.words.en}",
        ), f"SELECT ts_code, v FROM ({runs}) ORDER BY v DESC, ts_code LIMIT 5")  # fmt: skip


def advance_decline() -> Iterator[Case]:
    """Stocks up per stock down (涨跌比), for the market or per group on a day, or per day of a window."""
    for time in TIMES_DAY:
        yield from _both("advance_decline", Words(
            f"{time.words.zh}的涨跌比", f"advance/decline ratio {time.words.en}"
        ), ref.advance_decline(time.span, None))  # fmt: skip
        for group in GROUPS[:3]:
            yield from _both("advance_decline", Words(
                f"{group.each.zh}{time.words.zh}的涨跌比",
                f"advance/decline ratio {group.each.en} {time.words.en}",
            ), ref.advance_decline(time.span, group.key))  # fmt: skip
    for time in TIMES_WINDOW[:2]:
        yield from _both("advance_decline", Words(
            f"{time.words.zh}每天的涨跌比", f"daily advance/decline ratio {time.words.en}"
        ), ref.advance_decline(time.span, "day"))  # fmt: skip


def groups_with_movers() -> Iterator[Case]:
    """Groups (or the days of a window) kept on how many of their stocks rose or fell."""
    for group, n in zip(GROUPS[:3], (1000, 800, 60), strict=True):
        yield from _both("groups_with_movers", Words(
            f"今天上涨家数超过{n}家的{group.plural.zh}",
            f"{group.plural.en} with more than {n} advancers today",
        ), ref.groups_with_movers(ref.latest_day(), group.key, ">", ">", n))  # fmt: skip
    for time in TIMES_WINDOW[:2]:
        yield from _both("groups_with_movers", Words(
            f"{time.words.zh}下跌家数超过2500家的交易日",
            f"trading days {time.words.en} on which more than 2500 stocks closed down",
        ), ref.groups_with_movers(time.span, "day", "<", ">", 2500))  # fmt: skip


def groups_counted() -> Iterator[Case]:
    """How many groups (or days of a window) a group filter keeps: the rows counted, not the stocks."""
    for (quantity, time), group in itertools.product([(DAY_QUANTITIES[1], TIMES_DAY[0])], GROUPS[:4]):
        name = quantity.words
        words = Words(
            f"{time.words.zh}平均{name.zh}{quantity.limit_words.zh}的{group.plural.zh}有几个",
            f"How many {group.plural.en} had an average {name.en} {quantity.limit_words.en} {time.words.en}?",
        )
        sql = ref.groups_averaging(quantity.measure, time.span, group.key, quantity.op, quantity.threshold)
        yield from _both("groups_counted", words, ref.counted_rows(sql))
    for time in TIMES_WINDOW[:2]:
        yield from _both("groups_counted", Words(
            f"{time.words.zh}下跌家数超过2500家的交易日有多少个",
            f"number of trading days {time.words.en} with more than 2500 decliners",
        ), ref.counted_rows(ref.groups_with_movers(time.span, "day", "<", ">", 2500)))  # fmt: skip


def groups_versus_market() -> Iterator[Case]:
    """The groups whose average return beat (lagged) the whole market's over a window."""
    gain = WINDOW_QUANTITIES[0].measure
    for time, group in itertools.product(TIMES_WINDOW[:2], GROUPS[:3]):
        yield from _both("groups_versus_market", Words(
            f"{time.words.zh}跑赢大盘的{group.plural.zh}",
            f"Which {group.plural.en} outperformed the market average {time.words.en}?",
        ), ref.groups_versus_market(gain, time.span, group.key, ">"))  # fmt: skip
        yield from _both("groups_versus_market", Words(
            f"{time.words.zh}跑输大盘的{group.plural.zh}",
            f"{group.plural.en} that underperformed the market {time.words.en}",
        ), ref.groups_versus_market(gain, time.span, group.key, "<"))  # fmt: skip


def ranked_by_movers() -> Iterator[Case]:
    """The group (or the day of a window) with the most / fewest stocks up or down."""
    for group in GROUPS[:3]:
        yield from _both("ranked_by_movers", Words(
            f"今天上涨家数最多的{group.one.zh}", f"Which {group.one.en} had the most advancers today?"
        ), ref.groups_ranked_by_movers(ref.latest_day(), group.key, ">", True))  # fmt: skip
    for time in TIMES_WINDOW[:2]:
        yield from _both("ranked_by_movers", Words(
            f"{time.words.zh}下跌家数最多的交易日",
            f"which trading day {time.words.en} had the most decliners?",
        ), ref.groups_ranked_by_movers(time.span, "day", "<", True))  # fmt: skip
        yield from _both("ranked_by_movers", Words(
            f"{time.words.zh}上涨家数最少的交易日", f"which session {time.words.en} had the fewest advancers?"
        ), ref.groups_ranked_by_movers(time.span, "day", ">", False))  # fmt: skip


def counts_of_each() -> Iterator[Case]:
    """One count per condition (涨停和跌停各有多少家)."""
    pairs = (
        (Words("上涨和下跌", "closed up"), Words("", "closed down"), [UP, "d.pct_chg < 0"]),
        (Words("涨停和跌停", "hit limit up"), Words("", "hit limit down"), [LIMIT_UP, LIMIT_DOWN]),
    )
    for (first, second, conditions), time in itertools.product(pairs, TIMES_DAY):
        words = Words(
            f"{time.words.zh}{first.zh}的股票各有多少只",
            f"How many stocks {first.en} and how many {second.en} {time.words.en}?",
        )
        yield from _both("counts_each", words, ref.counts_of_each(time.span, conditions))


def shares() -> Iterator[Case]:
    """The share of the stocks that met a day's condition, for the market or per group."""
    for time, group in itertools.product(TIMES_DAY, (None, *GROUPS[:3])):
        each = group.each if group else Words("", "")
        words = Words(
            f"{time.words.zh}{each.zh}上涨股票的占比",
            f"What percentage of stocks closed up {time.words.en} {each.en}".strip() + "?",
        )
        yield from _both("share", words, ref.share_of_stocks(time.span, UP, group.key if group else None))


def report_figures() -> Iterator[Case]:
    """A report figure of the 2024 annual report: filtered within a scope, or averaged per group."""
    for quantity, scope in itertools.product(REPORT_QUANTITIES, SCOPES[:3]):
        words = Words(
            f"{ANNUAL_2024.words.zh}{quantity.words.zh}{quantity.limit_words.zh}的{scope.stocks.zh}",
            f"Which {scope.stocks.en} had a {quantity.words.en} {quantity.limit_words.en} "
            f"{ANNUAL_2024.words.en}?",
        )
        sql = ref.filtered(quantity.measure, ANNUAL_2024.span, quantity.op, quantity.threshold, scope.sql)
        yield from _both("report", words, sql)
    for quantity, group in itertools.product(REPORT_QUANTITIES, (None, *GROUPS)):
        each = group.each if group else Words("", "")
        words = Words(
            f"{ANNUAL_2024.words.zh}{each.zh}股票的平均{quantity.words.zh}",
            f"Average {quantity.words.en} {ANNUAL_2024.words.en} {each.en}".strip(),
        )
        sql = ref.aggregated(quantity.measure, ANNUAL_2024.span, "avg", group.key if group else None)
        yield from _both("report", words, sql)


def rankings_per_group() -> Iterator[Case]:
    """The top 3 of each group; then, of those, how many closed up."""
    latest = TIMES_DAY[0]
    for quantity, group in itertools.product((DAY_QUANTITIES[4], DAY_QUANTITIES[2]), GROUPS[:3]):
        words = Words(
            f"{latest.words.zh}{group.each.zh}{quantity.words.zh}前3的股票",
            f"Top 3 stocks by {quantity.words.en} {latest.words.en} in each {group.one.en}",
        )
        yield from _both(
            "top_per_group", words, ref.top_per_group(quantity.measure, latest.span, 3, group.key)
        )
        words = Words(
            f"{group.each.zh}{quantity.words.zh}前3的股票中{latest.words.zh}上涨的有多少只",
            f"Of the top 3 stocks by {quantity.words.en} in each {group.one.en}, how many closed up "
            f"{latest.words.en}?",
        )
        sql = ref.top_per_group_counted(quantity.measure, latest.span, 3, group.key, UP)
        yield from _both("top_per_group", words, sql)


def negations() -> Iterator[Case]:
    """Stocks of a scope that did not meet a day's condition."""
    for (condition, sql_condition), scope, time in itertools.product(
        DAY_CONDITIONS[:2], (SCOPES[0], SCOPES[3]), TIMES_DAY
    ):
        words = Words(
            f"{time.words.zh}没有{condition.zh}的{scope.stocks.zh}",
            f"{scope.stocks.en.capitalize()} that did not {_infinitive(condition.en)} {time.words.en}",
        )
        yield from _both("negation", words, ref.not_meeting(time.span, sql_condition, scope.sql))


def _infinitive(verb_phrase: str) -> str:
    """closed up → close up, hit limit up → hit limit up (after 'did not')."""
    return verb_phrase.replace("closed", "close", 1)


def index_constituents() -> Iterator[Case]:
    """CSI 300 constituents: a filter, an average, an average per group."""
    latest = TIMES_DAY[0]
    members = ref.index_members(CSI_300, latest.span)
    for quantity in (DAY_QUANTITIES[1], DAY_QUANTITIES[3], DAY_QUANTITIES[4]):
        words = Words(
            f"{latest.words.zh}{quantity.words.zh}{quantity.limit_words.zh}的沪深300成分股",
            f"CSI 300 constituents with a {quantity.words.en} {quantity.limit_words.en} {latest.words.en}",
        )
        sql = ref.filtered(quantity.measure, latest.span, quantity.op, quantity.threshold, members)
        yield from _both("index", words, sql)
        for group in (None, *GROUPS[:3]):
            each = group.each if group else Words("", "")
            words = Words(
                f"沪深300成分股{latest.words.zh}{each.zh}的平均{quantity.words.zh}",
                f"Average {quantity.words.en} of CSI 300 constituents {latest.words.en} {each.en}".strip(),
            )
            sql = ref.aggregated(quantity.measure, latest.span, "avg", group.key if group else None, members)
            yield from _both("index", words, sql)


def ranked_twice() -> Iterator[Case]:
    """A ranking picks the stocks, a second one ranks them: 市值前50的股票中市盈率最低的5只."""
    latest = TIMES_DAY[0]
    total_mv, amount, pe, pct_chg = DAY_QUANTITIES[4], DAY_QUANTITIES[2], DAY_QUANTITIES[3], DAY_QUANTITIES[0]
    plans = ((total_mv, 50, pe, True), (amount, 30, pct_chg, False), (total_mv, 40, pct_chg, False))
    for (first, n, second, ascending), scope in itertools.product(plans, (SCOPES[0], SCOPES[3])):
        lowest = Words("最低", "lowest") if ascending else Words("最高", "highest")
        prefix = "" if scope.key == "all" else scope.stocks.zh.removesuffix("股票")
        words = Words(
            f"{latest.words.zh}{prefix}{first.words.zh}前{n}的股票中{second.words.zh}{lowest.zh}的5只",
            f"Among the {n} {scope.stocks.en} with the highest {first.words.en} {latest.words.en}, "
            f"which 5 have the {lowest.en} {second.words.en}?",
        )
        sql = ref.ranked_within_ranked(first.measure, n, second.measure, 5, latest.span, ascending, scope.sql)
        yield from _both("ranked_twice", words, sql)


def ranked_groups() -> Iterator[Case]:
    """Groups ranked by an average: the one highest, or the top 3."""
    plans = [(DAY_QUANTITIES[1], TIMES_DAY[0]), (DAY_QUANTITIES[0], TIMES_DAY[0])]
    plans += [(WINDOW_QUANTITIES[1], TIMES_WINDOW[0])]
    for (quantity, time), group in itertools.product(plans, GROUPS[:4]):
        zh, en = quantity.words.zh.removeprefix("平均"), quantity.words.en.removeprefix("average ")
        words = Words(
            f"{time.words.zh}平均{zh}最高的{group.one.zh}",
            f"Which {group.one.en} had the highest average {en} {time.words.en}?",
        )
        yield from _both("ranked_groups", words, ref.top_groups(quantity.measure, time.span, group.key, 1))
        words = Words(
            f"{time.words.zh}平均{zh}最高的3个{group.one.zh}",
            f"Which 3 {group.plural.en} had the highest average {en} {time.words.en}?",
        )
        yield from _both("ranked_groups", words, ref.top_groups(quantity.measure, time.span, group.key, 3))


def by_index() -> Iterator[Case]:
    """One row per index the question lists (CSI 300 and CSI 500), averaging its constituents."""
    latest = TIMES_DAY[0]
    for quantity in (DAY_QUANTITIES[1], DAY_QUANTITIES[3], DAY_QUANTITIES[4]):
        words = Words(
            f"沪深300和中证500成分股{latest.words.zh}的平均{quantity.words.zh}",
            f"Average {quantity.words.en} {latest.words.en} of CSI 300 and CSI 500 constituents",
        )
        sql = ref.per_index_average(quantity.measure, latest.span, [CSI_300, "000905.SH"])
        yield from _both("by_index", words, sql)


def two_periods() -> Iterator[Case]:
    """The same figure on two days or in two annual reports, compared (by more than a threshold)."""
    yesterday = Time("yesterday", Words("昨天", "yesterday"), ref.named_day("2025-12-30"), False)
    latest = TIMES_DAY[0]
    for quantity in (DAY_QUANTITIES[5], DAY_QUANTITIES[2], DAY_QUANTITIES[1]):
        name = quantity.words
        for op, zh, en in ((">", "高于", "above"), ("<", "低于", "below")):
            words = Words(
                f"{latest.words.zh}{name.zh}{zh}{yesterday.words.zh}{name.zh}的股票",
                f"Stocks whose {name.en} {latest.words.en} was {en} their {name.en} {yesterday.words.en}",
            )
            yield from _both(
                "two_periods", words, ref.two_periods(quantity.measure, latest.span, yesterday.span, op, 0)
            )
    revenue, profit = REPORT_QUANTITIES[1], Measure("income", "n_income_attr_p")
    for measure, name, op, threshold, by in (
        (revenue.measure, revenue.words, ">", 5e8, Words("多5亿以上", "by more than 500 million yuan")),
        (
            profit,
            Words("净利润", "net profit"),
            ">",
            1e8,
            Words("多1亿以上", "by more than 100 million yuan"),
        ),
    ):
        words = Words(
            f"2024年{name.zh}比2023年{by.zh}的公司",
            f"Companies whose {name.en} in 2024 exceeded their {name.en} in 2023 {by.en}",
        )
        sql = ref.two_periods(
            measure, ref.report_period("2024-12-31"), ref.report_period("2023-12-31"), op, threshold
        )
        # 以上 / more than: the Chinese includes the threshold, the English does not; no figure sits on it
        yield from _both("two_periods", words, sql)


def changes_ranked() -> Iterator[Case]:
    """Ranked by the change of a figure between two times: a day against the question's day, two annual
    reports, a quarter against the same quarter a year before; the largest rise or fall, among all
    stocks, within a scope, or in each group."""
    latest, before = (
        TIMES_DAY[0],
        Time("d0630", Words("2025年6月30日", "June 30 2025"), ref.named_day("2025-06-30"), False),
    )
    moves = (
        (True, Words("增加", "grew"), Words("", "increase")),
        (False, Words("减少", "fell"), Words("", "decline")),
    )
    for quantity, (up, verb, _noun), scope in itertools.product(
        (DAY_QUANTITIES[4], DAY_QUANTITIES[1], DAY_QUANTITIES[5]), moves, (SCOPES[0], SCOPES[3])
    ):
        name = quantity.words
        words = Words(
            f"{name.zh}比{before.words.zh}{verb.zh}最多的5只{scope.stocks.zh}",
            f"the 5 {scope.stocks.en} whose {name.en} {verb.en} the most since {before.words.en}",
        )
        sql = ref.change_ranked(quantity.measure, latest.span, before.span, 5, up, scope=scope.sql)
        yield from _both("change_ranked", words, sql, order_matters=True)
    annual = (ref.report_period("2024-12-31"), ref.report_period("2023-12-31"))
    for quantity, (up, verb, noun) in itertools.product(REPORT_QUANTITIES, moves):
        name = quantity.words
        words = Words(
            f"2024年{name.zh}比2023年{verb.zh}最多的10家",
            f"the 10 companies with the largest {noun.en} in {name.en} from 2023 to 2024",
        )
        sql = ref.change_ranked(quantity.measure, *annual, 10, up)
        yield from _both("change_ranked", words, sql, order_matters=True)
    q3 = (ref.report_period("2025-09-30"), ref.report_period("2024-09-30"))
    for quantity, group in itertools.product(REPORT_QUANTITIES, GROUPS[:3]):
        name = quantity.words
        words = Words(
            f"{group.each.zh}2025年三季度{name.zh}比去年同期增加最多的2家",
            f"the 2 companies in each {group.one.en} whose {name.en} grew the most from Q3 2024 to Q3 2025",
        )
        yield from _both("change_ranked", words, ref.change_ranked(quantity.measure, *q3, 2, True, group.key))


FAMILIES = (
    filters,
    aggregates_by_group,
    group_filters,
    counts_by_group,
    ranked_subsets,
    versus_group_average,
    versus_group_scaled,
    per_day,
    days_counted,
    bar_tests_each_day,
    longest_streaks,
    advance_decline,
    groups_with_movers,
    groups_counted,
    ranked_by_movers,
    groups_versus_market,
    counts_of_each,
    shares,
    report_figures,
    rankings_per_group,
    negations,
    index_constituents,
    ranked_twice,
    ranked_groups,
    by_index,
    two_periods,
    changes_ranked,
)


def cases() -> list[Case]:
    return [case for family in FAMILIES for case in family()]
