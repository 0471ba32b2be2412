"""How a price or a valuation is read over a window of days when the question says no average.

近10个交易日最高收盘价 is the highest close among the window's bars, never the highest of the window's
average close; a ranking of stocks by a price or a valuation over a window with no measure said
(closed at their lowest level in 120 sessions, 2024年…市盈率最低) is refused rather than read as the
window's average: the words mean a day's level (an N-day low, the latest P/E), not a mean.
"""

from __future__ import annotations

from backend.domain.language.compiler.errors import CompileError

# levels a day has: prices and valuation multiples, whose mean over a window is only read when an
# average is said; a size (the biggest by market cap this month) keeps its ranking's window average
RANKED_ONLY_WITH_A_MEASURE = {"close", "open", "high", "low", "pe", "pe_ttm", "pb", "ps", "ps_ttm"}
DAY_LEVELS = RANKED_ONLY_WITH_A_MEASURE | {"total_mv", "circ_mv"}
EXTREMES = {"max", "min"}


def per_stock_extreme(metric_key: str, fn: str) -> str | None:
    """The per-stock window measure under a max/min of a day level: the same extreme over the bars."""
    return fn if fn in EXTREMES and metric_key in DAY_LEVELS else None


def refuse_unsaid_window_mean(metric_key: str, agg: str | None) -> None:
    """A ranking of a day level over a window needs its measure said (average, highest, lowest …)."""
    if agg is None and metric_key in RANKED_ONLY_WITH_A_MEASURE:
        raise CompileError(
            f"a ranking by {metric_key} over a window of days needs its measure said "
            "(the average, the highest or lowest bar, or a day's value)"
        )
