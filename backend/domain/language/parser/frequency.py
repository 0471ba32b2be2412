"""Quantified conditions: how often a day's condition held in a window, and a condition in each of
several periods.

- at least twice in December / 12月至少两次跌停 / 跌停次数超过2次 → Frequency(op, count);
- every day last week / 上周每天都上涨 → Frequency("every");
- 2023年和2024年净利润都超过5亿, 2022年到2024年每年… → the condition in each of those years;
- revenue rose every year from 2021 through 2024 → a growth streak ending in 2024.
"""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import (
    DAY_BY_DAY_TECHNICALS,
    BoolOp,
    Compare,
    Condition,
    Frequency,
    GrowthStreak,
    Not,
    Technical,
    TimeSpec,
)
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

COUNT_OPS = {">", ">=", "<", "<=", "="}
MOVES = {"up": ">", "down": "<"}  # closed up / down on a day: the day's change above / below 0
RANGE_WORDS = {"到", "至", "~", "to", "through", "thru"}  # 2022年到2024年: every year between
GROWTH_OF = {"netprofit_yoy": "n_income_attr_p", "or_yoy": "revenue"}  # 营收每年都增长 → revenue rose
# the words a statement about each of several years is made of
PERIOD_RUN = {
    "timespec",
    "to",
    "and",
    "between",
    "per",
    "tunit",
    "quantifier",
    "cond",
    "metric",
    "up",
    "down",
}
LONGEST_PERIOD_RUN = 10
EVENT_WORDS = {"次", "次数", "回", "times"}  # the times a day's condition held (each stock's day counted)
HOW_MANY = {"多少", "几", "how many"}  # 涨停多少次 / 涨停几次: the count asked before its unit
# a limit close counted as boards (3个涨停板: three limit-up days); only these events are counted with 个,
# and never where groups are named (超过2个涨停的行业 may count the limit-up stocks of each)
BOARD_EVENTS = {"涨停", "涨停板", "跌停", "跌停板"}


