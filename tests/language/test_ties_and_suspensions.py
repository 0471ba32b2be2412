"""Technical screens on a small synthetic market in chdb: exact ties and long suspensions.

Prices have 2 decimals, so "close below its MA" or "a gain over 30%" meet exact mathematical ties
that float arithmetic tips either way; and moving averages / N-day highs use each stock's own last
N bars, however long it was suspended (semantic_model.yaml conventions).
"""

from __future__ import annotations

from datetime import date, timedelta

import pyarrow as pa
import pytest

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.market.store import MarketStore

TODAY = date(2025, 12, 31)
DAYS = 130  # more than 2N + 20 trading days, so a calendar cut of the old kind would apply

# Newest first: today's close 8.64 equals the mean of these last 20 closes exactly, while the float
# mean is 8.640000000000002; the bar before (8.78) is above its own MA 8.591.
TIE_CLOSES = [8.64, 8.78, 8.83, 8.59, 8.58, 8.38, 8.49, 8.57, 8.64, 8.64, 8.89, 8.99, 8.83, 8.76,
              8.83, 8.74, 8.67, 8.55, 8.53, 7.87, 7.66]  # fmt: skip


def _trading_days() -> list[date]:
    days: list[date] = []
    day = TODAY
    while len(days) < DAYS:
        if day.weekday() < 5:
            days.append(day)
        day -= timedelta(days=1)
    return days[::-1]


def _series(days: list[date]) -> dict[str, dict[date, float]]:
    """Close prices per stock; a stock without a bar on a day is suspended that day."""
    last = len(days) - 1
    tie = {day: 8.0 for day in days[: last - 20]}
    tie.update({days[last - k]: close for k, close in enumerate(TIE_CLOSES)})
    base = last - 20  # the base day of "近20个交易日" (the trading day 20 days before today)
    # suspended from bar 50 until today; a spike on bar 5 lies outside its last 20 bars
    suspended = {days[i]: (50.0 if i == 5 else round(10 + i * 0.01, 2)) for i in range(50)}
    suspended[days[last]] = 11.0
    return {
        "600001.SH": tie,
        "600002.SH": {day: 10.0 for day in days[:last]} | {days[last]: 9.0},  # crosses below
        "600003.SH": {day: round(10 + i * 0.01, 2) for i, day in enumerate(days)},  # rising
        "600004.SH": {day: 2.9 if i <= base else 3.77 for i, day in enumerate(days)},  # +30% exactly
        "600005.SH": {day: 2.9 if i <= base else 3.8 for i, day in enumerate(days)},  # +31.03%
        "300006.SZ": suspended,
    }


def _load_market(store: MarketStore) -> None:
    days = _trading_days()
    series = _series(days)
    codes = sorted(series)
    store.insert_arrow(
        "stock_basic",
        pa.table(
            {
                "ts_code": codes,
                "symbol": [code[:6] for code in codes],
                "name": [f"测试{index}" for index, _ in enumerate(codes)],
                "cnspell": [f"cs{index}" for index, _ in enumerate(codes)],
                "area": ["北京"] * len(codes),
                "industry": ["银行"] * len(codes),
                "market": ["创业板" if code.startswith("300") else "主板" for code in codes],
                "exchange": ["SZSE" if code.endswith(".SZ") else "SSE" for code in codes],
                "list_status": ["L"] * len(codes),
                "list_date": [date(2010, 1, 4)] * len(codes),
                "delist_date": pa.array([None] * len(codes), type=pa.date32()),
            }
        ),
    )
    bar_codes: list[str] = []
    bar_days: list[date] = []
    closes: list[float] = []
    pre: list[float] = []
    for code in codes:
        previous: float | None = None
        for day in days:
            if day not in series[code]:
                continue
            close = series[code][day]
            bar_codes.append(code)
            bar_days.append(day)
            closes.append(close)
            pre.append(previous if previous is not None else close)
            previous = close
    change = [round(c - p, 2) for c, p in zip(closes, pre, strict=True)]
    store.insert_arrow(
        "daily",
        pa.table(
            {
                "ts_code": bar_codes,
                "trade_date": bar_days,
                "open": closes,
                "high": closes,
                "low": closes,
                "close": closes,
                "pre_close": pre,
                "change": change,
                "pct_chg": [round(d / p * 100, 4) for d, p in zip(change, pre, strict=True)],
                "vol": [1000.0] * len(closes),
                "amount": [10000.0] * len(closes),
            }
        ),
    )


@pytest.fixture
def market(empty_store: MarketStore) -> tuple[MarketStore, LanguageContext]:
    _load_market(empty_store)
    return empty_store, LanguageContext.from_store(empty_store, today=TODAY)


def _screen(market: tuple[MarketStore, LanguageContext], question: str) -> set[str]:
    store, context = market
    translation = translate_question(question, context)
    assert translation.status == "ok", translation.message
    assert translation.sql is not None
    result = store.query(translation.sql)
    return {row[result.columns.index("ts_code")] for row in result.rows}


def test_the_tie_is_float_noise(market: tuple[MarketStore, LanguageContext]) -> None:
    store, _context = market
    mean = store.query(
        f"SELECT avg(close) FROM (SELECT close FROM {store.database}.daily WHERE ts_code = '600001.SH' "
        "ORDER BY trade_date DESC LIMIT 20)"
    ).rows[0][0]
    assert mean != 8.64 and round(mean, 6) == 8.64  # the premise of the tests below


def test_a_close_equal_to_its_ma_is_neither_above_nor_below(
    market: tuple[MarketStore, LanguageContext],
) -> None:
    crossed_below = _screen(market, "今日收盘价跌破20日均线的股票")
    above = _screen(market, "今日收盘价高于20日均线的股票")
    assert "600002.SH" in crossed_below and "600003.SH" in above  # the screens do find stocks
    assert "600001.SH" not in crossed_below | above


def test_a_gain_of_exactly_30_percent_is_not_more_than_30_percent(
    market: tuple[MarketStore, LanguageContext],
) -> None:
    gainers = _screen(market, "近20个交易日涨幅超过30%的股票")
    assert "600005.SH" in gainers
    assert "600004.SH" not in gainers


def test_a_long_suspension_keeps_the_stocks_own_last_bars(
    market: tuple[MarketStore, LanguageContext],
) -> None:
    # its last 20 bars end 80 trading days before today: the 20-day high and MA read those bars,
    # not a calendar slice (which would hold 1 bar) nor its whole history (which holds the spike)
    assert "300006.SZ" in _screen(market, "今日收盘价创20日新高的股票")
    assert "300006.SZ" in _screen(market, "今日收盘价高于20日均线的股票")
    assert "300006.SZ" not in _screen(market, "今日收盘价创60日新高的股票")  # the spike is in its last 60
