"""generate_demo: the synthetic A-share market on real codes, names, listing dates and calendar."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import numpy as np
import pyarrow as pa

from backend.domain.market.demo.fundamentals import FIRST_STORED_PERIOD, Reports, simulate_reports
from backend.domain.market.demo.indexes import INDEX_FACTS, WeightRows, index_weights
from backend.domain.market.demo.industries import profile_of
from backend.domain.market.demo.prices import (
    INDUSTRY_DAILY_VOL,
    TRADING_DAYS_PER_YEAR,
    Bars,
    PriceModel,
    Volume,
    simulate_bars,
    simulate_volume,
    trading_mask,
)
from backend.domain.market.demo.reference import read_calendar
from backend.domain.market.demo.universe import FAMOUS_CODES, Stock, all_stocks, choose_stocks
from backend.domain.market.demo.valuation import Valuation, value_bars
from backend.domain.market.errors import MarketError
from backend.domain.market.importers.loading import (
    build_table,
    ensure_schema,
    insert_table,
    nullable,
    row_counts,
    truncate_all,
)
from backend.domain.market.store import MarketStore
from backend.domain.market.taxonomy import DAILY_LIMIT_PCT, INDEXES, INDUSTRIES

DATASET = "ashare_demo"
DEFAULT_SEED = 20250908
DEFAULT_START = date(2022, 9, 1)
DEFAULT_END = date(2025, 12, 31)
BSE_OPENING = date(2021, 11, 15)
REFERENCE_LICENCE = (
    "Stock codes, short names, listing dates and the trading calendar come from the adata 2.9.5 package "
    "(Apache License 2.0; see backend/domain/market/reference/NOTICE). All prices, volumes, valuations, "
    "financial reports, industries and index memberships are SYNTHETIC."
)

# Calibration of famous names: (price when the demo starts, CNY; total shares, 10k) close to reality.
KNOWN_SIZE: dict[str, tuple[float, float]] = {
    "600519": (1880.0, 125_620), "000858": (165.0, 388_161), "300750": (510.0, 244_047),
    "688981": (41.0, 793_000), "601318": (41.0, 1_828_024), "000001": (12.6, 1_940_592),
    "300059": (19.0, 1_321_000), "600036": (33.0, 2_521_985), "601398": (4.6, 35_640_626),
    "000333": (52.0, 699_000), "000651": (33.0, 563_000), "002594": (300.0, 291_114),
    "600276": (33.0, 637_900), "000002": (17.0, 1_162_000), "601012": (44.0, 757_900),
    "002415": (33.0, 933_000), "600900": (23.0, 2_446_800), "601857": (5.3, 18_302_000),
    "600030": (19.0, 1_482_000), "300760": (300.0, 121_200), "002475": (33.0, 710_000),
    "688111": (220.0, 46_100), "601888": (190.0, 206_900), "600887": (37.0, 636_600),
}  # fmt: skip
_MEDIAN_CAP_YUAN = {"主板": 7e9, "创业板": 5e9, "科创板": 6e9, "北交所": 1.5e9}
_MEDIAN_PRICE = {"主板": 12.0, "创业板": 20.0, "科创板": 35.0, "北交所": 10.0}


@dataclass(frozen=True)
class DemoSummary:
    seed: int
    stocks: int
    start: date
    end: date
    trading_days: int
    rows: dict[str, int] = field(default_factory=dict)
    generate_seconds: float = 0.0
    load_seconds: float = 0.0


@dataclass(frozen=True)
class _Shares:
    total: np.ndarray  # (N,) 10k shares
    floating: np.ndarray  # (N, T) 10k shares


def generate_demo(
    store: MarketStore,
    *,
    seed: int = DEFAULT_SEED,
    n_stocks: int | None = None,
    start: date = DEFAULT_START,
    end: date = DEFAULT_END,
    replace: bool = False,
) -> DemoSummary:
    """Create the schema and load a synthetic market; refuses a store that already holds data
    unless `replace` (which empties every canonical table first)."""
    if end <= start:
        raise MarketError(f"the demo needs start < end, got {start} .. {end}")
    if seed < 0:
        raise MarketError(f"the seed must be a non-negative integer, got {seed}")
    ensure_schema(store)
    if any(row_counts(store).values()):
        if not replace:
            raise MarketError(
                "the market store already holds data; to reload it, replace it "
                "(manage.py market generate --replace)"
            )
        truncate_all(store)
    started = time.perf_counter()
    tables = build_demo_tables(seed=seed, n_stocks=n_stocks, start=start, end=end)
    generated = time.perf_counter()
    rows = {name: insert_table(store, name, table) for name, table in tables.items()}
    loaded = time.perf_counter()
    return DemoSummary(
        seed=seed,
        stocks=rows["stock_basic"],
        start=start,
        end=end,
        trading_days=len(tables["daily"].column("trade_date").unique()),
        rows=rows,
        generate_seconds=round(generated - started, 3),
        load_seconds=round(loaded - generated, 3),
    )


def build_demo_tables(*, seed: int, n_stocks: int | None, start: date, end: date) -> dict[str, pa.Table]:
    """Every canonical table of the demo as Arrow, deterministic in `seed`."""
    rng = np.random.default_rng(seed)
    calendar = read_calendar(date(min(FIRST_STORED_PERIOD.year, start.year), 1, 1), end)
    days = np.array([day for day, is_open in calendar if is_open and day >= start], dtype="datetime64[D]")
    if days.size == 0:
        raise MarketError(f"no trading day between {start} and {end}")
    stocks = choose_stocks(all_stocks(listed_by=days[-1].astype(date)), n_stocks, rng)
    first_bar = np.searchsorted(days, np.array([s.list_date for s in stocks], dtype="datetime64[D]"))

    init_price, shares = _sizes(rng, stocks, first_bar, len(days), days)
    anchor_cap = init_price * shares.total * 1e4
    reports = simulate_reports(rng, stocks, anchor_cap, anchor_year=start.year - 1, last_year=end.year)
    model = _price_model(rng, stocks, init_price, reports, days)
    has_bar = trading_mask(rng, first_bar, len(days))
    bars = simulate_bars(rng, model, has_bar, len(INDUSTRIES), days)
    base_turnover = np.clip(
        2.5 * (anchor_cap / 5e9) ** -0.25 * rng.lognormal(0.0, 0.4, len(stocks)), 0.1, 15.0
    )
    volume = simulate_volume(rng, bars, shares.floating, base_turnover, first_bar)
    valuation = value_bars(bars.close, shares.total, shares.floating, reports, days)
    scale = 1.0 if n_stocks is None else len(stocks) / len(all_stocks(listed_by=days[-1].astype(date)))
    carried_circ_mv = bars.last_close * shares.floating
    weights = index_weights(stocks, days, valuation.total_mv, carried_circ_mv, has_bar, min(scale, 1.0))

    return {
        "stock_basic": _stock_basic(stocks),
        "trade_cal": _trade_cal(calendar),
        "daily": _daily(stocks, days, bars, volume),
        "daily_basic": _daily_basic(stocks, days, bars, volume, valuation, shares),
        "income": _income(rng, stocks, reports, shares, end),
        "fina_indicator": _fina_indicator(stocks, reports, shares, end),
        "index_basic": _index_basic(),
        "index_weight": _index_weight(stocks, weights),
        "dataset_info": _dataset_info(seed, len(stocks), days),
    }


def _sizes(
    rng: np.random.Generator, stocks: list[Stock], first_bar: np.ndarray, n_days: int, days: np.ndarray
) -> tuple[np.ndarray, _Shares]:
    n = len(stocks)
    boards = [s.board for s in stocks]
    cap = np.array([_MEDIAN_CAP_YUAN[b] for b in boards]) * rng.lognormal(0.0, 0.9, n)
    price = np.clip(np.array([_MEDIAN_PRICE[b] for b in boards]) * rng.lognormal(0.0, 0.6, n), 2.5, 400.0)
    for i, stock in enumerate(stocks):
        if stock.code in KNOWN_SIZE:
            price[i], total_10k = KNOWN_SIZE[stock.code]
            cap[i] = price[i] * total_10k * 1e4
    price = np.round(price, 2)
    total = np.round(cap / price / 1e4, 2)
    # New listings float a small slice; a year later most shares are tradable.
    ipo_ratio = rng.uniform(0.12, 0.30, n)
    mature_ratio = np.where(rng.random(n) < 0.6, 1.0, rng.uniform(0.5, 0.95, n))
    list_dates = np.array([s.list_date for s in stocks], dtype="datetime64[D]")
    seasoned = days[None, :] >= (list_dates + np.timedelta64(365, "D"))[:, None]
    floating = np.round(total[:, None] * np.where(seasoned, mature_ratio[:, None], ipo_ratio[:, None]), 2)
    return price, _Shares(total=total, floating=floating)


def _price_model(
    rng: np.random.Generator, stocks: list[Stock], init_price: np.ndarray, reports: Reports, days: np.ndarray
) -> PriceModel:
    n = len(stocks)
    profiles = [profile_of(s.industry) for s in stocks]
    industry_index = {name: i for i, name in enumerate(INDUSTRIES)}
    annual_revenue = reports.revenue_ytd[:, 3::4]
    growth = np.log(annual_revenue[:, 1:] / annual_revenue[:, :-1])
    first_year = int(str(reports.end_dates[0])[:4]) + 1
    year_of_day = days.astype("datetime64[Y]").astype(int) + 1970 - first_year
    # Prices follow the market, plus the company's growth relative to the typical company's.
    relative = growth - np.median(growth, axis=0, keepdims=True)
    famous = np.array([s.code in FAMOUS_CODES for s in stocks])
    relative[famous] = 0.0  # the famous large caps follow the market (examples should stay plausible)
    drift = 0.6 * relative[:, np.clip(year_of_day, 0, growth.shape[1] - 1)] / TRADING_DAYS_PER_YEAR
    beta = np.array([p.beta for p in profiles]) * rng.lognormal(0.0, 0.15, n)
    small_board = np.array([s.board in ("创业板", "科创板", "北交所") for s in stocks])
    idio_vol = (
        np.array([p.idio_vol for p in profiles])
        * rng.lognormal(0.0, 0.25, n)
        * np.where(small_board, 1.25, 1.0)
        * np.where(famous, 0.7, 1.0)  # large caps move less on their own
    )
    # Offset part of the volatility drag of the stock's own noise (the daily limits already trim the
    # tails) so that the typical stock roughly tracks the market.
    drag = 0.3 * (idio_vol**2 + INDUSTRY_DAILY_VOL**2)
    return PriceModel(
        init_price=init_price,
        limit=np.array([DAILY_LIMIT_PCT[s.board] / 100 for s in stocks]),
        beta=beta,
        idio_vol=idio_vol,
        industry=np.array([industry_index[s.industry] for s in stocks]),
        drift=drift + drag[:, None],
    )


def _stock_basic(stocks: list[Stock]) -> pa.Table:
    return build_table(
        "stock_basic",
        {
            "ts_code": [s.ts_code for s in stocks],
            "symbol": [s.code for s in stocks],
            "name": [s.name for s in stocks],
            "cnspell": [s.cnspell for s in stocks],
            "area": [s.area for s in stocks],
            "industry": [s.industry for s in stocks],
            "market": [s.board for s in stocks],
            "exchange": [s.exchange for s in stocks],
            "list_status": ["L"] * len(stocks),
            "list_date": [s.list_date for s in stocks],
            "delist_date": pa.nulls(len(stocks), pa.date32()),
        },
    )


def _trade_cal(calendar: list[tuple[date, bool]]) -> pa.Table:
    exchanges, cal_dates, is_open, pretrade = [], [], [], []
    for exchange in ("SSE", "SZSE", "BSE"):
        previous: date | None = None
        for day, open_ in calendar:
            if exchange == "BSE" and day < BSE_OPENING:
                continue
            exchanges.append(exchange)
            cal_dates.append(day)
            is_open.append(int(open_))
            pretrade.append(previous)
            if open_:
                previous = day
    return build_table(
        "trade_cal",
        {"exchange": exchanges, "cal_date": cal_dates, "is_open": is_open, "pretrade_date": pretrade},
    )


class _BarLayout:
    """Flattens (stock, day) arrays to rows in (trade_date, ts_code) order, keeping only real bars."""

    def __init__(self, stocks: list[Stock], days: np.ndarray, has_bar: np.ndarray) -> None:
        self._mask = has_bar.T
        day_index, stock_index = np.nonzero(self._mask)
        codes = pa.array([s.ts_code for s in stocks], type=pa.string())
        self.ts_code = pa.DictionaryArray.from_arrays(pa.array(stock_index.astype(np.int32)), codes).cast(
            pa.string()
        )
        self.trade_date = pa.array(days[day_index])

    def values(self, array: np.ndarray) -> np.ndarray:
        return array.T[self._mask]


def _daily(stocks: list[Stock], days: np.ndarray, bars: Bars, volume: Volume) -> pa.Table:
    layout = _BarLayout(stocks, days, bars.has_bar)
    close, pre_close = layout.values(bars.close), layout.values(bars.pre_close)
    change = np.round(close - pre_close, 2)
    return build_table(
        "daily",
        {
            "ts_code": layout.ts_code,
            "trade_date": layout.trade_date,
            "open": layout.values(bars.open),
            "high": layout.values(bars.high),
            "low": layout.values(bars.low),
            "close": close,
            "pre_close": pre_close,
            "change": change,
            "pct_chg": np.round(change / pre_close * 100, 4),
            "vol": layout.values(volume.vol),
            "amount": layout.values(volume.amount),
        },
    )


def _daily_basic(
    stocks: list[Stock], days: np.ndarray, bars: Bars, volume: Volume, valuation: Valuation, shares: _Shares
) -> pa.Table:
    layout = _BarLayout(stocks, days, bars.has_bar)
    n_days = len(days)
    total_share = np.repeat(shares.total[:, None], n_days, axis=1)
    return build_table(
        "daily_basic",
        {
            "ts_code": layout.ts_code,
            "trade_date": layout.trade_date,
            "close": layout.values(bars.close),
            "turnover_rate": layout.values(volume.turnover_rate),
            "volume_ratio": nullable(layout.values(volume.volume_ratio)),
            "pe": nullable(layout.values(valuation.pe)),
            "pe_ttm": nullable(layout.values(valuation.pe_ttm)),
            "pb": nullable(layout.values(valuation.pb)),
            "ps": nullable(layout.values(valuation.ps)),
            "ps_ttm": nullable(layout.values(valuation.ps_ttm)),
            "dv_ratio": nullable(layout.values(valuation.dv_ratio)),
            "dv_ttm": nullable(layout.values(valuation.dv_ratio)),
            "total_share": layout.values(total_share),
            "float_share": layout.values(shares.floating),
            "total_mv": layout.values(valuation.total_mv),
            "circ_mv": layout.values(valuation.circ_mv),
        },
    )


def _stored_periods(reports: Reports, end: date) -> tuple[np.ndarray, np.ndarray]:
    """(stock index, period index) of reports that are stored: from 2019 annual, announced by `end`."""
    in_range = reports.end_dates >= np.datetime64(FIRST_STORED_PERIOD)
    announced = reports.ann_dates <= np.datetime64(end)
    stock_index, period_index = np.nonzero(announced & in_range[None, :])
    return stock_index, period_index


def _income(
    rng: np.random.Generator, stocks: list[Stock], reports: Reports, shares: _Shares, end: date
) -> pa.Table:
    s, p = _stored_periods(reports, end)
    profit = reports.profit_ytd[s, p]
    n_income = profit / reports.minority_factor[s]
    total_profit = np.where(n_income > 0, n_income / (1 - reports.tax_rate[s]), n_income)
    operate_profit = total_profit * rng.uniform(0.95, 1.03, len(s))
    revenue = reports.revenue_ytd[s, p]
    return build_table(
        "income",
        {
            "ts_code": [stocks[i].ts_code for i in s],
            "ann_date": reports.ann_dates[s, p],
            "end_date": reports.end_dates[p],
            "report_type": ["1"] * len(s),
            "total_revenue": np.round(revenue, 2),
            "revenue": np.round(revenue, 2),
            "operate_profit": np.round(operate_profit, 2),
            "total_profit": np.round(total_profit, 2),
            "n_income": np.round(n_income, 2),
            "n_income_attr_p": np.round(profit, 2),
            "basic_eps": np.round(profit / (shares.total[s] * 1e4), 4),
        },
    )


def _growth_pct(current: np.ndarray, previous: np.ndarray) -> np.ndarray:
    valid = previous != 0
    return np.where(
        valid, np.round((current - previous) / np.abs(np.where(valid, previous, 1.0)) * 100, 4), np.nan
    )


def _fina_indicator(stocks: list[Stock], reports: Reports, shares: _Shares, end: date) -> pa.Table:
    s, p = _stored_periods(reports, end)
    profit, revenue = reports.profit_ytd[s, p], reports.revenue_ytd[s, p]
    debt = reports.debt_to_assets[s, p]
    avg_equity = reports.avg_equity[s, p]
    avg_assets = avg_equity / (1 - debt / 100)
    return build_table(
        "fina_indicator",
        {
            "ts_code": [stocks[i].ts_code for i in s],
            "ann_date": reports.ann_dates[s, p],
            "end_date": reports.end_dates[p],
            "eps": np.round(profit / (shares.total[s] * 1e4), 4),
            "roe": nullable(np.round(profit / avg_equity * 100, 4)),
            "roa": nullable(np.round(profit / avg_assets * 100, 4)),
            "grossprofit_margin": nullable(np.round(reports.gross_margin[s, p], 4)),
            "netprofit_margin": nullable(np.round(profit / revenue * 100, 4)),
            "debt_to_assets": nullable(np.round(debt, 4)),
            "netprofit_yoy": nullable(_growth_pct(profit, reports.profit_ytd_prev[s, p])),
            "or_yoy": nullable(_growth_pct(revenue, reports.revenue_ytd_prev[s, p])),
        },
    )


def _index_basic() -> pa.Table:
    codes = list(INDEXES)
    return build_table(
        "index_basic",
        {
            "ts_code": codes,
            "name": [INDEXES[c][0] for c in codes],
            "fullname": [INDEXES[c][1] for c in codes],
            "market": [INDEX_FACTS[c][0] for c in codes],
            "publisher": [INDEX_FACTS[c][1] for c in codes],
            "base_date": [INDEX_FACTS[c][2] for c in codes],
            "base_point": [INDEX_FACTS[c][3] for c in codes],
            "list_date": [INDEX_FACTS[c][4] for c in codes],
        },
    )


def _index_weight(stocks: list[Stock], weights: WeightRows) -> pa.Table:
    return build_table(
        "index_weight",
        {
            "index_code": weights.index_code,
            "con_code": [stocks[i].ts_code for i in weights.con_index],
            "trade_date": weights.snapshot,
            "weight": weights.weight,
        },
    )


def _dataset_info(seed: int, n_stocks: int, days: np.ndarray) -> pa.Table:
    description = (
        f"SYNTHETIC A-share demo market (seed {seed}): {n_stocks} real A-share codes and names, "
        f"real listing dates and trading calendar; generated prices, valuations, reports and index "
        f"weights for {days[0]} .. {days[-1]}. Not real market data."
    )
    return build_table(
        "dataset_info",
        {
            "dataset": [DATASET],
            "synthetic": [1],
            "description": [description],
            "licence": [REFERENCE_LICENCE],
            "loaded_at": [datetime.now(UTC).replace(microsecond=0)],
        },
    )
