"""Aggregates: 平均市盈率, 成交额合计, highest and lowest close, 股票数量 → `aggmetric` / `count`."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import Compare, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import (
    Match,
    is_plain_number,
    kind_at,
    metric_of,
    synthetic,
)
from backend.domain.language.semantic import SemanticModel

MEASURED = {"metric", "change_word"}
TOTAL_WORD = "total "  # the start of an English metric name said with its sum (total market cap)
DAILY_AVERAGE_WORDS = {"日均", "每日平均"}
# what 多少 right after it asks for (净利润是多少, 单季营收多少): the figure, not a count of stocks
FIGURE_KINDS = {"metric", "aggmetric", "report_figure", "cmp", "count_move"}  # 上涨家数多少: that count
EACH_BEFORE_ASKED = {"分别", "各", "各自"}  # 营收和净利润分别多少: each figure's value
AND_WORDS = {"和", "与", "及", "以及", "、", "and", "&"}  # read as `to` by the lexicon in A and B
# volatility = stddev of the daily changes; drawdown = % below the window's highest close; max
# drawdown = the largest fall of a close below the highest close before it, both in the window; the
# longest up (down) streak = the most consecutive bars with a gain (a loss) in the window
WINDOW_MEASURES = {
    "volatility": ("stddevSamp", "pct_chg"),
    "drawdown": ("drawdown", "close"),
    "max_drawdown": ("max_drawdown", "close"),
    "longest_up_streak": ("longest_up_streak", "pct_chg"),
    "longest_down_streak": ("longest_down_streak", "pct_chg"),
}


# the units of an N-day window of the stock's own bars (the 250-day closing high)
BAR_WINDOW_UNITS = {"day", "trading_day"}


def drawdown_from_window_high(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[deepest] drawdown(s) from [its] the N-day closing high: the drawdown over the last N trading
    days (how far the last close is below the window's highest close), ranked by the depth with
    'deepest'. Read before `new_high_low`, which would take the N-day high for a new high; an
    intraday high (from the 250-day high) is another measure, left unread."""
    deepest = kind_at(tokens, i) == "deepest"
    j = i + deepest
    if kind_at(tokens, j) != "drawdown":
        return None
    said_from = kind_at(tokens, j + 1) == "between" and tokens[j + 1].text == "from"
    window = tokens[j + 2] if said_from and kind_at(tokens, j + 2) == "number" else None
    if window is None or not is_plain_number(window) or not float(window.value).is_integer():
        return None
    closing = kind_at(tokens, j + 3) == "tunit" and tokens[j + 3].value in BAR_WINDOW_UNITS
    closing = closing and kind_at(tokens, j + 4) == "metric" and tokens[j + 4].value == "close"
    closing = closing and kind_at(tokens, j + 5) == "new_high"
    if not closing or window.value < 2:
        return None
    ranked = [synthetic("super", "desc", tokens[i : i + 1])] if deepest else []
    days = synthetic("timespec", TimeSpec("recent_bars", n=int(window.value)), tokens[j + 1 : j + 6])
    return j + 6 - i, [*ranked, tokens[j], days]


