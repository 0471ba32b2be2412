"""daily_basic: valuations from each bar's close and the reports announced by that day."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from backend.domain.market.demo.fundamentals import Reports


@dataclass(frozen=True)
class Valuation:
    total_mv: np.ndarray  # 10k CNY, (N, T)
    circ_mv: np.ndarray
    pe: np.ndarray  # NaN = NULL (loss or nothing announced)
    pe_ttm: np.ndarray
    pb: np.ndarray
    ps: np.ndarray
    ps_ttm: np.ndarray
    dv_ratio: np.ndarray


def latest_report_index(reports: Reports, days: np.ndarray) -> np.ndarray:
    """(N, T) index of the latest period announced on or before each day; -1 when none."""
    n, n_periods = reports.ann_dates.shape
    count = np.zeros((n, len(days)), dtype=np.int32)
    for p in range(n_periods):  # ann_dates are non-decreasing along periods
        count += reports.ann_dates[:, p, None] <= days[None, :]
    return count - 1


def _ratio(numerator: np.ndarray, denominator: np.ndarray, positive_only: bool) -> np.ndarray:
    valid = denominator > 0 if positive_only else denominator != 0
    safe = np.where(valid, denominator, 1.0)
    return np.where(valid, np.round(numerator / safe, 4), np.nan)


def value_bars(
    close: np.ndarray, total_share: np.ndarray, float_share: np.ndarray, reports: Reports, days: np.ndarray
) -> Valuation:
    """Ratios from the close (CNY) and shares (10k); NaN closes give NaN valuations."""
    total_mv = np.round(close * total_share[:, None], 4)
    circ_mv = np.round(close * float_share, 4)
    index = latest_report_index(reports, days)
    rows = np.arange(close.shape[0])[:, None]
    known = index >= 0
    at = np.maximum(index, 0)

    def pick(values: np.ndarray) -> np.ndarray:
        return np.where(known, values[rows, at], np.nan)

    mv_yuan = total_mv * 1e4
    return Valuation(
        total_mv=total_mv,
        circ_mv=circ_mv,
        pe=_ratio(mv_yuan, pick(reports.annual_profit), positive_only=True),
        pe_ttm=_ratio(mv_yuan, pick(reports.ttm_profit), positive_only=True),
        pb=_ratio(mv_yuan, pick(reports.equity), positive_only=True),
        ps=_ratio(mv_yuan, pick(reports.annual_revenue), positive_only=True),
        ps_ttm=_ratio(mv_yuan, pick(reports.ttm_revenue), positive_only=True),
        dv_ratio=np.where(known, np.round(pick(reports.dividend) / mv_yuan * 100, 4), np.nan),
    )
