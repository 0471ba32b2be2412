"""Synthetic quarterly reports: revenue and profit paths, cumulative YTD like Tushare, legal ann_dates.

Everything is vectorised over (stock, year, quarter). Amounts are in CNY.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from backend.domain.market.demo.industries import profile_of
from backend.domain.market.demo.universe import FAMOUS_CODES, Stock

FIRST_STORED_PERIOD = date(2019, 12, 31)
_QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))
# Legal deadlines (month, day) and how many days before them companies spread their announcements.
_DEADLINES = ((4, 30), (8, 31), (10, 31), (4, 30))  # Q4 = annual report, due the following year
_SPREAD_DAYS = (20, 45, 25, 60)
PARENT_SHARE_RANGE = (0.85, 1.0)  # share of net profit attributable to the parent


@dataclass(frozen=True)
class Reports:
    """Per stock (axis 0) and period (axis 1, oldest first; periods = years x 4 quarters)."""

    end_dates: np.ndarray  # datetime64[D], shape (P,)
    ann_dates: np.ndarray  # datetime64[D], shape (N, P), non-decreasing along periods
    revenue_ytd: np.ndarray
    profit_ytd: np.ndarray  # net profit attributable to the parent
    minority_factor: np.ndarray  # (N,): n_income = profit / factor
    tax_rate: np.ndarray  # (N,)
    annual_profit: np.ndarray  # last annual profit known with this period
    annual_revenue: np.ndarray
    ttm_profit: np.ndarray
    ttm_revenue: np.ndarray
    equity: np.ndarray  # parent equity at period end
    avg_equity: np.ndarray  # average equity over the year to date
    dividend: np.ndarray  # total cash dividend of the last annual report, CNY
    gross_margin: np.ndarray  # % (NaN for financials)
    debt_to_assets: np.ndarray  # %
    profit_ytd_prev: np.ndarray  # same period one year earlier
    revenue_ytd_prev: np.ndarray


def _period_dates(first_year: int, last_year: int) -> np.ndarray:
    return np.array(
        [date(year, m, d) for year in range(first_year, last_year + 1) for m, d in _QUARTER_ENDS],
        dtype="datetime64[D]",
    )


def _announcement_dates(
    rng: np.random.Generator, n: int, years: np.ndarray, list_dates: np.ndarray
) -> np.ndarray:
    ann = np.empty((n, len(years), 4), dtype="datetime64[D]")
    for q, ((month, day), spread) in enumerate(zip(_DEADLINES, _SPREAD_DAYS, strict=True)):
        due_year = years + (1 if q == 3 else 0)
        deadlines = np.array([date(int(y), month, day) for y in due_year], dtype="datetime64[D]")
        early = rng.integers(0, spread + 1, size=(n, len(years)))
        ann[:, :, q] = deadlines[None, :] - early.astype("timedelta64[D]")
    # Q1 reports never come out before the annual report of the year just ended.
    ann[:, 1:, 0] = np.maximum(ann[:, 1:, 0], ann[:, :-1, 3])
    flat = ann.reshape(n, -1)
    # Periods reported before listing were disclosed in the prospectus, two weeks before listing.
    prospectus = (list_dates - np.timedelta64(14, "D"))[:, None]
    return np.where(flat < prospectus, prospectus, flat)


def simulate_reports(
    rng: np.random.Generator,
    stocks: list[Stock],
    anchor_cap: np.ndarray,
    anchor_year: int,
    last_year: int,
) -> Reports:
    """Report paths anchored so that each stock's P/S and P/B at `anchor_cap` fit its industry."""
    n = len(stocks)
    first_year = FIRST_STORED_PERIOD.year - 1  # one extra year for YoY growth and TTM figures
    years = np.arange(first_year, last_year + 1)
    profiles = [profile_of(s.industry) for s in stocks]
    # Famous names stay close to their industry's typical figures, profitable and growing steadily.
    famous = np.array([s.code in FAMOUS_CODES for s in stocks])
    spread = np.where(famous, 0.3, 1.0)
    ps = np.array([p.price_to_sales for p in profiles]) * np.exp(rng.normal(0.0, 0.45, n) * spread)
    pb = np.array([p.price_to_book for p in profiles]) * np.exp(rng.normal(0.0, 0.30, n) * spread)
    base_margin = np.array([p.net_margin for p in profiles]) * np.exp(rng.normal(0.0, 0.35, n) * spread)
    chronic_loss = (rng.random(n) < 0.10) & ~famous
    base_margin = np.where(chronic_loss, -rng.uniform(0.02, 0.20, n), base_margin)
    growth = np.array([p.growth for p in profiles]) + rng.normal(0.0, 0.10, n) * spread

    # Annual revenue: a random walk in log space through the anchor year.
    yearly_growth = growth[:, None] + rng.normal(0.0, 0.10, (n, len(years))) * spread[:, None]
    log_steps = np.cumsum(yearly_growth, axis=1)
    anchor = int(np.searchsorted(years, anchor_year))
    log_revenue = np.log(anchor_cap / ps)[:, None] + log_steps - log_steps[:, [anchor]]
    annual_revenue = np.exp(log_revenue)

    year_margin = base_margin[:, None] + rng.normal(0.0, 0.025, (n, len(years)))
    shock = rng.random((n, len(years))) < 0.04  # one bad year: impairments, a lost contract
    year_margin = np.where(shock, year_margin - rng.uniform(0.05, 0.20, (n, len(years))), year_margin)

    season = np.array([0.22, 0.24, 0.25, 0.29]) * rng.lognormal(0.0, 0.08, (n, len(years), 4))
    season /= season.sum(axis=2, keepdims=True)
    quarter_revenue = annual_revenue[:, :, None] * season
    quarter_margin = year_margin[:, :, None] + rng.normal(0.0, 0.015, (n, len(years), 4))
    quarter_margin[:, :, 3] -= 0.01  # year-end write-downs
    quarter_profit = quarter_revenue * quarter_margin

    revenue_ytd = np.cumsum(quarter_revenue, axis=2)
    profit_ytd = np.cumsum(quarter_profit, axis=2)
    annual_profit = profit_ytd[:, :, 3]

    payout = np.where(rng.random(n) < 0.25, 0.0, rng.uniform(0.2, 0.6, n))
    retained = np.where(annual_profit > 0, annual_profit * (1 - payout[:, None]), annual_profit)
    equity_anchor = anchor_cap / pb
    retained_cum = np.cumsum(retained, axis=1)
    year_end_equity = equity_anchor[:, None] + retained_cum - retained_cum[:, [anchor]]
    year_end_equity = np.maximum(year_end_equity, 0.05 * equity_anchor[:, None])
    opening_equity = np.concatenate(
        [(year_end_equity[:, 0] - retained[:, 0])[:, None], year_end_equity[:, :-1]], axis=1
    )
    opening_equity = np.maximum(opening_equity, 0.05 * equity_anchor[:, None])
    quarter_retained = np.where(profit_ytd > 0, profit_ytd * (1 - payout[:, None, None]), profit_ytd)
    equity = np.maximum(opening_equity[:, :, None] + quarter_retained, 0.05 * equity_anchor[:, None, None])
    avg_equity = (opening_equity[:, :, None] + equity) / 2

    # Figures "known with" each period: the last annual report and trailing twelve months.
    prev_annual_profit = np.concatenate([annual_profit[:, :1], annual_profit[:, :-1]], axis=1)
    prev_annual_revenue = np.concatenate([annual_revenue[:, :1], annual_revenue[:, :-1]], axis=1)
    known_annual_profit = np.repeat(prev_annual_profit[:, :, None], 4, axis=2)
    known_annual_profit[:, :, 3] = annual_profit
    known_annual_revenue = np.repeat(prev_annual_revenue[:, :, None], 4, axis=2)
    known_annual_revenue[:, :, 3] = revenue_ytd[:, :, 3]
    profit_ytd_prev = np.concatenate(
        [profit_ytd[:, :1] / np.exp(growth)[:, None, None], profit_ytd[:, :-1]], axis=1
    )
    revenue_ytd_prev = np.concatenate(
        [revenue_ytd[:, :1] / np.exp(yearly_growth[:, :1])[:, :, None], revenue_ytd[:, :-1]], axis=1
    )
    ttm_profit = profit_ytd + prev_annual_profit[:, :, None] - profit_ytd_prev
    ttm_revenue = revenue_ytd + prev_annual_revenue[:, :, None] - revenue_ytd_prev

    # Cash dividend (total, CNY) paid out of the last annual profit known with each period.
    known_dividend = np.where(known_annual_profit > 0, known_annual_profit * payout[:, None, None], 0.0)
    gross = np.array([np.nan if p.gross_margin is None else p.gross_margin for p in profiles])
    gross_margin = (
        np.maximum(
            gross[:, None, None] + rng.normal(0.0, 0.03, (n, len(years), 4)), year_margin[:, :, None] + 0.05
        )
        * 100
    )
    debt = np.array([p.debt_to_assets for p in profiles]) + rng.normal(0.0, 6.0, n)
    debt_to_assets = np.clip(debt[:, None, None] + rng.normal(0.0, 1.5, (n, len(years), 4)), 3.0, 96.0)

    list_dates = np.array([s.list_date for s in stocks], dtype="datetime64[D]")
    flat = (n, len(years) * 4)
    return Reports(
        end_dates=_period_dates(first_year, last_year),
        ann_dates=_announcement_dates(rng, n, years, list_dates),
        revenue_ytd=revenue_ytd.reshape(flat),
        profit_ytd=profit_ytd.reshape(flat),
        minority_factor=rng.uniform(*PARENT_SHARE_RANGE, n),
        tax_rate=rng.choice([0.15, 0.25], n),
        annual_profit=known_annual_profit.reshape(flat),
        annual_revenue=known_annual_revenue.reshape(flat),
        ttm_profit=ttm_profit.reshape(flat),
        ttm_revenue=ttm_revenue.reshape(flat),
        equity=equity.reshape(flat),
        avg_equity=avg_equity.reshape(flat),
        dividend=known_dividend.reshape(flat),
        gross_margin=gross_margin.reshape(flat),
        debt_to_assets=debt_to_assets.reshape(flat),
        profit_ytd_prev=profit_ytd_prev.reshape(flat),
        revenue_ytd_prev=revenue_ytd_prev.reshape(flat),
    )
