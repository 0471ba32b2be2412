"""Time scopes: 2025年9月8日, 2024年年报, 近5个交易日, last month, 5日涨幅 → one `timespec` token.

Times stay symbolic here; the compiler resolves them on the trading calendar.
"""

from __future__ import annotations

from datetime import date

from backend.domain.language.ir import TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.listing import PERIOD_KINDS
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, period_bounds, synthetic
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
    anchored = _since(tokens, i) or _day_of_period(tokens, i)  # days said around a named period
    if anchored is not None:
        spec, used = anchored
    elif token.kind == "between" and _day_range(tokens, i + 1) is not None:
        # "between A and B" compares the two days; "from A to B" covers them, as A至B does
        start, end = _day_range(tokens, i + 1) or (token.value, token.value)
        spec = TimeSpec("date_span" if token.text == "between" else "date_range", day=start, end_day=end)
        used = 4
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
    elif token.kind == "period_end":
        spec = TimeSpec("period_end", year=token.value["year"], month=token.value["month"])
    elif token.kind == "year":
        spec = TimeSpec("year", year=token.value)
        if kind_at(tokens, i + 1) == "annual":
            spec = TimeSpec("annual", year=token.value)
            used = 2
    elif token.kind == "time":
        spec = TimeSpec(token.value)
        if token.value in WHOLE_YEARS and kind_at(tokens, i + 1) == "annual":
            used = 2  # 去年全年 / last full year: the year, said whole
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
        if kind_at(tokens, j) != "tunit" or n < 1:
            return None
        if tokens[j].value not in RECENT_WINDOWS:
            return None  # "近3个报告期" is a count of reports, read by the sustained-condition pass
        label, per_unit = RECENT_WINDOWS[tokens[j].value]
        spec = TimeSpec(label, n=per_unit * n)
        used = j + 1 - i
    elif token.kind == "number" and is_plain_number(token) and kind_at(tokens, i + 1) == "tunit":
        # "5日涨幅", "20-day average turnover", "5个交易日": N bars in technical style
        unit = tokens[i + 1].value
        follows_metric = kind_at(tokens, i + 2) in {"metric", "agg", "change_word", "gainers"}
        if unit == "trading_day" or (unit == "day" and follows_metric):
            spec = TimeSpec("recent_bars", n=int(token.value))
            used = 2
    if spec is None:
        return None
    return used, [synthetic("timespec", spec, tokens[i : i + used])]


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
    return None


def _day_range(tokens: list[Token], j: int) -> tuple[date, date] | None:
    """A to B, days (2024年9月24日至10月8日, Sep 24 to Oct 8, 2024): an end without its year
    takes the other end's year (the next one when it would come first)."""
    first, second = (tokens[j] if 0 <= j < len(tokens) else None), kind_at(tokens, j + 2)
    if first is None or kind_at(tokens, j + 1) != "to" or {first.kind, second} - {"date", "monthday"}:
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
