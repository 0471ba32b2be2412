"""Streaks: 连续3天上涨, 成交量连续3天放大 (bars) and 净利润连续三年增长 (report figures); what each day
of a streak must also show (连续3天下跌且每天跌幅都超过2%, down 3 days straight, each day by more than 2%)."""

from __future__ import annotations

from backend.domain.language.ir import (
    BoolOp,
    Compare,
    Condition,
    GrowthStreak,
    Sustained,
    Technical,
    TimeSpec,
)
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, metric_of, synthetic
from backend.domain.language.parser.technical import FLIPPED_OPS, PRICE_MOVE_METRICS, names_volume
from backend.domain.language.semantic import SemanticModel

STREAK_WORDS = {"number", "tunit", "up", "down", "metric", "yoy", "consecutive", "surge", "shrink"}
LONGEST_STREAK_PHRASE = 7
REPORT_UNITS = {"year", "quarter"}
GROWTH_BASE = {"netprofit_yoy": "n_income_attr_p", "or_yoy": "revenue"}  # growth of → the figure itself


def streak(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    if tokens[i].kind == "recent":  # 最近3天成交量连续放大, 最近连续3天上涨: the run's days said twice
        found = streak(model, tokens, i + 1) if kind_at(tokens, i + 1) in {"number", "consecutive"} else None
        return (
            None
            if found is None
            else (found[0] + 1, [synthetic("cond", found[1][0].value, tokens[i : i + 1 + found[0]])])
        )
    if tokens[i].kind not in STREAK_WORDS:
        return None
    # the run must contain a `consecutive` word; find the maximal run starting at i
    end = i
    while end < len(tokens) and tokens[end].kind in STREAK_WORDS and end - i < LONGEST_STREAK_PHRASE:
        end += 1
    end = _before_volume_phrase(tokens, i, end)
    run = tokens[i:end]
    kinds = [token.kind for token in run]
    if "consecutive" not in kinds:
        return None
    volume = any((token.kind == "metric" and token.value == "vol") or names_volume(token) for token in run)
    directions = {"up", "down", "surge", "shrink"} if volume else {"up", "down"}  # 成交量连续3天放大
    direction_index = next((k for k, token in enumerate(run) if token.kind in directions), None)
    if direction_index is None:
        return None
    numbers = [k for k, token in enumerate(run) if token.kind == "number" and is_plain_number(token)]
    if not numbers:
        return None
    units = [k for k, token in enumerate(run) if token.kind == "tunit"]
    unit = run[units[0]].value if units else "day"
    unit = {"report": "quarter", "annual_reports": "year", "trading_day": "day"}.get(unit, unit)
    metrics = [k for k, token in enumerate(run) if token.kind == "metric"]
    last_needed = max([direction_index, numbers[0], kinds.index("consecutive"), *units[:1]])
    condition: Condition
    if unit in REPORT_UNITS:
        if not metrics:
            return None
        metric_index = metrics[0]
        metric = model.metrics[run[metric_index].value]
        if metric.kind != "report":
            return None
        last_needed = max(last_needed, metric_index)
        # 净利润同比连续增长 → grow the underlying figure, not the growth rate
        condition = GrowthStreak(
            metric=GROWTH_BASE.get(metric.key, metric.key),
            years=int(run[numbers[0]].value),
            direction="up" if run[direction_index].kind == "up" else "down",
            period="quarter" if unit == "quarter" else "year",
        )
    else:
        # a metric after the direction word belongs to the next phrase (连续3天上涨的股票中市盈率…) and is
        # left out of the run; one before it must be a price or the volume
        metric_before = metrics and metrics[0] < direction_index
        if metric_before and run[metrics[0]].value not in PRICE_MOVE_METRICS | {"vol"}:
            return None
        rising = run[direction_index].kind in {"up", "surge"}
        days = int(run[numbers[0]].value)
        volume_words = [k for k, token in enumerate(run) if names_volume(token)]
        prices = [k for k, token in enumerate(run) if token.kind in {"up", "down"}]
        if volume_words and prices and not metric_before:
            # 连续3天缩量下跌 / 3 straight down days on shrinking volume: the price AND the volume runs
            price = Technical("up_streak" if run[prices[0]].kind == "up" else "down_streak", days)
            moved = VOLUME_RUNS[run[volume_words[0]].kind]
            condition = BoolOp("and", (price, Technical(moved, days)))
            last_needed = max(last_needed, prices[0], volume_words[0])
        else:
            if volume:
                kind = "volume_up_streak" if rising else "volume_down_streak"
            else:
                kind = "up_streak" if rising else "down_streak"
            condition = Technical(kind, days)
    # a leading metric of another phrase must not be swallowed
    if (
        run[0].kind == "metric"
        and unit not in REPORT_UNITS
        and run[0].value not in PRICE_MOVE_METRICS | {"vol"}
    ):
        return None
    # English "up 3 days in a row": the direction word may come first
    used = last_needed + 1
    if kind_at(tokens, i + used) in {"cmp", "between"}:
        return None  # 连续三个报告期营收同比增长超过20%: a sustained comparison, not a streak
    return used, [synthetic("cond", condition, run[:used])]


def rising_together(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """最近3天量价齐升 / 连续3天量价齐升 / 量价齐升3天 / volume and price rising together for 3 sessions:
    the up streak AND the volume streak of those days (each day up, each day's volume above the day
    before's: N + 1 bars compared). Said with no days it is left to refuse."""
    if kind_at(tokens, i) == "rising_together":
        j = i + 1 + (kind_at(tokens, i + 1) in {"recent", "consecutive"})
        days = _days_said(tokens, j)
        if days is None:
            return None
        end = j + 2 + (kind_at(tokens, j + 2) == "consecutive")  # 3 sessions running
    else:
        j = i + (kind_at(tokens, i) in {"recent", "consecutive"})
        days = _days_said(tokens, j)
        if days is None or kind_at(tokens, j + 2) != "rising_together":
            return None
        end = j + 3
    together = BoolOp("and", (Technical("up_streak", days), Technical("volume_up_streak", days)))
    return end - i, [synthetic("cond", together, tokens[i:end])]


# the run ends on the day said after it (dropped five days running through yesterday)
THROUGH_WORDS = {"through", "until", "up to", "up until", "thru"}
DAY_KINDS = {"time", "timespec"}


def streak_through_day(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """dropped five days running through yesterday / 截至昨天连续5天下跌: a day's run that ends on the
    single day said with it — the run read on that day (its own day), the ending word dropped. A span
    said after it (through the 20th of last month and …) or no day is left to refuse."""
    if kind_at(tokens, i) == "as_of" and kind_at(tokens, i + 1) in DAY_KINDS and _is_run(tokens, i + 2):
        day, run = i + 1, i + 2
    elif _is_run(tokens, i) and kind_at(tokens, i + 1) == "to" and tokens[i + 1].text in THROUGH_WORDS:
        day, run = i + 2, i
        if kind_at(tokens, day) not in DAY_KINDS:
            return None
    else:
        return None
    said = tokens[day].value
    if isinstance(said, TimeSpec) and not said.is_single_day:
        return None
    return 3, [tokens[k] for k in sorted((run, day))]  # the day stays where it was said


def _is_run(tokens: list[Token], i: int) -> bool:
    return (
        kind_at(tokens, i) == "cond"
        and isinstance(tokens[i].value, Technical)
        and (tokens[i].value.kind in DAY_STREAKS)
    )


def _days_said(tokens: list[Token], j: int) -> int | None:
    """N 天 / N trading days at j: N."""
    if kind_at(tokens, j) != "number" or not is_plain_number(tokens[j]):
        return None
    if kind_at(tokens, j + 1) != "tunit" or tokens[j + 1].value not in {"day", "trading_day"}:
        return None
    return int(tokens[j].value)


def _before_volume_phrase(tokens: list[Token], i: int, end: int) -> int:
    """up 4 days in a row on rising volume: a price streak said whole before the volume's own phrase
    ends there (`streak_volume` reads the volume); the volume must never become the streak's subject."""
    said = [token.kind for token in tokens[i:end]]
    for k in range(i, end):
        if not _is_volume_word(tokens[k]):
            continue
        rising = tokens[k].kind == "metric" and k > i and tokens[k - 1].kind in {"up", "down"}
        start = k - 1 if rising else k  # rising volume (shrinking volume says its direction itself)
        before = said[: start - i]
        whole = "consecutive" in before and ("up" in before or "down" in before) and "number" in before
        return start if whole else end
    return end


def _is_volume_word(token: Token) -> bool:
    return (token.kind == "metric" and token.value == "vol") or names_volume(token)


DAY_STREAKS = {"up_streak": "up", "down_streak": "down", "volume_up_streak": "", "volume_down_streak": ""}


VOLUME_RUNS = {"surge": "volume_up_streak", "up": "volume_up_streak", "shrink": "volume_down_streak",
               "down": "volume_down_streak"}  # fmt: skip


def streak_volume(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """A price streak said with its volume: 3 straight down days on shrinking volume / up 4 days in a
    row with rising volume → the streak AND the volume falling (rising) on each of its days (the
    volume streak of the same length: N + 1 bars compared), never today's volume alone."""
    run = tokens[i].value if tokens[i].kind == "cond" else None
    if not isinstance(run, Technical) or run.kind not in {"up_streak", "down_streak"}:
        return None
    j = i + 1 + (kind_at(tokens, i + 1) == "and")
    word = tokens[j] if j < len(tokens) else None
    if word is not None and word.kind in {"surge", "shrink"} and names_volume(word):
        end = j + 1
    elif word is not None and word.kind in {"up", "down"} and kind_at(tokens, j + 1) == "metric":
        end = j + 2 if tokens[j + 1].value == "vol" else -1  # with rising volume
    elif (
        word is not None
        and word.kind == "metric"
        and word.value == "vol"
        and kind_at(tokens, j + 1) in VOLUME_RUNS
    ):
        word, end = tokens[j + 1], j + 2  # with volume rising (falling)
    else:
        return None
    if end < 0:
        return None
    end += kind_at(tokens, end) == "per_day"  # … every day: each day of the run, as the run says
    volume = Technical(VOLUME_RUNS[word.kind], run.n)
    return end - i, [synthetic("cond", BoolOp("and", (run, volume)), tokens[i:end])]


def streak_each_day(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """A streak and what each of its days also shows: 连续3天下跌且每天跌幅都超过2% / 成交量连续3天放大
    且每天都收涨 / down 3 days straight, each day by more than 2% → the streak AND the day's comparison
    on each of its trading days (Sustained over days)."""
    run = tokens[i].value if tokens[i].kind == "cond" else None
    if not isinstance(run, Technical) or run.kind not in DAY_STREAKS:
        return None
    j = i + 1 + (kind_at(tokens, i + 1) == "and")
    each = kind_at(tokens, j) == "per_day"
    j += each
    j += kind_at(tokens, j) == "quantifier" and tokens[j].value == "all"
    found = _day_compare(model, tokens, j, DAY_STREAKS[run.kind])
    if found is None:
        return None
    compare, end = found
    if not each and kind_at(tokens, end) == "per_day":  # losing at least 2% every day
        each, end = True, end + 1
    if not each:
        return None
    end += kind_at(tokens, end) == "quantifier" and tokens[end].value == "all"
    condition = BoolOp("and", (run, Sustained(compare, run.n, "day")))
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def _day_compare(
    model: SemanticModel, tokens: list[Token], j: int, direction: str
) -> tuple[Compare, int] | None:
    """What a day shows: a comparison of a daily figure (跌幅超过2%), a move (收涨), or by how much the
    streak's own move went (by more than 2%) → (comparison, index after it)."""
    token = tokens[j] if j < len(tokens) else None
    if token is None:
        return None
    if token.kind == "cond" and isinstance(token.value, Compare):
        compare = token.value
        daily = compare.metric in model.metrics and model.metrics[compare.metric].kind == "daily"
        plain = compare.time is None and compare.agg is None and compare.other_time is None
        return (compare, j + 1) if daily and plain else None
    if token.kind in {"up", "down"}:
        direction, j = token.kind, j + 1
    j += kind_at(tokens, j) == "per"  # by
    if kind_at(tokens, j) != "cmp" or tokens[j].value not in {">", ">=", "<", "<="}:
        if direction and j > 0 and tokens[j - 1].kind in {"up", "down"}:
            return Compare("pct_chg", ">" if direction == "up" else "<", 0.0, text="0"), j  # 收涨
        return None
    number = tokens[j + 1] if kind_at(tokens, j + 1) == "number" else None
    if number is None or number.extra.get("unit") != "percent" or not direction:
        return None
    op, size = tokens[j].value, float(number.value)
    if direction == "down":  # fell by more than 2%: the change below −2
        op, size = FLIPPED_OPS[op], -size
    return Compare("pct_chg", op, size, text=number.text), j + 2


def streak_total(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """连续4天下跌且累计跌幅超过10% / up 5 days in a row with a total gain of more than 20%: the gain
    over the streak's own days (from the close before them), never the last day's change."""
    run = tokens[i].value if tokens[i].kind == "cond" else None
    if not isinstance(run, Technical) or run.kind not in {"up_streak", "down_streak"}:
        return None
    j = i + 1 + (kind_at(tokens, i + 1) == "and")
    if kind_at(tokens, j) != "agg" or tokens[j].value != "sum":
        return None
    measure = tokens[j + 1] if kind_at(tokens, j + 1) in {"change_word", "metric"} else None
    metric = model.metrics.get(metric_of(measure)) if measure is not None else None
    if metric is None or metric.column != "pct_chg":
        return None
    j += 2
    j += kind_at(tokens, j) == "per"  # a total gain of more than 20%
    if (
        kind_at(tokens, j) != "cmp"
        or tokens[j].value not in FLIPPED_OPS
        or kind_at(tokens, j + 1) != "number"
    ):
        return None
    size = tokens[j + 1]
    if size.extra.get("unit") != "percent":
        return None
    op, value = tokens[j].value, float(size.value)
    if metric.negated:  # 累计跌幅超过10%: the gain below −10
        op, value = FLIPPED_OPS[op], -value
    total = Compare("pct_chg", op, value, time=TimeSpec("recent_bars", n=run.n), text=size.text)
    return j + 2 - i, [synthetic("cond", BoolOp("and", (run, total)), tokens[i : j + 2])]
