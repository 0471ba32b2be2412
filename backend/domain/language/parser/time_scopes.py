"""Time scopes: 2025年9月8日, 2024年年报, 近5个交易日, last month, 5日涨幅 → one `timespec` token.

Times stay symbolic here; the compiler resolves them on the trading calendar.
"""

from __future__ import annotations

from datetime import date, timedelta

from backend.domain.language.ir import TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.listing import PERIOD_KINDS
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, period_bounds, synthetic
from backend.domain.language.parser.technical import bars_in_weeks
from backend.domain.language.semantic import SemanticModel

# 近N<unit> → (label, how many of the label's units)
RECENT_WINDOWS = {
    "day": ("recent_days", 1),
    "trading_day": ("recent_bars", 1),
    "week": ("recent_weeks", 1),
    "month": ("recent_months", 1),
    "quarter": ("recent_months", 3),
    "year": ("recent_months", 12),
}
WHOLE_YEARS = {"this_year", "last_year", "year_before"}


def time_scope(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    spec: TimeSpec | None = None
    used = 1
    anchored = _since(tokens, i) or _day_of_period(tokens, i) or _since_period_start(tokens, i)
    months = _month_range(tokens, i + (token.kind == "between"))
    if anchored is not None:  # days said around a named period
        spec, used = anchored
    elif months is not None:  # from March to June 2024, 2024年3月到6月: the days of those months
        start, end, month_tokens = months
        spec = TimeSpec("date_range", day=start, end_day=end)
        used = month_tokens + (token.kind == "between")
    elif token.kind == "between" and _day_range(tokens, i + 1) is not None:
        # "between A and B" compares the two days; "from A to B" covers them, as A至B does
        start, end = _day_range(tokens, i + 1) or (token.value, token.value)
        spec = TimeSpec("date_span" if token.text == "between" else "date_range", day=start, end_day=end)
        used = 4
    elif token.kind == "between" and token.text == "between" and _dated_to_latest(tokens, i + 1):
        # between June 30, 2025 and today (the latest close): the two days compared, the latest one
        # the end (left unset); the close said with it is the price the span compares anyway
        said_close = kind_at(tokens, i + 4) == "metric" and tokens[i + 4].value == "close"
        spec, used = TimeSpec("date_span", day=tokens[i + 1].value), 4 + said_close
    elif _day_range(tokens, i) is not None:
        # "A至B" covers the days from A to B
        start, end = _day_range(tokens, i) or (token.value, token.value)
        spec = TimeSpec("date_range", day=start, end_day=end)
        used = 3
    elif token.kind == "date":
        spec = TimeSpec("date", day=token.value)
    elif token.kind == "period":
        value = token.value
        label = "annual" if value["kind"] == "annual" else "quarter"
        spec = TimeSpec(label, year=value["year"], quarter=value["quarter"] if label == "quarter" else None)
    elif token.kind == "month":
        spec = TimeSpec("month", year=token.value["year"], month=token.value["month"])
    elif token.kind == "half":
        spec = TimeSpec("half", year=token.value["year"], month=token.value["month"])
    elif token.kind == "period_end":
        spec = TimeSpec("period_end", year=token.value["year"], month=token.value["month"])
    elif token.kind == "year":
        spec = TimeSpec("year", year=token.value)
        annual_reports = kind_at(tokens, i + 1) == "tunit" and tokens[i + 1].value == "annual_reports"
        if kind_at(tokens, i + 1) == "annual" or annual_reports:  # 2024年报, the 2024 annual reports
            spec = TimeSpec("annual", year=token.value)
            used = 2
    elif token.kind == "days_ago":  # the day before yesterday, 前天
        spec = TimeSpec("days_ago", n=int(token.value))
    elif _sessions_ago(tokens, i):  # 3 sessions ago, 5 trading days ago
        spec, used = TimeSpec("days_ago", n=int(token.value)), 3
    elif token.kind == "time":
        spec = TimeSpec(token.value)
        if token.value in WHOLE_YEARS and kind_at(tokens, i + 1) == "annual":
            used = 2  # 去年全年 / last full year: the year, said whole
        elif token.value == "latest" and kind_at(tokens, i + 1) == "annual":
            spec, used = TimeSpec("annual"), 2  # 最新年报: the latest annual report, not today's data
    elif token.kind == "annual":
        spec = TimeSpec("annual")
    elif token.kind == "latest_period" and not _names_annual_report(tokens, i + 1):
        spec = TimeSpec("latest_report")  # 最新一期财报: the latest period of any quarter
    elif token.kind == "recent":
        j = i + 1
        n = 1
        if kind_at(tokens, j) == "number" and is_plain_number(tokens[j]):
            n = int(tokens[j].value)
            j += 1
        if j > i + 1 and _sessions_said_before(tokens, i, j):
            # which session in the last 20: the unit said with the days asked is the window's
            return j - i, [synthetic("timespec", TimeSpec("recent_bars", n=n), tokens[i:j])]
        if kind_at(tokens, j) != "tunit" or n < 1:
            return None
        if tokens[j].value not in RECENT_WINDOWS:
            return None  # "近3个报告期" is a count of reports, read by the sustained-condition pass
        label, per_unit = RECENT_WINDOWS[tokens[j].value]
        spec = TimeSpec(label, n=per_unit * n)
        if label == "recent_bars" and n == 1:  # the last trading day: the latest day, its move its pct_chg
            spec = TimeSpec("latest")
        used = j + 1 - i
    elif token.kind == "number" and is_plain_number(token) and kind_at(tokens, i + 1) == "tunit":
        # "5日涨幅", "20-day average turnover", "5个交易日": N bars in technical style
        unit = tokens[i + 1].value
        # a window's own measure too (20-day volatility, 20日波动率): the window it is measured over
        follows_metric = kind_at(tokens, i + 2) in {"metric", "agg", "change_word", "gainers", "volatility"}
        if unit == "trading_day" or (unit == "day" and follows_metric):
            spec = TimeSpec("recent_bars", n=int(token.value))
            used = 2
        elif unit == "week" and follows_metric:  # 52周最高价: the 52-week high, bars as in 52周新高
            spec = TimeSpec("recent_bars", n=bars_in_weeks(int(token.value)))
            used = 2
    if spec is None:
        return None
    return used, [synthetic("timespec", spec, tokens[i : i + used])]


def _sessions_said_before(tokens: list[Token], i: int, j: int) -> bool:
    """the last N with no unit after it, right after trading days / sessions (the rows asked): N of them."""
    said = kind_at(tokens, i - 1) == "tunit" and tokens[i - 1].value == "trading_day"
    return said and kind_at(tokens, j) != "tunit" and tokens[j - 1].value >= 1


def _sessions_ago(tokens: list[Token], i: int) -> bool:
    """N sessions / trading days ago: N trading days back. "N days ago" stays unread (refused): calendar
    days would name a date that may not be a trading day, trading days another one."""
    counted = kind_at(tokens, i) == "number" and is_plain_number(tokens[i]) and tokens[i].value >= 1
    sessions = kind_at(tokens, i + 1) == "tunit" and tokens[i + 1].value == "trading_day"
    return counted and sessions and kind_at(tokens, i + 2) == "ago"


def _day_of_period(tokens: list[Token], i: int) -> tuple[TimeSpec, int] | None:
    """the last trading day of 2024 / 2024年最后一个交易日 / 2024年6月最后一个交易日 → period_end; the
    first trading day of 2025 / 2025年第一个交易日 → period_start."""
    if kind_at(tokens, i) == "day_of_period" and kind_at(tokens, i + 1) in {"year", "month"}:
        which, period = tokens[i], tokens[i + 1]
    elif kind_at(tokens, i) in {"year", "month"} and kind_at(tokens, i + 1) == "day_of_period":
        which, period = tokens[i + 1], tokens[i]
    else:
        return None
    label = "period_end" if which.value == "last" else "period_start"
    if period.kind == "year":
        return TimeSpec(label, year=int(period.value), month=12 if which.value == "last" else 1), 2
    return TimeSpec(label, year=period.value["year"], month=period.value["month"]), 2


def _names_annual_report(tokens: list[Token], j: int) -> bool:
    """最近一期年报 is the latest annual report: the 年报 that follows says which kind of period."""
    following = tokens[j] if j < len(tokens) else None
    if following is None:
        return False
    return following.kind == "annual" or (following.kind == "period" and following.value["kind"] == "annual")


def _since(tokens: list[Token], i: int) -> tuple[TimeSpec, int] | None:
    """2025年以来 / since March 2024 / 2024-09-24以后: from the first day of that period on; the
    start of the period said (2024年初以来, since the start of 2024) is the same day."""
    if tokens[i].kind in PERIOD_KINDS:
        j = i + 1 + (kind_at(tokens, i + 1) == "period_start")
        if kind_at(tokens, j) == "after":
            return TimeSpec("since", day=period_bounds(tokens[i])[0]), j + 1 - i
    if tokens[i].kind == "after" and tokens[i].text == "since":
        j = i + 1 + (kind_at(tokens, i + 1) == "period_start")
        if kind_at(tokens, j) in PERIOD_KINDS:
            return TimeSpec("since", day=period_bounds(tokens[j])[0]), j + 1 - i
    if tokens[i].kind == "after" and tokens[i].text == "after" and kind_at(tokens, i + 1) in PERIOD_KINDS:
        # after June 30 2025 / after 2024: from the day after that period, its last close the base
        return TimeSpec("since", day=period_bounds(tokens[i + 1])[1] + timedelta(days=1)), 2
    return None


# the start of the period under way, said with its unit (年初, the start of the year)
PERIOD_UNDER_WAY = {
    "year": "this_year", "month": "this_month", "week": "this_week", "quarter": "this_quarter"
}  # fmt: skip
MOVES = {"up", "down", "change_word"}


def _since_period_start(tokens: list[Token], i: int) -> tuple[TimeSpec, int] | None:
    """since the start of the year / 年初以来 / 月初至今: the period under way so far; 较年初下跌 (a move
    against the start of the year, 较 being filler) likewise — the start of the year alone, before
    anything but a move, is a day and is not read here."""
    if kind_at(tokens, i) == "after" and tokens[i].text in {"since", "以来"}:
        unit = i + 1 + (kind_at(tokens, i + 1) == "period_start")
        if kind_at(tokens, i + 1) == "period_start" and _unit_under_way(tokens, unit):
            return TimeSpec(PERIOD_UNDER_WAY[tokens[unit].value]), unit + 1 - i
        return None
    if not (_unit_under_way(tokens, i) and kind_at(tokens, i + 1) == "period_start"):
        return None
    spec = TimeSpec(PERIOD_UNDER_WAY[tokens[i].value])
    if kind_at(tokens, i + 2) == "after" or (kind_at(tokens, i + 2) == "to" and _says_now(tokens, i + 3)):
        return spec, 3 + (kind_at(tokens, i + 2) == "to")  # 年初以来, 年初至今
    return (spec, 2) if kind_at(tokens, i + 2) in MOVES else None


def _unit_under_way(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "tunit" and tokens[j].value in PERIOD_UNDER_WAY


def _says_now(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "time" and tokens[j].value == "latest"


def _month_range(tokens: list[Token], j: int) -> tuple[date, date, int] | None:
    """(first day, last day, tokens used) of months A to B, one of them with its year: from March to
    June 2024, March through June 2024, 2024年3月到6月, 2023年11月至2024年2月; the end's year is
    the start's (the next one when it would come first), the start's the end's likewise."""
    first = _month_at(tokens, j)
    if first is None or kind_at(tokens, j + first[2]) != "to":
        return None
    second = _month_at(tokens, j + first[2] + 1)
    if second is None or (first[0] is None and second[0] is None):
        return None
    (start_year, start_month, start_used), (end_year, end_month, end_used) = first, second
    if start_year is None:
        start_year = int(end_year or 0) - (start_month > end_month)
    if end_year is None:
        end_year = start_year + (end_month < start_month)
    start, end = date(start_year, start_month, 1), date(end_year, end_month, 1)
    if end < start:
        return None
    last_day = date(end.year + end.month // 12, end.month % 12 + 1, 1).toordinal() - 1
    return start, date.fromordinal(last_day), start_used + 1 + end_used


def _month_at(tokens: list[Token], j: int) -> tuple[int | None, int, int] | None:
    """(year or None, month, tokens used) of a month said at j: June 2024 / 2024年6月, a month name
    (June), or a Chinese month without its year (6月: a number and the unit 月)."""
    token = tokens[j] if 0 <= j < len(tokens) else None
    if token is None:
        return None
    if token.kind == "month":
        return int(token.value["year"]), int(token.value["month"]), 1
    if token.kind == "month_name":
        return None, int(token.value), 1
    unit = kind_at(tokens, j + 1) == "tunit" and tokens[j + 1].value == "month" and tokens[j + 1].text == "月"
    if unit and is_plain_number(token) and 1 <= token.value <= 12 and float(token.value).is_integer():
        return None, int(token.value), 2
    return None


def _dated_to_latest(tokens: list[Token], j: int) -> bool:
    """A day with its year, then and today / now (a day without its year is not read here)."""
    latest = kind_at(tokens, j + 2) == "time" and tokens[j + 2].value == "latest"
    return kind_at(tokens, j) == "date" and kind_at(tokens, j + 1) == "to" and latest


def _day_range(tokens: list[Token], j: int) -> tuple[date, date] | None:
    """A to B, days (2024年9月24日至10月8日, Sep 24 to Oct 8, 2024): an end without its year
    takes the other end's year (the next one when it would come first)."""
    first, second = (tokens[j] if 0 <= j < len(tokens) else None), kind_at(tokens, j + 2)
    if first is None or kind_at(tokens, j + 1) != "to":
        return None
    if first.kind in {"date", "monthday"} and second == "period_end":  # between April 8 and the end of 2025
        year, month = tokens[j + 2].value["year"], tokens[j + 2].value["month"]
        end = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        if first.kind == "date":
            return first.value, end
        if (first.value["month"], first.value["day"]) == (2, 29):
            return None  # a leap day takes no year from the other end
        start = date(year, first.value["month"], first.value["day"])  # the day takes the end's year
        return start if start <= end else start.replace(year=year - 1), end
    if {first.kind, second} - {"date", "monthday"}:
        return None
    last = tokens[j + 2]
    if first.kind == "date" and last.kind == "date":
        return first.value, last.value
    if first.kind == "date":
        end = date(first.value.year, last.value["month"], last.value["day"])
        return first.value, end if end >= first.value else end.replace(year=end.year + 1)
    if last.kind == "date":
        start = date(last.value.year, first.value["month"], first.value["day"])
        return start if start <= last.value else start.replace(year=start.year - 1), last.value
    return None  # neither end names its year