def counted_days(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """A day's condition with how many days it held: cond cmp N次 / cmp N次 cond / cmp cond N次 /
    cond N次以上."""
    condition = _day_condition(model, tokens, i)
    if condition is not None:
        out_of = _out_of_window(tokens, i + 1)
        if out_of is not None:  # closed up on at least 4 of the last 5 days
            op, count, window, end = out_of
            frequency = Frequency(condition, op, count, time=window)
            return end - i, [synthetic("cond", frequency, tokens[i:end])]
        if _out_of_window([Token("cmp", "=", "", 0), *tokens[i + 1 :]], 0) is not None:
            # closed up 3 of the last 5 days: at least or exactly 3? The count is left unread (refused,
            # named), never taken for a limit on the rows
            return 2, [tokens[i], synthetic("days_unsaid", None, [tokens[i + 1]])]
        counted = _count(tokens, i + 1)
        if counted is None:
            return None
        op, count, end = counted
        return end - i, [synthetic("cond", Frequency(condition, op, count), tokens[i:end])]
    if kind_at(tokens, i) == "cmp" and tokens[i].value in COUNT_OPS:  # 至少涨停3次: the count around it
        condition = _day_condition(model, tokens, i + 1)
        times = _times(tokens, i + 2) if condition is not None else None
        if condition is not None and times is not None:
            frequency = Frequency(condition, tokens[i].value, times[0])
            return times[1] - i, [synthetic("cond", frequency, tokens[i : times[1]])]
    described = _days_described(model, tokens, i)
    if described is not None:
        return described
    counted = _count(tokens, i)
    if counted is None:
        return None
    op, count, j = counted
    condition = _day_condition(model, tokens, j)  # 至少两次跌停
    if condition is None:
        return None
    return j + 1 - i, [synthetic("cond", Frequency(condition, op, count), tokens[i : j + 1])]


def on_another_day(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """…hit limit-up at least once in the last 5 sessions and closed limit-down on another of those
    days / 近10个交易日至少涨停一次，另一天跌停: the second condition on at least one day of the same
    window. "Another" day holds by itself only when the two can never share a day (limit up and limit
    down, up and down); conditions that could (up, and a white candle) are left to refuse."""
    counted = tokens[i].value if kind_at(tokens, i) == "cond" else None
    if not isinstance(counted, Frequency) or counted.op not in {">", ">="}:
        return None
    j = i + 1 + (kind_at(tokens, i + 1) == "timespec")
    if kind_at(tokens, j) not in {"and", "to"}:
        return None
    j += 1
    if kind_at(tokens, j) == "another_day":  # 另一天跌停
        said, end = j + 1, j + 2
    elif kind_at(tokens, j + 1) == "another_day":  # closed limit-down on another day
        said, end = j, j + 2
    else:
        return None
    other = _day_condition(model, tokens, said)
    signs = {_day_sign(counted.item), _day_sign(other) if other is not None else None}
    if other is None or signs != {"+", "-"}:
        return None
    again = synthetic("cond", Frequency(other, ">=", 1, time=counted.time), tokens[j:end])
    return end - i, [*tokens[i:j], again]


def _day_sign(condition: Condition) -> str | None:
    """The side of the day's move a condition fixes: + (limit up, closed up), − (limit down, down)."""
    if isinstance(condition, Technical) and condition.kind in {"limit_up", "limit_down"}:
        return "+" if condition.kind == "limit_up" else "-"
    if isinstance(condition, Compare) and condition.metric == "pct_chg" and condition.other is None:
        rises = condition.value > 0 or (condition.value == 0 and condition.op == ">")
        falls = condition.value < 0 or (condition.value == 0 and condition.op == "<")
        if condition.op in {">", ">="} and rises:
            return "+"
        if condition.op in {"<", "<="} and falls:
            return "-"
    return None


def _days_described(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """at least 4 limit-up days / more than 10 up days / 7 or more green days: cmp N (or N or more),
    the day's condition, then the word for days, or a move said with it (up days, red days): the
    days it held, counted."""
    count = _day_count(tokens, i)
    if count is None:
        return None
    op, number, j = count
    condition = _day_condition(model, tokens, j)
    if condition is None:
        return None
    days = kind_at(tokens, j + 1) == "tunit" and tokens[j + 1].value in {"day", "trading_day"}
    said_with_move = tokens[j].kind in MOVES and tokens[j].text.endswith(("day", "days"))
    if not (days or said_with_move):
        return None
    end = j + 1 + days
    return end - i, [synthetic("cond", Frequency(condition, op, number), tokens[i:end])]


def _day_count(tokens: list[Token], i: int) -> tuple[str, int, int] | None:
    """cmp N / N or more (N or fewer) at i → (operator, N, next index); N a plain whole number."""
    if kind_at(tokens, i) == "cmp" and tokens[i].value in COUNT_OPS:
        op, j = tokens[i].value, i + 1
        number = tokens[j] if kind_at(tokens, j) == "number" else None
    elif kind_at(tokens, i + 1) == "cmp" and tokens[i + 1].value in {">=", "<="}:
        op, j = tokens[i + 1].value, i
        number = tokens[j] if kind_at(tokens, j) == "number" else None
    else:
        return None
    if number is None or not is_plain_number(number) or not float(number.value).is_integer():
        return None
    return op, int(number.value), max(i + 2, j + 1)


def every_day(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """cond every day / 每天都 cond: on each trading day of the window (unless days are counted)."""
    if any(token.kind in {"count", "agg", "aggmetric", "share"} for token in tokens):
        return None  # 每天有多少只涨停: a count per day, grouped by the assembly
    if kind_at(tokens, i) == "per_day" and not _after_a_run_of_days(tokens, i):
        j = i + 1 + (kind_at(tokens, i + 1) == "quantifier")
        condition = _day_condition(model, tokens, j)
        if condition is not None:
            end = j + 1 + _is_all(tokens[j + 1]) if j + 1 < len(tokens) else j + 1  # 每天涨幅都超过2%
            return end - i, [synthetic("cond", Frequency(condition, "every"), tokens[i:end])]
    condition = _day_condition(model, tokens, i)
    if condition is not None and kind_at(tokens, i + 1) == "per_day":
        return 2, [synthetic("cond", Frequency(condition, "every"), tokens[i : i + 2])]
    window = tokens[i].value if kind_at(tokens, i) == "timespec" else None
    days = window is not None and window.label in {"recent_bars", "recent_days"}
    days = days and kind_at(tokens, i - 1) != "consecutive"  # 连续10个交易日…都: a run, read by sustained
    if days and _is_all(tokens[i + 1]) if i + 1 < len(tokens) else False:
        condition = _day_condition(model, tokens, i + 2)  # 最近10个交易日都站在20日均线上方
        if condition is not None:
            return 3, [tokens[i], synthetic("cond", Frequency(condition, "every"), tokens[i + 1 : i + 3])]
    if days and i + 2 < len(tokens) and _is_all(tokens[i + 2]):
        condition = _day_condition(model, tokens, i + 1)  # 近10日收盘价都在20日均线之上
        if condition is not None:
            return 3, [tokens[i], synthetic("cond", Frequency(condition, "every"), tokens[i + 1 : i + 3])]
    return None


def shown_day_counts(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """涨停次数 / 上涨天数 / number of limit-up days / 多少次涨停, with no count compared (counted_days read
    those): how many trading days of the window the day's condition held on, shown as a figure."""
    asked_first = kind_at(tokens, i) == "count" and tokens[i].text.lower() in HOW_MANY
    if asked_first and kind_at(tokens, i + 1) == "occurrence" and tokens[i + 1].text.lower() in EVENT_WORDS:
        # how many times did Wuliangye close limit up: the stock named between, kept as the scope
        named = kind_at(tokens, i + 2) == "cond" and tokens[i + 2].extra.get("scope")
        at = i + 2 + bool(named)
        condition = _day_condition(model, tokens, at)  # 出现了多少次涨停: the times asked before the event
        if condition is not None:
            counted = synthetic("count", None, tokens[i : at + 1], where=condition, days=True, events=True)
            return at + 1 - i, [*tokens[i + 2 : at], counted]
    if kind_at(tokens, i) == "count" and not tokens[i].extra:  # number of limit-up days
        condition = _day_condition(model, tokens, i + 1)
        days = kind_at(tokens, i + 2) == "tunit" and tokens[i + 2].value in {"day", "trading_day"}
        if condition is not None and days:
            return 3, [synthetic("count", None, tokens[i : i + 3], where=condition, days=True)]
        return None
    condition = _day_condition(model, tokens, i)
    asked = kind_at(tokens, i + 1) == "count" and tokens[i + 1].text in HOW_MANY  # 涨停多少次
    end = i + 1 + asked
    if condition is None or kind_at(tokens, end) != "occurrence":
        return None
    events = tokens[end].text in EVENT_WORDS  # 涨停次数 (times), not 上涨天数 (days)
    counted = synthetic("count", None, tokens[i : end + 1], where=condition, days=True, events=events)
    return end + 1 - i, [counted]


def _after_a_run_of_days(tokens: list[Token], i: int) -> bool:
    """连续3天每天…: the days are a run (连续 N天), which the sustained pass reads with the condition."""
    said_as_window = kind_at(tokens, i - 2) == "consecutive" and kind_at(tokens, i - 1) == "timespec"
    said_as_count = kind_at(tokens, i - 3) == "consecutive" and kind_at(tokens, i - 1) == "tunit"
    return said_as_window or said_as_count


def each_period(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """Years (A和B, A到B每年, every year from A through B) and a condition said of each of them:
    the condition held in each year; "rose every year from A to B", B − A rises in a row."""
    if kind_at(tokens, i) == "tunit":
        return None  # which years / 哪几年 before the years: the years asked as rows, not a run's word
    end = i
    while (
        kind_at(tokens, end) in PERIOD_RUN
        and end - i < LONGEST_PERIOD_RUN
        and not tokens[end].extra.get("scope")
    ):
        end += 1
    run = tokens[i:end]
    found = _years(run)
    if found is None:
        return None
    years, every = found
    every = every or any(_is_each_year(run, k) or _is_all(token) for k, token in enumerate(run))
    compares = [
        t.value for t in run if t.kind == "cond" and isinstance(t.value, Compare) and t.value.time is None
    ]
    moves = [t.kind for t in run if t.kind in MOVES]
    metrics = [t.value for t in run if t.kind == "metric" and model.metrics[t.value].kind == "report"]
    condition: Condition
    if (
        len(compares) == 1
        and not moves
        and not metrics
        and compares[0].metric in GROWTH_OF
        and compares[0].value == 0
    ):
        metrics, moves = [GROWTH_OF[compares[0].metric]], ["up" if compares[0].op == ">" else "down"]
        compares = []  # revenue rose (or_yoy > 0) every year from A through B: the figure itself
    if len(compares) == 1 and not moves and every:
        label = "annual" if model.metrics[compares[0].metric].kind == "report" else "year"
        condition = BoolOp("and", tuple(replace(compares[0], time=TimeSpec(label, year=y)) for y in years))
    elif not metrics and len(moves) == 1 and not compares and every:  # 每年都上涨: the gain of each year
        move = Compare("pct_chg", MOVES[moves[0]], 0.0, text="0")
        condition = BoolOp("and", tuple(replace(move, time=TimeSpec("year", year=y)) for y in years))
    elif len(metrics) == 1 and len(moves) == 1 and not compares and every and len(years) > 1:
        direction = "up" if moves[0] == "up" else "down"
        condition = GrowthStreak(
            metrics[0], years[-1] - years[0], direction, time=TimeSpec("annual", year=years[-1])
        )
    else:
        return None
    last = max(k for k, token in enumerate(run) if token.kind in {"cond", "up", "down", "metric", "timespec"})
    last += _is_all(run[last + 1]) if last + 1 < len(run) else 0
    return last + 1, [synthetic("cond", condition, run[: last + 1])]


def _is_each_year(run: list[Token], k: int) -> bool:
    """每年 / every year."""
    return (
        run[k].kind == "per"
        and k + 1 < len(run)
        and run[k + 1].kind == "tunit"
        and run[k + 1].value == "year"
    )


def _is_all(token: Token) -> bool:
    """都 / 均 after the condition: in each of the periods named."""
    return token.kind == "quantifier" and token.value == "all"


def _years(run: list[Token]) -> tuple[list[int], bool] | None:
    """year (和|到) year → the years named (every one between for 到), and whether the words already
    say "each" (A和B does; a range may be a total: 2022到2024年净利润)."""
    for k in range(len(run) - 2):
        first, second = _year_at(run, k), _year_at(run, k + 2)
        if first is None or second is None or run[k + 1].kind not in {"to", "and"} or second <= first:
            continue
        if run[k + 1].text in RANGE_WORDS:
            return list(range(first, second + 1)), False
        return [first, second], True
    return None


def _year_at(tokens: list[Token], i: int) -> int | None:
    if (
        kind_at(tokens, i) == "timespec"
        and tokens[i].value.label in {"year", "annual"}
        and tokens[i].value.year
    ):
        return int(tokens[i].value.year)  # a year named (年报 alone names none)
    return None


def _day_condition(model: SemanticModel, tokens: list[Token], i: int) -> Condition | None:
    """A condition a single day decides: 涨停 / limit down, closed up / down on the day, or a candle
    said in a word (收阳: close above open, a comparison within the day's row)."""
    kind = kind_at(tokens, i)
    if kind == "price_limit":
        return Technical(str(tokens[i].value), 1)
    if kind in MOVES:
        return Compare("pct_chg", MOVES[kind], 0.0, text="0")
    said = tokens[i].value if kind == "cond" else None
    return said if said is not None and decided_by_the_day(model, said) else None


def decided_by_the_day(model: SemanticModel, condition: Condition) -> bool:
    """A comparison of the day's own figures (收阳: close > open; 涨幅超过2%), a technical test on the
    bars ending the day (站上20日均线, 5日线上穿20日线), or an AND of them."""
    if isinstance(condition, BoolOp):
        return condition.op == "and" and all(decided_by_the_day(model, item) for item in condition.items)
    if isinstance(condition, Technical):
        return condition.kind in DAY_BY_DAY_TECHNICALS and condition.time is None
    if not isinstance(condition, Compare) or condition.time or condition.agg or condition.other_time:
        return False
    figures = [condition.metric] + ([condition.other] if condition.other else [])
    return all(figure in model.metrics and model.metrics[figure].kind == "daily" for figure in figures)


def _out_of_window(tokens: list[Token], i: int) -> tuple[str, int, TimeSpec, int] | None:
    """cmp N (of) the last M days → (operator, N, the window, next index); N must fit in it."""
    if kind_at(tokens, i) != "cmp" or tokens[i].value not in COUNT_OPS:
        return None
    if not is_plain_number(tokens[i + 1]) if i + 1 < len(tokens) else True:
        return None
    window = tokens[i + 2].value if kind_at(tokens, i + 2) == "timespec" else None
    if window is None or window.label not in {"recent_days", "recent_bars"} or not window.n:
        return None
    count = tokens[i + 1].value
    if not float(count).is_integer() or not 0 < count <= window.n:
        return None
    # the days counted are trading days, so are the days they are counted among
    return tokens[i].value, int(count), TimeSpec("recent_bars", n=window.n), i + 3


def _count(tokens: list[Token], i: int) -> tuple[str, int, int] | None:
    """cmp N次 / cmp twice / N次以上 / 次数 cmp N [次] → (operator, N, next index)."""
    j = i + (kind_at(tokens, i) == "occurrence")  # 跌停次数超过2次
    if kind_at(tokens, j) == "cmp" and tokens[j].value in COUNT_OPS:
        times = _times(tokens, j + 1)
        if times is not None:
            return tokens[j].value, times[0], times[1]
        return None
    times = _times(tokens, j)
    if times is not None and kind_at(tokens, times[1]) == "cmp" and tokens[times[1]].value in {">=", "<="}:
        return tokens[times[1]].value, times[0], times[1] + 1  # 两次以上
    said_between = kind_at(tokens, j + 1) == "cmp" and tokens[j + 1].value in {">=", "<="}
    times = _times([tokens[j], *tokens[j + 2 : j + 3]], 0) if said_between else None
    if times is not None and times[1] == 2:
        return tokens[j + 1].value, times[0], j + 3  # five or more times, on 3 or fewer days
    return None


def _times(tokens: list[Token], i: int) -> tuple[int, int] | None:
    """twice / once / N次 / N days / N times / N个 before a limit close → (N, next index)."""
    if kind_at(tokens, i) == "twice":
        return int(tokens[i].value), i + 1
    if kind_at(tokens, i) != "number" or not float(tokens[i].value).is_integer():
        return None
    days = kind_at(tokens, i + 1) == "tunit" and tokens[i + 1].value in {"day", "trading_day"}
    boards = kind_at(tokens, i + 1) == "count_unit" and tokens[i + 1].text == "个"
    boards = boards and i + 2 < len(tokens) and tokens[i + 2].text in BOARD_EVENTS
    boards = boards and not any(token.kind in {"dim", "groupby"} for token in tokens)
    if (kind_at(tokens, i + 1) == "occurrence" or days or boards) and is_plain_number(tokens[i]):
        return int(tokens[i].value), i + 2  # 两次 / 6天 / on 6 days / 3个涨停板
    if tokens[i].extra.get("unit") == "times" and tokens[i].text.endswith("times"):
        # 3 times; never 3x / 3倍, a multiple (涨了5倍 is a gain, not five up days)
        return int(tokens[i].value), i + 1
    return None


def never_on_any_day(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """never fell more than 2% [on any day] / did not close limit-down on any day [in the last 20
    trading days]: on every day of the window the day's condition did not hold (a bar each day)."""
    never = kind_at(tokens, i) == "never"
    denied = kind_at(tokens, i) == "not" and kind_at(tokens, i + 2) == "any"  # not … on any day
    if not (never or denied):
        return None
    condition = _day_condition(model, tokens, i + 1)
    if condition is None:
        return None
    end = i + 2 + (kind_at(tokens, i + 2) == "any")
    return end - i, [synthetic("cond", Frequency(Not(condition), "every"), tokens[i:end])]
