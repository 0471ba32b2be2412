"""Technical conditions on the bars: moving averages and their crosses, N-day highs/lows, volume surges."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from backend.domain.language.ir import BoolOp, Compare, Condition, Technical
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

PRICE_MOVE_METRICS = {"close", "pct_chg"}  # a technical phrase may start with the price it is about
DEFAULT_SURGE_DAYS = 5
DEFAULT_SURGE_FACTOR = 2.0
CROSS_KINDS = {"cross_above": "ma_golden_cross", "cross_below": "ma_death_cross"}  # of two averages
MA_VERBS = {"cross_above": "ma_cross_above", "cross_below": "ma_cross_below", "stand_above": "ma_above"}


STACK_SIDES = {"ma_bull_stack": "ma_over_ma", "ma_bear_stack": "ma_under_ma"}  # each average vs the next
UNFILLED_GAPS = {"gap_up": "gap_up_unfilled", "gap_down": "gap_down_unfilled"}
AND_WORDS = {"and", "和", "与"}  # read as `to` by the lexicon (A and B), here joining two conditions
FLIPPED_OPS = {">": "<", ">=": "<=", "<": ">", "<=": ">="}  # fell by more than 2%: below −2
LOWER_SIDES = {"<", "<="}


def gap_details(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """What is said of a gap: 跳空高开且缺口未回补 / gapped up and never filled the gap (the whole bar
    beyond the previous one); gapped up more than 3% (the open that far from the previous close)."""
    gap = tokens[i].value if tokens[i].kind == "cond" else None
    if isinstance(gap, Technical) and gap.kind in UNFILLED_GAPS.values():
        # 向上跳空缺口未回补: a window is a gap left open already; 缺口未回补 restates it
        restated = kind_at(tokens, i + 1) == "gap_unfilled"
        return (2, [synthetic("cond", gap, tokens[i : i + 2])]) if restated else None
    if not isinstance(gap, Technical) or gap.kind not in UNFILLED_GAPS:
        return None
    sized = _gap_size(tokens, i + 1, upward=gap.kind == "gap_up")
    if sized is not None:
        size, end = sized
        return end - i, [synthetic("cond", size, tokens[i:end])]
    j = i + 1
    said_when = [token for token in tokens[j : j + 1] if token.kind == "time"]  # gapped up today and…
    j += len(said_when)
    j += kind_at(tokens, j) == "and" or (kind_at(tokens, j) == "to" and tokens[j].text in AND_WORDS)
    if kind_at(tokens, j) != "gap_unfilled":
        return None
    unfilled = Technical(UNFILLED_GAPS[gap.kind], gap.n, time=gap.time)
    return j + 1 - i, [synthetic("cond", unfilled, tokens[i : j + 1]), *said_when]


def _gap_size(tokens: list[Token], j: int, *, upward: bool) -> tuple[Compare, int] | None:
    """[by] cmp N% after a gap: the opening change against the previous close (open_pct), signed."""
    j += kind_at(tokens, j) == "per" and tokens[j].text == "by"  # gapped up by more than 5%
    if kind_at(tokens, j) != "cmp" or tokens[j].value not in FLIPPED_OPS:
        return None
    if kind_at(tokens, j + 1) != "number":
        return None
    size = tokens[j + 1]
    if size.extra.get("unit") != "percent":
        return None
    if upward:
        return Compare("open_pct", tokens[j].value, float(size.value), text=size.text), j + 2
    return Compare("open_pct", FLIPPED_OPS[tokens[j].value], -float(size.value), text=size.text), j + 2


def ma_cross_ma(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """5日均线上穿20日均线 / the 10-day moving average crossed below the 30-day moving average; where
    one average stands against the other on the day: 20日线在60日线上方 / MA5 above MA20."""
    pair = _pair_crossed(tokens, i)
    if pair is not None:
        return pair
    short = moving_average_window(tokens, i)
    if short is None:
        return None
    short_n, j = short
    if kind_at(tokens, j) == "only" and tokens[j].text == "just":  # just crossed: today, as any cross
        j += 1
    kind = _ma_relation(tokens[j]) if j < len(tokens) else None
    if kind is None:
        return None
    long = moving_average_window(tokens, j + 1)
    if long is None:  # crossed above the 20-day: the other average, its kind said once
        long = _bare_window(tokens, j + 1)
    if long is None:
        return None
    long_n, end = long
    if kind in {"position", "ma_over_ma"} and kind_at(tokens, end) in {"above_pos", "below_pos"}:
        kind = "ma_over_ma" if tokens[end].kind == "above_pos" else "ma_under_ma"  # 在60日线上方
        end += 1
    if kind == "position":  # 在60日线 without a side says nothing
        return None
    pairs = [Technical(kind, short_n, float(long_n))]
    while kind in {"ma_over_ma", "ma_under_ma"} and kind_at(tokens, end) == "cmp":
        # 5日均线>10日均线>20日均线: each average against the next one, never the price against the last
        if _ma_relation(tokens[end]) != kind:
            break
        further = moving_average_window(tokens, end + 1)
        if further is None:
            break
        pairs.append(Technical(kind, long_n, float(further[0])))
        long_n, end = further
    if kind in CROSS_KINDS.values() and end < len(tokens) and _ma_relation(tokens[end]) == kind:
        end += 1  # 5日线上穿20日线金叉: the cross named again
    condition = pairs[0] if len(pairs) == 1 else BoolOp("and", tuple(pairs))
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def _pair_crossed(tokens: list[Token], i: int) -> Match | None:
    """5日线和20日线金叉 / the 5-day and 20-day moving averages formed a death cross: two averages named
    together, then their cross — the shorter one crossing the longer one."""
    first = moving_average_window(tokens, i) or _bare_window(tokens, i)  # 5日和20日均线: said once
    if first is None:
        return None
    j = first[1]
    if not (kind_at(tokens, j) == "and" or (kind_at(tokens, j) == "to" and tokens[j].text in AND_WORDS)):
        return None
    second = moving_average_window(tokens, j + 1)
    if second is None or kind_at(tokens, second[1]) not in CROSS_KINDS:
        return None
    end = second[1]
    short_n, long_n = sorted((first[0], second[0]))
    if short_n == long_n:
        return None
    cross = Technical(CROSS_KINDS[tokens[end].kind], short_n, float(long_n))
    return end + 1 - i, [synthetic("cond", cross, tokens[i : end + 1])]


def _bare_window(tokens: list[Token], j: int) -> tuple[int, int] | None:
    """`N日` / `the 20-day` with its unit (a plain number after a comparison is a count or a value,
    never an average: above the 20-day MA on at least 6 of the last 10 days)."""
    length = _window_length(tokens, j)
    if length is None or (length[1] == 1 and tokens[j].kind != "ma_n"):
        return None
    return length[0], j + length[1]


def listed_stack(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """The averages of a stack said with it: 5日、10日、20日均线多头排列 / a bullish moving-average stack
    (5-day above 10-day above 20-day above 60-day) → each listed average above (below) the next."""
    stack = tokens[i].value if tokens[i].kind == "cond" else None
    if isinstance(stack, Technical) and stack.kind in STACK_SIDES:  # the averages after the stack
        j = i + 1
        said_when = [token for token in tokens[j : j + 1] if token.kind == "time"]
        j += len(said_when)
        listed = _window_list(tokens, j)
        if listed is None:
            return None
        windows, end = listed
        return end - i, [synthetic("cond", _stack_of(stack, windows), tokens[i:end]), *said_when]
    listed = _window_list(tokens, i)  # the averages before it
    if listed is None:
        return None
    windows, end = listed
    stack = tokens[end].value if kind_at(tokens, end) == "cond" else None
    if not isinstance(stack, Technical) or stack.kind not in STACK_SIDES:
        return None
    return end + 1 - i, [synthetic("cond", _stack_of(stack, windows), tokens[i : end + 1])]


def _stack_of(stack: Technical, windows: list[int]) -> Condition:
    side = STACK_SIDES[stack.kind]
    pairs = [
        Technical(side, short, float(long), time=stack.time) for short, long in pairwise(sorted(windows))
    ]
    return BoolOp("and", tuple(pairs))


def _window_list(tokens: list[Token], j: int) -> tuple[list[int], int] | None:
    """N日、M日、K日均线 / 5-day above 10-day above 20-day: two or more window lengths in a row."""
    windows: list[int] = []
    while True:
        length = _window_length(tokens, j)
        if length is None:
            break
        windows.append(length[0])
        j += length[1]
        j += kind_at(tokens, j) == "ma"
        separator = kind_at(tokens, j) == "and" or (
            kind_at(tokens, j) == "cmp" and tokens[j].value in {">", "<"}
        )
        if not separator or _window_length(tokens, j + 1) is None:
            break
        j += 1
    return (windows, j) if len(windows) > 1 else None


def _ma_relation(verb: Token) -> str | None:
    """What a word between two moving averages says: a cross, or where the first one stands."""
    if verb.kind in CROSS_KINDS:
        return CROSS_KINDS[verb.kind]
    if verb.kind == "cmp" and verb.value in {">", ">=", "<", "<="}:
        return "ma_over_ma" if ">" in verb.value else "ma_under_ma"
    if verb.kind == "stand_above":  # 站上 / 位于: above unless a side follows
        return "ma_over_ma"
    if verb.kind == "between":  # 在60日线上方: the side comes after the other average
        return "position"
    return None


def moving_average(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """站上20日均线 / 收盘价突破60日均线 / 在60日均线上方 / closed below the 50-day moving average."""
    if kind_at(tokens, i - 1) == "metric" and tokens[i - 1].value not in PRICE_MOVE_METRICS:
        return None  # volume above its 20-day average: the average of that figure (volume_surge)
    start = i
    i = _after_price_metric(tokens, i)
    said_all = i > start and kind_at(tokens, i) == "quantifier" and tokens[i].value == "all"
    every = [tokens[i]] if said_all else []
    i += len(every)  # 收盘价都在60日均线之上: 都 is about the days, kept for the passes that read them
    verb = tokens[i] if i < len(tokens) else None
    if verb is None:
        return None
    kind = MA_VERBS.get(verb.kind)
    if kind is None and verb.kind == "cmp" and verb.value in {">", ">=", "<", "<="}:
        kind = "ma_above" if ">" in verb.value else "ma_below"
    if kind is None and verb.kind == "between":  # 在60日均线上方: the side comes after the average
        kind = "position"
    if kind is None:
        return None
    if kind in {"ma_above", "ma_below"}:
        listed = _listed_averages(tokens, i + 1)
        if listed is not None:  # above both the 20-day and 60-day MA: above each one
            lengths, j = listed
            both = BoolOp("and", tuple(Technical(kind, n) for n in lengths))
            return j - start, [synthetic("cond", both, tokens[start:j])]
    window = moving_average_window(tokens, i + 1)
    if window is None:
        return None
    n, j = window
    if kind == "position":
        if kind_at(tokens, j) not in {"above_pos", "below_pos"}:
            return None
        kind = "ma_above" if tokens[j].kind == "above_pos" else "ma_below"
        j += 1
    elif kind_at(tokens, j) in {"above_pos", "below_pos"}:
        j += 1
    said = [token for token in tokens[start:j] if token not in every]
    return j - start, [synthetic("cond", Technical(kind, n), said), *every]


# where a price (or a short average) stands against a moving average on the day: above or below
SIDE_OF = {
    "ma_above": ("above", "price"), "ma_cross_above": ("above", "price"),
    "ma_below": ("below", "price"), "ma_cross_below": ("below", "price"),
    "ma_over_ma": ("above", "average"), "ma_golden_cross": ("above", "average"),
    "ma_under_ma": ("below", "average"), "ma_death_cross": ("below", "average"),
}  # fmt: skip
CROSSING = {
    ("above", "price"): "ma_cross_above", ("below", "price"): "ma_cross_below",
    ("above", "average"): "ma_golden_cross", ("below", "average"): "ma_death_cross",
}  # fmt: skip


def crossing_after(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """fell below its 5-day MA today after being above it yesterday / closed above the 20-day MA after
    closing below it the day before: a side of the average now, the other side on the bar before, is
    a crossing (a restated one, or a position that becomes one)."""
    now = tokens[i].value if tokens[i].kind == "cond" else None
    if not isinstance(now, Technical) or now.kind not in SIDE_OF:
        return None
    j = i + 1
    said_when = [token for token in tokens[j : j + 1] if token.kind == "time" and token.value == "latest"]
    j += len(said_when)
    if kind_at(tokens, j) != "after":
        return None
    j += 1
    j += kind_at(tokens, j) == "metric" and tokens[j].value in PRICE_MOVE_METRICS  # after closing below it
    before = _side(tokens, j)
    if before is None:
        return None
    j += 1
    if kind_at(tokens, j) == "time" and tokens[j].value == "yesterday":
        j += 1
    side, subject = SIDE_OF[now.kind]
    if before == side:  # above today after being above yesterday: no crossing, and not ours to read
        return None
    crossing = replace(now, kind=CROSSING[side, subject])
    return j - i, [synthetic("cond", crossing, tokens[i:j]), *said_when]


def _side(tokens: list[Token], j: int) -> str | None:
    """above / below (its moving average, said before): the side a word names."""
    token = tokens[j] if j < len(tokens) else None
    if token is None:
        return None
    if token.kind == "cmp" and token.value in {">", ">=", "<", "<="}:
        return "above" if ">" in token.value else "below"
    if token.kind in {"above_pos", "below_pos"}:
        return "above" if token.kind == "above_pos" else "below"
    return None


def named_moving_average(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """年线 / 半年线 / 季线: the 250-, 120- and 60-day moving averages, read as N日线 is."""
    token = tokens[i]
    if token.kind != "named_ma":
        return None
    span = Token("number", float(token.value), token.text, token.start)
    return 1, [span, Token("ma", "ma", token.text, token.start)]


# commas between the items of a list said before its last "and" (the 5, 10 and 20 day averages)
LIST_COMMAS = {",", "，", "、"}
# a year of bars is 250 trading days, however the year is said: 52 weeks and 12 months are one too
TRADING_DAYS_PER_YEAR = 250
WHOLE_YEAR = {"week": 52, "month": 12}
# the day's measures whose own N-day high / low a test reads: metric → the test's prefix; the
# turnover rate (daily_basic) has no all-time test (创历史新高 after it stays unread)
BAR_MEASURES = {"vol": "volume", "amount": "amount", "turnover_rate": "turnover"}
WINDOW_ONLY_MEASURES = {"turnover_rate"}


def new_high_low(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """创60日新高 / hit a 52-week low / made a new 20-day closing high; 成交量创60日新高 / 成交额创120日新高:
    the volume's (traded value's, turnover rate's) own N-day high (volume_n_day_high, amount_n_day_high,
    turnover_n_day_high: names whose turnover rate is at a 60-session high), never the close's."""
    if kind_at(tokens, i) == "metric" and tokens[i].value in BAR_MEASURES:
        # a count said between (成交量至少3次创20日新高) stays before the test, for counted_days
        counted = kind_at(tokens, i + 1) == "cmp" and kind_at(tokens, i + 2) == "number"
        counted = counted and kind_at(tokens, i + 3) == "occurrence"
        start = i + 4 if counted else i + 1
        found = _high_or_low(tokens, start)
        if found is None:
            return None
        end, kind, n = found
        if tokens[i].value in WINDOW_ONLY_MEASURES and not n:
            return None
        measured = Technical(f"{BAR_MEASURES[tokens[i].value]}_{kind}", n)
        test = synthetic("cond", measured, [tokens[i], *tokens[start:end]])
        return end - i, [*tokens[i + 1 : start], test]
    if kind_at(tokens, i - 1) == "metric" and tokens[i - 1].value not in PRICE_MOVE_METRICS:
        return None  # 换手率创60日新高: the high of a measure no test reads (left unread, refused)
    found = _high_or_low(tokens, _after_price_metric(tokens, i))
    if found is None:
        return None
    end, kind, n = found
    return end - i, [synthetic("cond", Technical(kind, n), tokens[i:end])]


