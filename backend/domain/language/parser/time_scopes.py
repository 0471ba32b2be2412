"""Time scopes: 2025年9月8日, 2024年年报, 近5个交易日, last month, 5日涨幅 → one `timespec` token.

Times stay symbolic here; the compiler resolves them on the trading calendar.
"""

from __future__ import annotations

from backend.domain.language.ir import TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, synthetic
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


def time_scope(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    spec: TimeSpec | None = None
    used = 1
    if token.kind == "date" and kind_at(tokens, i + 1) == "to" and kind_at(tokens, i + 2) == "date":
        # "between A and B" compares the two days; "A至B" covers the days from A to B
        label = "date_span" if kind_at(tokens, i - 1) == "between" else "date_range"
        spec = TimeSpec(label, day=token.value, end_day=tokens[i + 2].value)
        used = 3
    elif token.kind == "date":
        spec = TimeSpec("date", day=token.value)
    elif token.kind == "period":
        value = token.value
        label = "annual" if value["kind"] == "annual" else "quarter"
        spec = TimeSpec(label, year=value["year"], quarter=value["quarter"] if label == "quarter" else None)
    elif token.kind == "month":
        spec = TimeSpec("month", year=token.value["year"], month=token.value["month"])
    elif token.kind == "year":
        spec = TimeSpec("year", year=token.value)
        if kind_at(tokens, i + 1) == "annual":
            spec = TimeSpec("annual", year=token.value)
            used = 2
    elif token.kind == "time":
        spec = TimeSpec(token.value)
    elif token.kind == "annual":
        spec = TimeSpec("annual")
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
