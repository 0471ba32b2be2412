"""A percent distance from a stock's own level: within 5% of its 52-week high, at least 20% above its
200-day MA, more than 50% above its 52-week low, 距离60日最高价不到5%, 高于200日均线20%以上.

One concept, composed: a reference level of the stock's own (the highest or lowest value of a window,
or its N-day moving average) × a side (above, below, or either for "within") × a comparison with a
percent. The high and the low are window measures of the last close (`drawdown`: % below the
window's highest value; `rebound`: % above its lowest); the moving average is a technical test over
the stock's own last N bars (`ma_gap`: % the close is above its MA, negative below). Runs before
the passes that read a bare "52-week high" or "above the 200-day MA" as conditions of their own.
"""

from __future__ import annotations

from typing import NamedTuple

from backend.domain.language.ir import BoolOp, Compare, Condition, Technical, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, synthetic
from backend.domain.language.parser.technical import TRADING_DAYS_PER_YEAR, moving_average_window
from backend.domain.language.semantic import SemanticModel

FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">="}
# a window said with a reference level: N trading days (60日, 250-day), or calendar weeks, months, years
WINDOW_UNITS = {"day": ("recent_bars", 1), "trading_day": ("recent_bars", 1), "week": ("recent_weeks", 1),
                "month": ("recent_months", 1), "year": ("recent_months", 12)}  # fmt: skip
EXTREME_WORDS = {"new_high": "high", "new_low": "low"}
SIDE_WORDS = {"up": "above", "down": "below", "drawdown": "below"}  # 较…下跌 / 回撤 / 反弹上涨


class Level(NamedTuple):
    kind: str  # high, low or ma
    metric: str  # the value whose extreme is meant (high, low, close); close for an MA
    window: TimeSpec | None  # the window of a high or low
    n: int  # an MA's bars, or an N-day closing high's (low's); 0 for a window's extreme
    end: int  # index after the phrase


