"""Synthetic daily bars: market + industry + idiosyncratic returns, board limits, suspensions.

Arrays are (stock, trading day); NaN where a stock has no bar (not yet listed or suspended).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

TRADING_DAYS_PER_YEAR = 243
MARKET_DAILY_VOL = 0.011
INDUSTRY_DAILY_VOL = 0.008
DEFAULT_PHASE_ORIGIN = date(2022, 9, 1)  # MARKET_PHASES apply when the demo starts here


@dataclass(frozen=True)
class PriceModel:
    """Per-stock parameters of the return model (arrays of shape (N,) unless noted)."""

    init_price: np.ndarray  # issue price or the close before the demo starts
    limit: np.ndarray  # daily limit as a fraction (0.10, 0.20, 0.30)
    beta: np.ndarray
    idio_vol: np.ndarray
    industry: np.ndarray  # industry index per stock
    drift: np.ndarray  # (N, T) daily log drift


@dataclass(frozen=True)
class Bars:
    has_bar: np.ndarray  # bool (N, T)
    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray
    pre_close: np.ndarray
    last_close: np.ndarray  # close carried forward over suspensions; NaN before the first bar


def trading_mask(rng: np.random.Generator, first_bar: np.ndarray, n_days: int) -> np.ndarray:
    """Which stocks trade on which day: from their first bar on, minus suspension spells."""
    n = len(first_bar)
    day = np.arange(n_days)
    has_bar = day[None, :] >= first_bar[:, None]
    spells = rng.poisson(0.45, n)
    long_halt = rng.random(n) < 0.015  # restructurings: months without trading
    for i in np.flatnonzero((spells > 0) | long_halt):
        if first_bar[i] + 1 >= n_days:
            continue
        lengths = list(np.minimum(1 + rng.geometric(0.3, spells[i]), 60))
        if long_halt[i]:
            lengths.append(int(rng.integers(40, 160)))
        for length in lengths:
            start = int(rng.integers(first_bar[i] + 1, n_days))  # the listing day itself always trades
            has_bar[i, start : start + length] = False
    return has_bar


# The broad market follows fixed phases whatever the seed (cumulative log level since 2022-09-01):
# a slide into autumn 2022, a slump into early 2024, the sharp rally of late September 2024, and a
# recovery through 2025. Between these points the path is random; outside the demo window, free.
MARKET_PHASES: tuple[tuple[date, float], ...] = (
    (date(2022, 10, 31), -0.17),
    (date(2023, 1, 31), 0.02),
    (date(2023, 12, 29), -0.12),
    (date(2024, 2, 5), -0.27),
    (date(2024, 9, 23), -0.28),
    (date(2024, 10, 8), -0.02),
    (date(2024, 12, 31), -0.06),
    (date(2025, 4, 8), -0.13),
    (date(2025, 12, 31), 0.08),
)


def market_returns(rng: np.random.Generator, days: np.ndarray) -> np.ndarray:
    """Daily market log returns: volatility regimes, bent to pass through MARKET_PHASES."""
    n_days = len(days)
    regime = np.exp(_smooth(rng, n_days, 0.35))
    returns = MARKET_DAILY_VOL * regime * rng.standard_normal(n_days)
    if np.datetime64(DEFAULT_PHASE_ORIGIN) != days[0]:
        return returns
    level, previous = 0.0, 0
    for when, target in MARKET_PHASES:
        position = int(np.searchsorted(days, np.datetime64(when), side="right")) - 1
        if position <= previous:
            continue
        segment = slice(previous + 1, position + 1)
        # Shift the segment's returns evenly so that it ends exactly at the phase's level.
        returns[segment] += (target - level - returns[segment].sum()) / (position - previous)
        level, previous = target, position
    return returns


def _returns(rng: np.random.Generator, model: PriceModel, n_industries: int, days: np.ndarray) -> np.ndarray:
    n, n_days = len(model.init_price), len(days)
    market = market_returns(rng, days)
    industry = INDUSTRY_DAILY_VOL * rng.standard_normal((n_industries, n_days))
    # Student-t(4) noise has variance 2: rescale to unit variance for fat tails at the same volatility.
    noise = rng.standard_t(4, (n, n_days)) / np.sqrt(2.0)
    jumps = (rng.random((n, n_days)) < 0.003) * rng.normal(0.0, 0.09, (n, n_days))
    return (
        model.drift
        + model.beta[:, None] * market[None, :]
        + industry[model.industry]
        + model.idio_vol[:, None] * noise
        + jumps
    )


def _smooth(rng: np.random.Generator, n_days: int, scale: float) -> np.ndarray:
    """A slowly varying volatility regime (AR(1) in log space)."""
    shocks = rng.normal(0.0, scale * np.sqrt(1 - 0.98**2), n_days)
    level = np.empty(n_days)
    state = 0.0
    for t, shock in enumerate(shocks):
        state = 0.98 * state + shock
        level[t] = state
    return level


def simulate_bars(
    rng: np.random.Generator, model: PriceModel, has_bar: np.ndarray, n_industries: int, days: np.ndarray
) -> Bars:
    n, n_days = has_bar.shape
    log_returns = _returns(rng, model, n_industries, days)
    close = np.full((n, n_days), np.nan)
    pre_close = np.full((n, n_days), np.nan)
    last_close = np.full((n, n_days), np.nan)
    price = model.init_price.copy()
    started = np.zeros(n, dtype=bool)
    for t in range(n_days):
        bar = has_bar[:, t]
        # Limit prices are rounded to the cent like the exchanges do; the close stays within them.
        up = np.round(price * (1 + model.limit), 2)
        down = np.maximum(np.round(price * (1 - model.limit), 2), 0.01)
        moved = np.clip(np.round(price * np.exp(log_returns[:, t]), 2), down, up)
        close[bar, t] = moved[bar]
        pre_close[bar, t] = price[bar]
        price = np.where(bar, moved, price)
        started |= bar
        last_close[started, t] = price[started]

    gap = 0.3 * log_returns + 0.006 * rng.standard_normal((n, n_days))
    up = np.round(pre_close * (1 + model.limit[:, None]), 2)
    down = np.maximum(np.round(pre_close * (1 - model.limit[:, None]), 2), 0.01)
    open_ = np.clip(np.round(pre_close * np.exp(gap), 2), down, up)
    wick = model.idio_vol[:, None] * 0.5
    high = np.clip(
        np.round(np.fmax(open_, close) * np.exp(np.abs(rng.standard_normal((n, n_days))) * wick), 2), None, up
    )
    low = np.clip(
        np.round(np.fmin(open_, close) * np.exp(-np.abs(rng.standard_normal((n, n_days))) * wick), 2),
        down,
        None,
    )
    high = np.fmax(high, np.fmax(open_, close))
    low = np.fmin(low, np.fmin(open_, close))
    return Bars(has_bar, open_, high, low, close, pre_close, last_close)


@dataclass(frozen=True)
class Volume:
    vol: np.ndarray  # lots of 100 shares, NaN without a bar
    amount: np.ndarray  # thousand CNY
    turnover_rate: np.ndarray  # % of float shares
    volume_ratio: np.ndarray  # volume / mean volume of the previous five bars


def simulate_volume(
    rng: np.random.Generator,
    bars: Bars,
    float_share: np.ndarray,
    base_turnover: np.ndarray,
    first_bar: np.ndarray,
) -> Volume:
    n, n_days = bars.has_bar.shape
    move = np.abs(np.log(bars.close / bars.pre_close))
    turnover = base_turnover[:, None] * np.exp(0.35 * rng.standard_normal((n, n_days))) * (1 + 12 * move)
    days_listed = np.arange(n_days)[None, :] - first_bar[:, None]
    turnover = np.where((days_listed >= 0) & (days_listed < 5), turnover * 6, turnover)  # listing frenzy
    turnover = np.minimum(turnover, 60.0)
    vol = np.maximum(np.round(float_share * turnover), 1.0)
    vol = np.where(bars.has_bar, vol, np.nan)
    typical = np.clip((bars.open + bars.high + bars.low + bars.close) / 4, bars.low, bars.high)
    amount = np.round(vol * typical / 10, 3)  # lots x 100 shares x CNY / 1000
    turnover_rate = np.round(vol / float_share, 4)
    return Volume(vol, amount, turnover_rate, _volume_ratio(vol, bars.has_bar))


def _volume_ratio(vol: np.ndarray, has_bar: np.ndarray) -> np.ndarray:
    """Volume over the mean of the same stock's previous five bars (suspended days skipped)."""
    compact = vol[has_bar]  # row-major: each stock's bars in time order
    owner = np.nonzero(has_bar)[0]
    cumulative = np.concatenate([[0.0], np.cumsum(compact)])
    k = np.arange(len(compact))
    previous_five = cumulative[k] - cumulative[np.maximum(k - 5, 0)]
    same_stock = (k >= 5) & (owner[np.maximum(k - 5, 0)] == owner)
    ratio = np.where(same_stock, compact / np.where(previous_five > 0, previous_five / 5, np.nan), np.nan)
    out = np.full(vol.shape, np.nan)
    out[has_bar] = np.round(ratio, 2)
    return out