def distance_from_high(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """How far the last close is below a window's high — the drawdown measure said as a phrase:
    more than 60% off their highest close of the last 250 trading days, more than 50% below their
    2025 high (the intraday high), 现价距离近250个交易日最高收盘价回撤超过70%."""
    if kind_at(tokens, i) == "metric" and tokens[i].value == "close" and kind_at(tokens, i + 1) == "distance":
        j = i + 2  # 现价距离 [window] 最高收盘价回撤: the last close is what is measured
        window = [tokens[j]] if kind_at(tokens, j) == "timespec" else []
        j += len(window)
        high = _high_of(tokens, j)
        if high is None or kind_at(tokens, j + high[1]) != "drawdown":
            return None
        end = j + high[1] + 1
        return end - i, [*window, synthetic("aggmetric", ("drawdown", high[0]), tokens[i:end])]
    asked = _distance_asked(tokens, i) or _lower_than_high_asked(tokens, i)
    if asked is not None:
        return asked
    fallen = kind_at(tokens, i) == "down"  # down more than 40% from their highest close
    c = i + fallen  # the comparison
    far = kind_at(tokens, c) == "cmp" and tokens[c].value in {">", ">="}
    far = far and kind_at(tokens, c + 1) == "number"
    if not far or tokens[c + 1].extra.get("unit") != "percent":
        return None
    j = c + 2
    below = kind_at(tokens, j) == "distance" or (kind_at(tokens, j) == "cmp" and tokens[j].value == "<")
    if not (below or (fallen and kind_at(tokens, j) == "between" and tokens[j].text == "from")):
        return None  # 60% off / 50% below / down 40% from
    j += 1
    times = []
    if kind_at(tokens, j) == "timespec":
        times.append(tokens[j].value)
        j += 1
    high = _high_of(tokens, j)
    if high is None:
        return None
    j += high[1]
    if not times and kind_at(tokens, j) == "timespec":
        times.append(tokens[j].value)
        j += 1
    condition = Compare(
        high[0], tokens[c].value, float(tokens[c + 1].value), agg="drawdown",
        time=times[0] if times else None, text=tokens[c + 1].text,
    )  # fmt: skip
    return j - i, [synthetic("cond", condition, tokens[i:j])]


def _high_of(tokens: list[Token], j: int) -> tuple[str, int] | None:
    """(the figure whose highest value is meant, tokens used): 'high' alone is the intraday high;
    highest close / 最高收盘价 the close."""
    if kind_at(tokens, j) == "new_high":
        return "high", 1
    highest = kind_at(tokens, j) == "super" and tokens[j].value == "desc"
    if highest and kind_at(tokens, j + 1) == "metric" and tokens[j + 1].value in {"close", "high"}:
        return str(tokens[j + 1].value), 2
    return None


def _distance_asked(tokens: list[Token], i: int) -> Match | None:
    """How far is Ping An below its highest close of the last 250 trading days / how much is X off
    its 2025 high: the drawdown asked for, shown (the question's stocks said inside stay scopes)."""
    if kind_at(tokens, i) not in {"how_far", "how_much"}:
        return None
    j = i + 1
    scopes = []
    while kind_at(tokens, j) == "cond" and tokens[j].extra.get("scope"):
        scopes.append(tokens[j])
        j += 1
    below = kind_at(tokens, j) == "distance" or (kind_at(tokens, j) == "cmp" and tokens[j].value == "<")
    if not below:
        return None
    j += 1
    window = [tokens[j]] if kind_at(tokens, j) == "timespec" else []
    j += len(window)
    high = _high_of(tokens, j)
    if high is None:
        return None
    j += high[1]
    if not window and kind_at(tokens, j) == "timespec":
        window, j = [tokens[j]], j + 1
    return j - i, [*scopes, *window, synthetic("aggmetric", ("drawdown", high[0]), tokens[i:j])]


# what asks the size of a gap after 低了: 多少 or 百分之几 (a percent: the drawdown is one)
GAP_ASKED = {"agg": "多少", "percent_asked": "百分之几"}


def _lower_than_high_asked(tokens: list[Token], i: int) -> Match | None:
    """比[它] [window] 最高收盘价 低了百分之几 / 低多少: the Chinese of 'how far below its high' — the
    drawdown asked. Only 低 (a close is never above its window's high) and only when the size is asked."""
    # 现在 / 今天 before it restates the window's end (the last day), never a day of its own
    now = kind_at(tokens, i) == "timespec" and tokens[i].value == TimeSpec("latest")
    if kind_at(tokens, i + now) != "than":
        return None
    j = i + now + 1
    window = [tokens[j]] if kind_at(tokens, j) == "timespec" else []
    days = kind_at(tokens, j) == "number" and is_plain_number(tokens[j])
    days = days and float(tokens[j].value).is_integer() and float(tokens[j].value) >= 2
    if days and kind_at(tokens, j + 1) == "tunit" and tokens[j + 1].value in BAR_WINDOW_UNITS:
        # 120日最高收盘价 with no 近: the last N trading days all the same, as 近120日 reads
        n = int(tokens[j].value)
        window, j = [synthetic("timespec", TimeSpec("recent_bars", n=n), tokens[j : j + 2])], j + 1
    j += len(window)
    high = _high_of(tokens, j)
    if high is None:
        return None
    j += high[1]
    lower = kind_at(tokens, j) == "comparative" and tokens[j].value == "<"
    asked = kind_at(tokens, j + 1) in GAP_ASKED and tokens[j + 1].text == GAP_ASKED[tokens[j + 1].kind]
    if not (lower and asked):
        return None
    return j + 2 - i, [*window, synthetic("aggmetric", ("drawdown", high[0]), tokens[i : j + 2])]


# figures that are parts of one whole (an index's weights add up to 100%): how much of it stocks take is a sum
PARTS_OF_A_WHOLE = {"weight"}


def _share_taken(tokens: list[Token], i: int) -> Match | None:
    """[合计 / 加起来] 占 [了] 多少权重 (沪深300权重最大的10只加起来占多少权重, 银行股占多少权重):
    the weights of the stocks described, summed."""
    j = i + (tokens[i].kind == "agg" and tokens[i].value == "sum")
    asked = kind_at(tokens, j + 1) == "agg" and tokens[j + 1].text == "多少"
    if kind_at(tokens, j) != "part_of" or not asked or kind_at(tokens, j + 2) != "metric":
        return None
    if tokens[j + 2].value not in PARTS_OF_A_WHOLE:
        return None
    return j + 3 - i, [synthetic("aggmetric", ("sum", tokens[j + 2].value), tokens[i : j + 3])]


def aggregate_metric(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind == "volatility" and kind_at(tokens, i + 1) == "volatility_definition":
        # 20-day volatility (std dev of daily % changes) above 5: the definition said inline restates it
        return 2, [synthetic("aggmetric", WINDOW_MEASURES[token.kind], tokens[i : i + 2])]
    total = _total_of_group(tokens, i) or _share_taken(tokens, i)
    if total is not None:
        return total
    if token.kind in WINDOW_MEASURES:  # 波动率 / most volatile, 回撤 / drawdown: a window's measure
        return 1, [synthetic("aggmetric", WINDOW_MEASURES[token.kind], [token])]
    high = _high_of(tokens, i)
    if high is not None and kind_at(tokens, i + high[1]) == "drawdown":  # 最高收盘价回撤: from that high
        used = high[1] + 1
        return used, [synthetic("aggmetric", ("drawdown", high[0]), tokens[i : i + used])]
    if token.kind in {"agg", "super", "per_day"} and kind_at(tokens, i + 1) == "daily_values":
        # "average daily turnover", "最大单日涨幅": aggregate each day's value
        rest = aggregate_metric(model, [token, *tokens[i + 2 :]], 0)
        if rest is not None:
            used, produced = rest
            return used + 1, [*produced, synthetic("daily_values", "daily", [tokens[i + 1]])]
    if token.kind == "per_day" and "average" in token.text and kind_at(tokens, i + 1) in MEASURED:
        # "Daily average pct change": one average per day
        aggregate = synthetic("aggmetric", ("avg", metric_of(tokens[i + 1])), tokens[i : i + 2])
        return 2, [aggregate, synthetic("per_day", "trade_date", [token])]
    if (
        token.kind == "super"
        and kind_at(tokens, i + 1) in MEASURED
        and kind_at(tokens, i + 2) in {"cmp", "between"}
    ):
        # 近10个交易日最大单日涨幅超过15%: the window's maximum is compared
        return 2, [synthetic("aggmetric", (_extreme(token), metric_of(tokens[i + 1])), tokens[i : i + 2])]
    if _extreme_said_after(tokens, i):
        # 近60个交易日单日振幅最高超过20%: the same, the superlative said after the figure
        return 2, [synthetic("aggmetric", (_extreme(tokens[i + 1]), metric_of(token)), tokens[i : i + 2])]
    listed = _listed_aggregates(tokens, i)
    measured_after = listed[-1] + 1 < len(tokens) if listed else False  # 平均且平均: no figure after them
    if len(listed) > 1 and measured_after and _measured(tokens[listed[-1] + 1]) is not None:
        # total and average market cap / 平均和最高市盈率: each aggregate of the metric after them
        metric = _measured(tokens[listed[-1] + 1]) or ""
        phrase = tokens[i : listed[-1] + 2]
        return len(phrase), [synthetic("aggmetric", (_function(tokens[k]), metric), phrase) for k in listed]
    pair = kind_at(tokens, i + 1) in {"and", "to"} and kind_at(tokens, i + 2) == "super"
    if token.kind == "super" and pair and kind_at(tokens, i + 3) in MEASURED:
        # Highest and lowest closing price: both aggregates
        metric = metric_of(tokens[i + 3])
        return 4, [
            synthetic("aggmetric", (_extreme(token), metric), tokens[i : i + 4]),
            synthetic("aggmetric", (_extreme(tokens[i + 2]), metric), tokens[i : i + 4]),
        ]
    if token.kind == "agg" and token.value != "count":
        j = i + 1
        if kind_at(tokens, j) == "timespec":
            j += 1
        scopes = []  # total CSI 300 weight, average bank PE: the scope said inside stays a scope
        while kind_at(tokens, j) == "cond" and tokens[j].extra.get("scope"):
            scopes.append(tokens[j])
            j += 1
        if scopes and kind_at(tokens, j) == "metric":
            said = [t for t in tokens[i:j] if t not in scopes]  # the aggregate word and its time
            aggregated = aggregate_metric(model, [*said, *tokens[j:]], 0)
            if aggregated is not None:
                return len(scopes) + aggregated[0], [*scopes, *aggregated[1]]
        if 0 <= j < len(tokens) and _measured(tokens[j]) is not None:
            metric = _measured(tokens[j]) or ""
            if token.value == "sum" and metric == "pct_chg":
                return 1, []  # 累计涨幅 / total return: the gain over the window, not a sum of days
            time = _time_in(tokens[i:j])
            aggregate = synthetic("aggmetric", (token.value, metric), tokens[i : j + 1], time=time)
            shared = _shared_by(tokens, j + 1)  # 平均市盈率和市净率: the average of each
            others = [
                synthetic("aggmetric", (token.value, metric_of(tokens[k])), [tokens[k]], time=time)
                for k in shared
            ]
            end = shared[-1] + 1 if shared else j + 1
            if token.text in DAILY_AVERAGE_WORDS:  # 日均成交额: each day's value averaged, as "average daily"
                return end - i, [synthetic("daily_values", "daily", [token]), aggregate, *others]
            return end - i, [aggregate, *others]
    figure_after = i + 2 < len(tokens) and _measured(tokens[i + 2]) is not None
    if token.kind in MEASURED and kind_at(tokens, i + 1) == "agg" and tokens[i + 1].value != "count":
        if figure_after:  # by market cap: what's their average return — the average is the return's
            return None
        if tokens[i + 1].value == "sum" and metric_of(token) == "pct_chg":
            return 2, [token]
        return 2, [synthetic("aggmetric", (tokens[i + 1].value, metric_of(token)), tokens[i : i + 2])]
    days = kind_at(tokens, i + 1) == "tunit" and tokens[i + 1].value in {"trading_day", "day"}
    if token.kind == "agg" and token.value == "count" and days:
        # how many trading days did SSE have in 2024 / 2024年有多少个交易日: days, not stocks
        return 2, [synthetic("count", None, tokens[i : i + 2], days=True)]
    if token.kind == "agg" and token.value == "count":
        if token.text == "多少" and _asks_figure(tokens, i):
            return 1, []  # 净利润是多少: the figure is asked for, not a count of stocks
        used = 1 + (kind_at(tokens, i + 1) == "distinct")  # how many different stocks: counts are distinct
        return used, [synthetic("count", None, tokens[i : i + used])]
    return None


def _asks_figure(tokens: list[Token], i: int) -> bool:
    """多少 right after a figure (净利润是多少, 单季营收多少), after 分别 / 各 said right after one
    (市盈率、市净率分别多少, as 分别是多少) or after its aggregate (成交额合计多少): the figure asked, each,
    never a count of stocks."""
    before = i - 1
    if kind_at(tokens, before) in {"quantifier", "per"} and tokens[before].text in EACH_BEFORE_ASKED:
        before -= 1
    elif kind_at(tokens, before) == "agg" and tokens[before].value != "count":
        before -= 1  # 成交额合计多少 / 一共多少: the aggregate said after its figure is what is asked
    return kind_at(tokens, before) in FIGURE_KINDS


def _total_of_group(tokens: list[Token], i: int) -> Match | None:
    """total market cap of the CSI 300, total revenue of banks: a figure named with "total" and then a
    group of stocks is the group's sum (the scope stays a condition); of one stock it is its figure,
    and with a comparison after the group (…of banks above 1 trillion) it is left to the others."""
    token = tokens[i]
    if token.kind != "metric" or not token.text.startswith(TOTAL_WORD) or kind_at(tokens, i + 1) != "cond":
        return None
    group = tokens[i + 1]
    if not group.extra.get("scope") or getattr(group.value, "kind", "stock") == "stock":
        return None
    if kind_at(tokens, i + 2) in {"cmp", "between", "top", "super", "order", "dir"}:
        return None
    return 2, [group, synthetic("aggmetric", ("sum", metric_of(token)), [token])]


def _shared_by(tokens: list[Token], j: int) -> list[int]:
    """The metrics right after an aggregated one, joined by 和 / and / 、, with no aggregate word of
    their own (average PE and PB): the same aggregate is taken of each."""
    shared: list[int] = []
    while kind_at(tokens, j) in {"and", "to"} and kind_at(tokens, j + 1) == "metric":
        if tokens[j].kind == "to" and tokens[j].text not in AND_WORDS:
            break  # 从…到…: a range, not a list
        shared.append(j + 1)
        j += 2
    return shared


def _listed_aggregates(tokens: list[Token], i: int) -> list[int]:
    """Where the aggregate words of a list starting at `i` are (total and average, 平均和最高): an
    `agg` (not a count) first, then and/和 + an `agg` or a superlative, each."""
    if kind_at(tokens, i) != "agg" or tokens[i].value == "count":
        return []
    listed = [i]
    while kind_at(tokens, listed[-1] + 1) in {"and", "to"} and _is_function(tokens, listed[-1] + 2):
        listed.append(listed[-1] + 2)
    return listed


def _is_function(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "super" or (kind_at(tokens, j) == "agg" and tokens[j].value != "count")


def _function(token: Token) -> str:
    return _extreme(token) if token.kind == "super" else str(token.value)


def _extreme_said_after(tokens: list[Token], i: int) -> bool:
    """figure + 最高/最低 + a strict or open comparison (振幅最高超过20%), in a question with a window of
    recent days: the window's extreme compared. Not before 是 (最高是多少 asks the figure), nor with no
    window (whose extreme over what days?)."""
    if kind_at(tokens, i) not in MEASURED or kind_at(tokens, i + 1) != "super":
        return False
    if kind_at(tokens, i + 2) != "cmp" or tokens[i + 2].value == "=":
        return False
    return any(
        token.kind == "recent" or (token.kind == "timespec" and not token.value.is_single_day)
        for token in tokens[:i]
    )


def _extreme(superlative: Token) -> str:
    """最高 / highest (desc) → max; 最低 / lowest → min."""
    return "max" if superlative.value == "desc" else "min"


def _time_in(tokens: list[Token]) -> TimeSpec | None:
    for token in tokens:
        if token.kind == "timespec":
            return token.value
    return None


def counts_each(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """涨停和跌停的股票各有多少家 / how many hit limit up and how many limit down: a count per condition;
    涨停家次: the stock-day bars where it held (a stock counted once per day)."""
    asked = kind_at(tokens, i) == "count" and not tokens[i].extra  # number of limit-up hits: one count
    k = i + asked
    closes = kind_at(tokens, k + 1) == "metric" and tokens[k + 1].text == "closes"  # limit-down closes
    if _counted(tokens, k) and (kind_at(tokens, k + 1) in {"stock_days", "hits"} or closes):  # 涨停家次
        return k + 2 - i, [
            synthetic("count", None, tokens[i : k + 2], where=tokens[k].value, stock_days=True)
        ]
    if _counted(tokens, i) and kind_at(tokens, i + 1) in {"and", "to"} and _counted(tokens, i + 2):
        j = i + 3
        while _restates_each(tokens, j):  # 各 / 分别 / respectively
            j += 1
        if kind_at(tokens, j) == "count" and j > i + 3:
            return j + 1 - i, _counts((tokens[i], tokens[i + 2]))
    paired = kind_at(tokens, i + 1) in {"and", "to"}
    if _counted(tokens, i) and paired and kind_at(tokens, i + 2) == "count_move":
        # 上涨和下跌的家数: the second word carries the count word both share
        direction = ">" if tokens[i + 2].value == "count_up" else "<"
        moved = synthetic("cond", Compare("pct_chg", direction, 0.0, text="0"), [tokens[i + 2]])
        j = i + 3
        while _restates_each(tokens, j):  # 上涨和下跌家数分别是多少: one count each, as read
            j += 1
        return j - i, _counts((tokens[i], moved))
    each_asked = _count_after_each(tokens, i)
    if each_asked is not None:
        return each_asked
    listed_count = _count_listed_after_figure(tokens, i)
    if listed_count is not None:
        return listed_count
    if kind_at(tokens, i) == "count":  # how many stocks rose and how many fell
        first = i + 1 + (kind_at(tokens, i + 1) == "count_unit")
        scopes: list[Token] = []
        while kind_at(tokens, first) == "cond" and tokens[first].extra.get("scope"):  # how many banks rose…
            scopes.append(tokens[first])
            first += 1
        listed = kind_at(tokens, first + 1) in {"and", "to"} and tokens[first + 1].text in AND_WORDS
        if _counted(tokens, first) and listed and _counted(tokens, first + 2) and _says_each(tokens):
            # 分别有多少只涨停和跌停 / how many rose and fell, respectively: one count each
            return first + 3 - i, [*scopes, *_counts((tokens[first], tokens[first + 2]))]
        # how many made a new high today, and how many a new low: the day said once is both counts'
        said_on = [tokens[first + 1]] if kind_at(tokens, first + 1) == "timespec" else []
        joined = first + 1 + len(said_on)
        again = joined
        while kind_at(tokens, again) in {"and", "to"}:  # ", and"
            again += 1
        second = again + 1 + (kind_at(tokens, again + 1) == "count_unit")
        pair = again > joined and kind_at(tokens, again) == "count"
        if _counted(tokens, first) and pair and _counted(tokens, second):
            counted, end = [tokens[first], tokens[second]], second + 1
            while (later := _how_many_more(tokens, end)) is not None:  # , and how many above 50
                counted.append(tokens[later])
                end = later + 1
            return end - i, [*scopes, *_counts(tuple(counted)), *said_on]
    return None


def _count_after_each(tokens: list[Token], i: int) -> Match | None:
    """涨的有多少家，跌的有多少家 / 涨停的几只、跌停的几只: each condition followed by its own how-many, one
    count each (never both conditions AND-ed under one count); a third and more the same way."""
    if not (_counted(tokens, i) and _how_many_at(tokens, i + 1)):
        return None
    counted, end = [tokens[i]], i + 2
    while True:
        j = end
        while kind_at(tokens, j) in {"and", "to"}:
            j += 1
        if j == end or not _counted(tokens, j) or not _how_many_at(tokens, j + 1):
            break
        counted.append(tokens[j])
        end = j + 2
    return (end - i, _counts(tuple(counted))) if len(counted) > 1 else None


def _how_many_more(tokens: list[Token], end: int) -> int | None:
    """Where the condition of one more ', and how many [stocks] …' after `end` stands, if said."""
    again = end
    while kind_at(tokens, again) in {"and", "to"}:
        again += 1
    counted = again + 1 + (kind_at(tokens, again + 1) == "count_unit")
    return counted if again > end and _how_many_at(tokens, again) and _counted(tokens, counted) else None


def _how_many_at(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "count" and not tokens[j].extra


def _count_listed_after_figure(tokens: list[Token], i: int) -> Match | None:
    """average P/B and how many names trade below book, average PE and number of loss-making companies:
    a count listed after another figure counts
    the stocks its own condition names (countIf); the figure before it stays over every stock."""
    after_figure = kind_at(tokens, i - 2) == "aggmetric" and kind_at(tokens, i - 1) in {"and", "to"}
    if kind_at(tokens, i) != "count" or tokens[i].extra or not after_figure:
        return None
    first = i + 1 + (kind_at(tokens, i + 1) == "count_unit")
    if not _counted(tokens, first):
        return None
    end = first + 1 + (kind_at(tokens, first + 1) == "count_unit")  # number of loss-making companies
    if kind_at(tokens, end) not in {"", "timespec", "per", "dim", "groupby"}:
        return None  # more said after the condition: not read here
    return end - i, [synthetic("count", None, tokens[i:end], where=tokens[first].value)]


def _says_each(tokens: list[Token]) -> bool:
    """分别 / respectively / a 各 that groups nothing, anywhere in the question."""
    return any(
        (token.kind == "quantifier" and token.value == "each")
        or (token.kind == "per" and kind_at(tokens, k + 1) != "dim")
        for k, token in enumerate(tokens)
    )


def _restates_each(tokens: list[Token], j: int) -> bool:
    """各 / 分别 / respectively after two counted conditions: one count each, which is how they are read."""
    return kind_at(tokens, j) in {"per", "quantifier"}


def _counts(conditions: tuple[Token, ...]) -> list[Token]:
    """One count per condition; the one day they were said on (2025年9月8日上涨和下跌…) becomes the
    question's day, so that both counts read it."""
    compares = [c.value for c in conditions if isinstance(c.value, Compare)]
    times = {compare.time for compare in compares if compare.time is not None}
    if len(times) != 1 or len(compares) != len(conditions):
        return [synthetic("count", None, [c], where=c.value) for c in conditions]
    counts = [synthetic("count", None, [c], where=replace(c.value, time=None)) for c in conditions]
    return [*counts, synthetic("timespec", times.pop(), list(conditions))]


def _counted(tokens: list[Token], i: int) -> bool:
    """A condition on the stocks (not an entity scope, which a list of groups reads)."""
    return kind_at(tokens, i) == "cond" and not tokens[i].extra.get("scope")


def _measured(token: Token) -> str | None:
    """The metric a word names when an aggregate is taken of it: "average decline" reads 'decline' as
    the metric it also is, not as the direction word it is first."""
    if token.kind in MEASURED:
        return metric_of(token)
    return next((str(entry.value) for entry in token.extra.get("alts", ()) if entry.kind == "metric"), None)