def distance_from_level(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    read = _english(tokens, i) or _chinese(tokens, i)
    if read is None:
        return None
    condition, end = read
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def _english(tokens: list[Token], i: int) -> tuple[Condition, int] | None:
    """[down | up] [cmp] N% [or more] [above | below | off | from] [its] level: within 5% of its
    52-week high, down more than 30% from its 52-week high; a size with no comparison (30% off its
    high, up 50% from its low) is at least that far, as a move's size is."""
    j = i
    op = None
    moved = SIDE_WORDS.get(kind_at(tokens, j)) if kind_at(tokens, j) in {"up", "down"} else None
    j += moved is not None
    if kind_at(tokens, j) == "cmp":
        op, j = tokens[j].value, j + 1
    if not _is_percent(tokens, j):
        return None
    percent = tokens[j]
    j += 1
    if op is None and kind_at(tokens, j) == "cmp" and tokens[j].text in {"or more", "or above", "or higher"}:
        op, j = ">=", j + 1
    side = None
    if kind_at(tokens, j) == "cmp" and tokens[j].text in {"above", "below", "under", "beneath"}:
        side, j = ("above" if tokens[j].value == ">" else "below"), j + 1
    elif kind_at(tokens, j) == "distance":  # 30% off its high
        side, j = "below", j + 1
    elif moved is not None and kind_at(tokens, j) == "between" and tokens[j].text == "from":
        side, j = moved, j + 1  # down 30% from its 52-week high
    if moved is not None and side != moved:
        return None  # up 5% below its MA: no distance said
    op = op or (">=" if side is not None else None)
    level = _level(tokens, j)
    if op is None or level is None:
        return None
    condition = _distance(level, op, float(percent.value), side, percent.text)
    return (condition, level.end) if condition is not None else None


def _chinese(tokens: list[Token], i: int) -> tuple[Condition, int] | None:
    """[现价] 距离 level [下跌/上涨/回撤] cmp N% / 高于 level N% 以上 / 较 level 下跌超过 N%."""
    j = i
    side = None
    if kind_at(tokens, j) == "metric" and tokens[j].value == "close" and kind_at(tokens, j + 1) == "distance":
        j += 1  # 现价距离: the last close is what is measured
    if kind_at(tokens, j) == "distance":
        j += 1
    elif kind_at(tokens, j) == "cmp" and tokens[j].text in {"高于", "低于"}:
        side, j = ("above" if tokens[j].value == ">" else "below"), j + 1
    level = _level(tokens, j)
    if level is None or (j == i and kind_at(tokens, level.end) not in SIDE_WORDS):
        return None  # a level alone, with no word of distance, is read by other passes
    j = level.end
    if kind_at(tokens, j) in SIDE_WORDS:
        side, j = SIDE_WORDS[tokens[j].kind], j + 1
    if kind_at(tokens, j) == "cmp" and _is_percent(tokens, j + 1):  # 不到5% / 超过30%
        op, percent, end = tokens[j].value, tokens[j + 1], j + 2
    elif _is_percent(tokens, j) and kind_at(tokens, j + 1) == "cmp":  # 20%以上
        op, percent, end = tokens[j + 1].value, tokens[j], j + 2
    else:
        return None
    condition = _distance(level, op, float(percent.value), side, percent.text)
    return (condition, end) if condition is not None else None


def _distance(level: Level, op: str, percent: float, side: str | None, text: str) -> Condition | None:
    """The level's distance OP percent: below a high, above a low, either side of an MA; None for a
    side the level has none of (above its high)."""
    if op not in FLIPPED:
        return None
    if level.kind == "ma":
        if side is not None:  # at least 20% above (below: the gap is negative, the comparison turned)
            signed_op, signed = (op, percent) if side == "above" else (FLIPPED[op], -percent)
            return Technical("ma_gap", level.n, signed, op=signed_op)
        if op not in {"<", "<="}:
            return None  # within 3% of its MA: on either side, never further
        below = Technical("ma_gap", level.n, -percent, op=FLIPPED[op])
        return BoolOp("and", (below, Technical("ma_gap", level.n, percent, op=op)))
    beyond = "below" if level.kind == "high" else "above"
    if side not in {None, beyond}:
        return None
    if level.n:  # its 120-day closing high: the N-day high of its last N bars, as 创N日新高 reads it
        return Technical(f"n_day_{level.kind}_gap", level.n, percent, op=op)
    measure = "drawdown" if level.kind == "high" else "rebound"
    return Compare(level.metric, op, percent, agg=measure, time=level.window, text=text)


def _level(tokens: list[Token], j: int) -> Level | None:
    """A stock's own level at j: [its] N-day MA; [近] N-day/week high or low [closing]; 60日最高价 /
    最低价; 60日最高收盘价."""
    average = moving_average_window(tokens, j)
    if average is None and kind_at(tokens, j) == "recent":
        j += 1
    if average is not None:
        return Level("ma", "close", None, average[0], average[1])
    if kind_at(tokens, j) != "number" or not is_plain_number(tokens[j]) or kind_at(tokens, j + 1) != "tunit":
        return None
    label, per_unit = WINDOW_UNITS.get(str(tokens[j + 1].value), ("", 0))
    if not label:
        return None
    window = TimeSpec(label, n=per_unit * int(tokens[j].value))
    k = j + 2
    closing = kind_at(tokens, k) == "metric" and tokens[k].value == "close"  # 52-week closing high
    k += closing
    if kind_at(tokens, k) in EXTREME_WORDS:
        extreme = EXTREME_WORDS[tokens[k].kind]
        # an N-day closing high: the stock's N bars; a year's (250-day, as 52-week) stays the market's
        # last 250 days, a drawdown's window (README conventions: a distance from a 52-week high)
        if closing and window.label == "recent_bars" and window.n != TRADING_DAYS_PER_YEAR:
            return Level(extreme, "close", None, window.n or 0, k + 1)
        return Level(extreme, "close" if closing else extreme, window, 0, k + 1)
    if closing:
        return None
    if kind_at(tokens, k) == "metric" and tokens[k].value in {"high", "low"}:  # 60日最高价
        return Level(str(tokens[k].value), str(tokens[k].value), window, 0, k + 1)
    superlative = kind_at(tokens, k) == "super" and kind_at(tokens, k + 1) == "metric"
    if superlative and tokens[k + 1].value == "close":  # 60日最高收盘价
        return Level("high" if tokens[k].value == "desc" else "low", "close", window, 0, k + 2)
    return None


def _is_percent(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "number" and tokens[j].extra.get("unit") == "percent"