def highest_of_window(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """volume today was the highest of the last 120 trading days / close today is the lowest in 60 days:
    the day's own figure against its last N bars, as an N-day high (low). Only with the day said before
    the superlative, or right after the window (closed at their lowest level in 120 sessions today):
    without it (whose volume is the highest in 120 sessions) the words rank stocks."""
    if kind_at(tokens, i) != "metric":
        return None
    measure = tokens[i].value
    if measure != "close" and measure not in BAR_MEASURES:
        return None
    if kind_at(tokens, i + 1) == "cmp" and tokens[i + 1].value == "=":
        return _is_window_extreme(tokens, i, measure)
    day_first = kind_at(tokens, i + 1) == "time"
    said = i + 2 if day_first else i + 1  # the superlative
    if kind_at(tokens, said) != "super":
        return None
    j = said + 1 + (kind_at(tokens, said + 1) == "recent")
    length = _window_length(tokens, j)
    if length is None:
        return None
    n, used = length
    end = j + used
    day = i + 1 if day_first else end
    if kind_at(tokens, day) != "time" or tokens[day].value != "latest":
        return None  # another day's own high is not what n_day_high tests
    side = "n_day_high" if tokens[said].value == "desc" else "n_day_low"
    kind = side if measure == "close" else f"{BAR_MEASURES[measure]}_{side}"
    test = synthetic("cond", Technical(kind, n), [tokens[i], *tokens[said:end]])
    return end + (not day_first) - i, [tokens[day], test]


def _is_window_extreme(tokens: list[Token], i: int, measure: str) -> Match | None:
    """收盘价是20日最高 / 成交量是60日最低: the figure said to BE its own N-day extreme (the window before
    the superlative, as 20日新高 says it) is that test on the question's day, never a ranking."""
    length = _window_length(tokens, i + 2)
    if length is None:
        return None
    n, used = length
    said = i + 2 + used
    if kind_at(tokens, said) != "super":
        return None
    side = "n_day_high" if tokens[said].value == "desc" else "n_day_low"
    kind = side if measure == "close" else f"{BAR_MEASURES[measure]}_{side}"
    return said + 1 - i, [synthetic("cond", Technical(kind, n), tokens[i : said + 1])]


def _high_or_low(tokens: list[Token], i: int) -> tuple[int, str, int] | None:
    """[近] N日 [收盘] 新高/新低 from `i`: (where it ends, n_day_high or n_day_low, N); 历史新高 / an
    all-time high: all_time_high (low) over all the stock's bars, N 0."""
    if kind_at(tokens, i) == "recent":
        i += 1
    if kind_at(tokens, i) == "all_time":
        n, used, prefix = 0, 1, "all_time"
    else:
        length = _window_length(tokens, i)
        if length is None:
            return None
        (n, used), prefix = length, "n_day"
    j = i + used
    if kind_at(tokens, j) == "metric" and tokens[j].value == "close":  # a new 20-day closing high
        j += 1
    if kind_at(tokens, j) not in {"new_high", "new_low"}:
        return None
    return j + 1, f"{prefix}_high" if tokens[j].kind == "new_high" else f"{prefix}_low", n


def names_volume(token: Token) -> bool:
    """放量 / 缩量 / volume shrinking: a volume word that says its metric itself."""
    return token.kind in {"surge", "shrink"} and ("量" in token.text or "volume" in token.text)


def volume_surge(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """放量 / 缩量 / 成交量是5日均量的2倍 / volume today is more than twice its 20-day average / volume
    below half its 20-day average: the day's volume against the mean of the N bars before it, at least
    k times it (放量) or, when a lower side is said, below it (缩量: below the average itself)."""
    token = tokens[i]
    if token.kind == "surge" or (token.kind == "shrink" and names_volume(token)):
        surged = token.kind == "surge"
        n, multiple, end = _surge_details(tokens, i + 1, DEFAULT_SURGE_FACTOR if surged else 1.0)
        sides = {">", ">="} if surged else LOWER_SIDES
        said_side = kind_at(tokens, end) == "cmp" and tokens[end].value in sides
        # 放量3倍以上 / 缩量一半以下: the side of the multiple said again (never before a number: a count)
        end += said_side and _is_times_number(tokens, end - 1) and kind_at(tokens, end + 1) != "number"
        technical = Technical("volume_surge", n, multiple, op=None if surged else "<")
        return end - i, [synthetic("cond", technical, tokens[i:end])]
    if token.kind == "metric" and token.value == "vol":
        j = i + 1
    elif _volume_implied(tokens, i):
        j = i
    else:
        return None
    said_from = j
    while kind_at(tokens, j) in {"time", "cmp", "between", "than"}:  # "volume today is more than", 比
        j += 1
    sides = {tokens[k].value for k in range(said_from, j) if tokens[k].kind == "cmp"}
    factor = _multiple(tokens, j)
    if factor is not None:
        j += 1
    if kind_at(tokens, j) in {"top", "recent", "before"}:  # 前5日均量
        j += 1
    length = _window_length(tokens, j)
    if length is not None:
        n, used = length
        j += used
        if kind_at(tokens, j) in {"avg_volume", "ma"}:  # its 20-day average (of the volume named)
            j += 1
        elif kind_at(tokens, j) == "agg" and tokens[j].value == "avg":
            j += 1
            if kind_at(tokens, j) == "metric" and tokens[j].value == "vol":
                j += 1
        else:
            return None
    elif kind_at(tokens, j) in {"avg_volume", "agg"} and (
        tokens[j].kind == "avg_volume" or tokens[j].value == "avg"
    ):
        # "their average volume of the previous 20 days"
        j += 1
        if kind_at(tokens, j) == "metric" and tokens[j].value == "vol":
            j += 1
        if kind_at(tokens, j) in {"recent", "top", "before"}:
            j += 1
        length = _window_length(tokens, j)
        if length is None:
            return None
        n, used = length
        j += used
    else:
        return None
    if factor is None:
        # 比前5天平均放大3倍: the multiple said after the verb of growing
        j += kind_at(tokens, j) == "surge" and _multiple(tokens, j + 1) is not None
        factor = _multiple(tokens, j)
        if factor is not None:
            j += 1
        else:
            factor = 1.0
    if kind_at(tokens, j) == "cmp" and kind_at(tokens, j + 1) != "number":
        sides.add(tokens[j].value)  # 2倍以上; "at least 6 of the last 10 days" is a count of days
        j += 1
    if kind_at(tokens, j) == "surge":
        j += 1
    below = sides & LOWER_SIDES
    if below and (len(sides) > 1 or sides - below):
        return None  # two sides said of one average: left to refuse
    op = below.pop() if below else None  # the upper side stays the surge's own test (>=)
    return j - i, [synthetic("cond", Technical("volume_surge", n, factor, op=op), tokens[i:j])]


def _volume_implied(tokens: list[Token], i: int) -> bool:
    """[trading / on] more than 5x their 20-day average volume: a multiple of the N-day average volume
    with no measure said before it compares the day's volume (the average names what it is of). After
    another measure (turnover more than twice the 20-day average volume) it is left to refuse."""
    if tokens[i].kind != "cmp" or kind_at(tokens, i - 1) in {"metric", "aggmetric", "change_word"}:
        return False
    if _multiple(tokens, i + 1) is None:
        return False
    length = _window_length(tokens, i + 2)
    if length is not None:
        return kind_at(tokens, i + 2 + length[1]) == "avg_volume"
    # their average volume of the previous 5 sessions: the window said after the average
    if kind_at(tokens, i + 2) != "avg_volume":
        return False
    j = i + 3 + (kind_at(tokens, i + 3) in {"recent", "top", "before"})
    return _window_length(tokens, j) is not None


def _window_length(tokens: list[Token], j: int) -> tuple[int, int] | None:
    """`N [日|天|周|交易日]` at j → (bars, tokens used)."""
    if kind_at(tokens, j) == "ma_n":
        return tokens[j].value, 1
    if kind_at(tokens, j) != "number" or not is_plain_number(tokens[j]) or tokens[j].value < 1:
        return None
    n = int(tokens[j].value)
    if kind_at(tokens, j + 1) == "tunit":
        unit = tokens[j + 1].value
        if unit == "year":  # 创近一年新高: a year of bars, as 250日 says it
            return n * TRADING_DAYS_PER_YEAR, 2
        if unit == "week":
            return bars_in_weeks(n), 2
        if unit in WHOLE_YEAR and n % WHOLE_YEAR[unit] == 0:  # 12个月新低: a year of bars
            return n // WHOLE_YEAR[unit] * TRADING_DAYS_PER_YEAR, 2
        if unit == "month":
            return n * 21, 2
        if unit in {"day", "trading_day"}:
            return n, 2
        return None
    return n, 1


def bars_in_weeks(n: int) -> int:
    """N weeks in bars: 5 a week, but whole years as a year of bars (a 52-week low: 250 bars)."""
    weeks_a_year = WHOLE_YEAR["week"]
    return n // weeks_a_year * TRADING_DAYS_PER_YEAR if n % weeks_a_year == 0 else n * 5


def _listed_averages(tokens: list[Token], j: int) -> tuple[list[int], int] | None:
    """[both] the 20-day and 60-day MA / 20日和60日均线 / the 20-day MA and the 60-day MA / the 5, 10 and
    20 day moving averages at j: averages listed (commas, then "and"), the last one's 均线 / MA word
    shared by those before it when unsaid → (their bars, end)."""
    j += kind_at(tokens, j) == "quantifier" and tokens[j].value == "all"  # both
    lengths: list[int] = []
    while True:
        length = _window_length(tokens, j)
        if length is None:
            return None
        lengths.append(length[0])
        j += length[1]
        j += kind_at(tokens, j) == "ma"
        if kind_at(tokens, j) != "and" or tokens[j].text not in LIST_COMMAS:
            break
        j += 1
    joined = kind_at(tokens, j) == "and" or (kind_at(tokens, j) == "to" and tokens[j].text in AND_WORDS)
    last = moving_average_window(tokens, j + 1) if joined else None
    if last is None:
        return None
    return [*lengths, last[0]], last[1]


def ma_turning(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """60日线拐头向上 / the 20-day moving average is turning down: the average on the day above (below)
    the same average on the bar before (ma_rising / ma_falling); the price is not compared."""
    window = moving_average_window(tokens, i)
    if window is None or kind_at(tokens, window[1]) != "ma_turn":
        return None
    n, end = window
    kind = "ma_rising" if tokens[end].value == "up" else "ma_falling"
    return end + 1 - i, [synthetic("cond", Technical(kind, n), tokens[i : end + 1])]


def moving_average_window(tokens: list[Token], j: int) -> tuple[int, int] | None:
    """`N日均线` or `MA20` at j → (bars, index after the phrase)."""
    length = _window_length(tokens, j)
    if length is None:
        return None
    n, used = length
    end = j + used
    if tokens[end - 1].kind != "ma_n":  # MA20 names the average itself; "20日" needs 均线 after it
        if kind_at(tokens, end) != "ma":
            return None
        end += 1
    return n, end


def _after_price_metric(tokens: list[Token], i: int) -> int:
    """Skip a leading 收盘价 / 股价 (the price a technical phrase is about)."""
    if kind_at(tokens, i) == "metric" and tokens[i].value in PRICE_MOVE_METRICS:
        return i + 1
    return i


def _is_times_number(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "number" and tokens[j].extra.get("unit") == "times"


def _multiple(tokens: list[Token], j: int) -> float | None:
    """A multiple: 2倍, 3 times, twice, half of."""
    if kind_at(tokens, j) in {"twice", "fraction"}:
        return float(tokens[j].value)
    if _is_times_number(tokens, j):
        return float(tokens[j].value)
    return None


def _surge_details(tokens: list[Token], j: int, factor: float) -> tuple[int, float, int]:
    """After 放量 / 缩量: optional "N日均量的k倍" → (days averaged, multiple, index after the phrase)."""
    n = DEFAULT_SURGE_DAYS
    length = _window_length(tokens, j)
    if length is not None and kind_at(tokens, j + length[1]) == "avg_volume":
        n = length[0]
        j += length[1] + 1
        if _is_times_number(tokens, j):
            factor = tokens[j].value
            j += 1
    elif _is_times_number(tokens, j):
        factor = tokens[j].value
        j += 1
    return n, factor, j
