"""AKShare, the free source: the `akshare` package's functions mapped to the canonical tables.

AKShare scrapes public pages (the exchanges, CSI, Eastmoney, Sina) and answers with pandas DataFrames
whose columns are Chinese labels. This module turns them into rows with the canonical (Tushare)
column names and units; `runner` types, checks and writes them exactly as it does Tushare's.

Where the functions differ from Tushare's endpoints, and what that means for the rows:
- daily bars and valuations have no whole-market endpoint for a past trade date: they are fetched per
  stock over the planned window (`prepare`: two calls per listed stock, `stock_zh_a_hist` and
  `stock_value_em`), then served one trade date at a time;
- the stock list covers listed stocks only (SSE main board and STAR, SZSE A shares, BSE); `area` is
  empty and `industry` is the exchange's classification where its list gives one;
- income statements come from the whole-market per-period summaries (`stock_lrb_em`, `stock_yjbb_em`),
  which publish total operating revenue only (`revenue` = `total_revenue`; they differ for banks,
  insurers and brokers) and one net profit (`n_income` is the summary's 净利润);
- financial indicators lack ROA, net margin and debt-to-assets (NULL); P/S, dividend yields and the
  volume ratio of `daily_basic` are NULL too; a negative P/E (a loss) is NULL, as in Tushare;
- index weights are CSI's latest published snapshot (`index_stock_cons_weight_csindex`); indexes CSI
  does not publish (ChiNext 399006) get none.
Units: Eastmoney gives amounts in CNY and shares in shares; the contract wants turnover in thousand
CNY, market values in 10k CNY and shares in 10k shares.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from backend.domain.market.importers.tushare import cnspell
from backend.domain.market.sync.errors import SyncFailed
from backend.domain.market.sync.progress import Progress

Row = dict[str, Any]
AKSHARE_VERSION = "1.19.5"  # the version pinned in requirements.txt, whose column labels this maps

# Indexes whose constituent weights CSI publishes (the rest of the sync's indexes get none here).
CSI_WEIGHTED_INDEXES = ("000016", "000300")
# The calls that have to answer for every listed stock before a trade date can be served.
_BARS, _VALUES = "stock_zh_a_hist", "stock_value_em"


class Frame(Protocol):
    """What is used of a pandas DataFrame (this module needs no pandas import)."""

    @property
    def columns(self) -> Iterable[object]: ...

    def to_dict(self, orient: str) -> list[dict[str, Any]]: ...


class AkshareCall(Protocol):
    def __call__(self, function: str, arguments: Mapping[str, str]) -> Frame:
        """Call `akshare.<function>(**arguments)` (injected: tests answer from recorded frames)."""
        ...


def akshare_call() -> AkshareCall:
    """The installed package's functions, or a clear error naming what to install."""
    try:
        module = importlib.import_module("akshare")
    except ImportError as error:
        raise SyncFailed(
            f"install akshare to use this source (pip install akshare=={AKSHARE_VERSION}); "
            "or sync from Tushare with --source tushare"
        ) from error

    def call(function: str, arguments: Mapping[str, str]) -> Frame:
        frame: Frame = getattr(module, function)(**arguments)
        return frame

    return call


def yyyymmdd(day: date) -> str:
    return day.strftime("%Y%m%d")


def ts_code(symbol: object) -> str:
    """A six-digit A-share code with its exchange suffix (the lists give codes without one)."""
    code = str(symbol).strip().zfill(6)
    if code.startswith(("92", "4", "8")):
        return f"{code}.BJ"
    if code.startswith(("6", "9")):
        return f"{code}.SH"
    if code.startswith(("0", "2", "3")):
        return f"{code}.SZ"
    raise SyncFailed(f"AKShare returned {symbol!r}, which is not an A-share code")


def _day(value: object) -> date | None:
    """Dates arrive as datetime.date, pandas Timestamps or text (YYYY-MM-DD or YYYYMMDD)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip().replace("-", "")[:8]
    if not text or text.lower() in {"nat", "nan", "none"}:
        return None
    try:
        if len(text) != 8 or not text.isdigit():
            raise ValueError(text)
        return date(int(text[:4]), int(text[4:6]), int(text[6:]))
    except ValueError as error:
        raise SyncFailed(f"AKShare returned {value!r} where a date was expected") from error


def _text(value: object) -> str:
    """Text cells; pandas fills a missing one with NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def _number(value: object) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(str(value)) if not isinstance(value, int | float) else float(value)
    except ValueError as error:
        raise SyncFailed(f"AKShare returned {value!r} where a number was expected") from error
    return number if math.isfinite(number) else None


def _scaled(value: object, divisor: float) -> float | None:
    number = _number(value)
    return None if number is None else number / divisor


def _positive(value: object) -> float | None:
    """P/E of a loss-making company: the contract stores NULL, not a negative ratio."""
    number = _number(value)
    return number if number is not None and number > 0 else None


@dataclass
class _History:
    """Per-stock bars and valuations of one window, regrouped by trade date."""

    start: date
    end: date
    daily: dict[date, list[Row]] = field(default_factory=dict)
    daily_basic: dict[date, list[Row]] = field(default_factory=dict)


class AkshareSource:
    """Every table of the sync from AKShare; `call` runs one akshare function."""

    name = "akshare"
    dataset = "ashare_akshare"
    licence = (
        "Public web data fetched through AKShare (MIT) from the exchanges, CSI, Eastmoney and Sina "
        "under their terms of use; not redistributable"
    )

    def __init__(self, call: AkshareCall, progress: Progress | None = None) -> None:
        self._call = call
        self._progress = progress
        self._stocks: list[Row] | None = None
        self._calendar: list[date] | None = None
        self._windows: dict[str, tuple[date, date]] = {}
        self._history: _History | None = None
        self._reports: dict[tuple[str, date], list[Row]] = {}

    def _rows(self, function: str, *, unpublished_is_empty: bool = False, **arguments: str) -> list[Row]:
        try:
            frame = self._call(function, arguments)
        except SyncFailed:
            raise
        except TypeError as error:
            if unpublished_is_empty:
                return []
            raise SyncFailed(f"AKShare {function}({_shown(arguments)}) failed: {error!r}") from error
        except Exception as error:  # a scraper fails in many ways: name the call, keep the cause
            raise SyncFailed(f"AKShare {function}({_shown(arguments)}) failed: {error!r}") from error
        return [{str(key): value for key, value in row.items()} for row in frame.to_dict("records")]

    # --- stock list and calendar -------------------------------------------------------------------

    def stock_basic(self) -> list[Row]:
        if self._stocks is None:
            rows = [
                _listed(item, "证券代码", "证券简称", "上市日期", board, "SSE")
                for symbol, board in (("主板A股", "主板"), ("科创板", "科创板"))
                for item in self._rows("stock_info_sh_name_code", symbol=symbol)
            ]
            rows += [
                _listed(item, "A股代码", "A股简称", "A股上市日期", _text(item.get("板块")) or "主板", "SZSE")
                for item in self._rows("stock_info_sz_name_code", symbol="A股列表")
            ]
            rows += [
                _listed(item, "证券代码", "证券简称", "上市日期", "北交所", "BSE")
                for item in self._rows("stock_info_bj_name_code")
            ]
            self._stocks = rows
        return self._stocks

    def trade_cal(self, exchange: str, start: date, end: date) -> list[Row]:
        """Sina's A-share calendar (one for both exchanges); days after its last known day are left out."""
        if self._calendar is None:
            days = (_day(item.get("trade_date")) for item in self._rows("tool_trade_date_hist_sina"))
            self._calendar = sorted({day for day in days if day is not None})
        open_days = self._calendar
        if not open_days:
            raise SyncFailed("AKShare tool_trade_date_hist_sina returned no trading days")
        rows, previous = [], None
        open_set = set(open_days)
        for day in open_days:
            if day >= start:
                break
            previous = day
        for ordinal in range(start.toordinal(), min(end, open_days[-1]).toordinal() + 1):
            day = date.fromordinal(ordinal)
            is_open = day in open_set
            rows.append(
                {"exchange": exchange, "cal_date": day, "is_open": int(is_open), "pretrade_date": previous}
            )
            if is_open:
                previous = day
        return rows

    # --- daily tables: fetched per stock over the planned window -----------------------------------

    def prepare(self, table: str, days: Sequence[date]) -> None:
        if table in {"daily", "daily_basic"} and days:
            self._windows[table] = (min(days), max(days))

    def daily(self, day: date) -> list[Row]:
        return self._history_for("daily", day).daily.get(day, [])

    def daily_basic(self, day: date) -> list[Row]:
        return self._history_for("daily_basic", day).daily_basic.get(day, [])

    def _history_for(self, table: str, day: date) -> _History:
        start, end = self._windows.get(table, (day, day))
        if not start <= day <= end:
            start = end = day
        history = self._history
        if history is None or not (history.start <= start and end <= history.end):
            history = self._history = self._fetch_history(start, end)
        return history

    def _fetch_history(self, start: date, end: date) -> _History:
        history = _History(start, end)
        stocks = [row for row in self.stock_basic() if row["list_date"] is None or row["list_date"] <= end]
        for done, stock in enumerate(stocks, start=1):
            symbol, code = stock["symbol"], stock["ts_code"]
            bars = self._rows(
                _BARS,
                symbol=symbol,
                period="daily",
                start_date=yyyymmdd(start),
                end_date=yyyymmdd(end),
                adjust="",
            )
            turnover: dict[date, object] = {}
            for bar in bars:
                day = _day(bar.get("日期"))
                if day is not None and start <= day <= end:
                    history.daily.setdefault(day, []).append(_bar(code, day, bar))
                    turnover[day] = bar.get("换手率")
            for value in self._rows(_VALUES, symbol=symbol):
                day = _day(value.get("数据日期"))
                if day is not None and start <= day <= end:
                    history.daily_basic.setdefault(day, []).append(
                        _valuation(code, day, value, turnover.get(day))
                    )
            if self._progress is not None:
                self._progress.step(done, len(stocks), f"AKShare history {start}..{end} {code}")
        if self._progress is not None:
            self._progress.finish()
        return history

    # --- report periods ----------------------------------------------------------------------------

    def income(self, period: date) -> list[Row]:
        summary = {ts_code(item["股票代码"]): item for item in self._report("stock_lrb_em", period)}
        rows = []
        for performance in self._report("stock_yjbb_em", period):
            code = ts_code(performance["股票代码"])
            statement = summary.get(code)
            if statement is None:
                continue
            revenue = _number(statement.get("营业总收入"))
            rows.append(
                {
                    "ts_code": code,
                    "ann_date": _day(statement.get("公告日期")) or _day(performance.get("最新公告日期")),
                    "end_date": period,
                    "report_type": "1",
                    "total_revenue": revenue,
                    "revenue": revenue,
                    "operate_profit": _number(statement.get("营业利润")),
                    "total_profit": _number(statement.get("利润总额")),
                    "n_income": _number(statement.get("净利润")),
                    "n_income_attr_p": _number(performance.get("净利润-净利润")),
                    "basic_eps": _number(performance.get("每股收益")),
                }
            )
        return rows

    def fina_indicator(self, period: date) -> list[Row]:
        return [
            {
                "ts_code": ts_code(item["股票代码"]),
                "ann_date": _day(item.get("最新公告日期")),
                "end_date": period,
                "eps": _number(item.get("每股收益")),
                "roe": _number(item.get("净资产收益率")),
                "grossprofit_margin": _number(item.get("销售毛利率")),
                "netprofit_yoy": _number(item.get("净利润-同比增长")),
                "or_yoy": _number(item.get("营业总收入-同比增长")),
            }
            for item in self._report("stock_yjbb_em", period)
        ]

    def _report(self, function: str, period: date) -> list[Row]:
        """One period's whole-market summary, cached (income and indicators share `stock_yjbb_em`).

        Before the first company reports a period, these functions subscript the reply's empty
        result and raise TypeError: that is "nothing published yet", not a failure.
        """
        key = (function, period)
        if key not in self._reports:
            self._reports[key] = self._rows(function, unpublished_is_empty=True, date=yyyymmdd(period))
        return self._reports[key]

    # --- index weights -----------------------------------------------------------------------------

    def index_weight(self, index_code: str, start: date, end: date) -> list[Row]:
        symbol = index_code.split(".")[0]
        if symbol not in CSI_WEIGHTED_INDEXES:
            return []
        rows = []
        for item in self._rows("index_stock_cons_weight_csindex", symbol=symbol):
            day = _day(item.get("日期"))
            if day is not None and start <= day <= end:
                rows.append(
                    {
                        "index_code": index_code,
                        "con_code": ts_code(item["成分券代码"]),
                        "trade_date": day,
                        "weight": _number(item.get("权重")),
                    }
                )
        return rows


def _shown(arguments: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in arguments.items())


def _listed(item: Row, code: str, name: str, listed: str, board: str, exchange: str) -> Row:
    short_name = _text(item.get(name)).replace(" ", "")
    symbol = str(item[code]).strip().zfill(6)
    return {
        "ts_code": ts_code(symbol),
        "symbol": symbol,
        "name": short_name,
        "cnspell": cnspell(short_name),
        "area": "",
        "industry": _text(item.get("所属行业")),
        "market": board,
        "exchange": exchange,
        "list_status": "L",
        "list_date": _day(item.get(listed)),
        "delist_date": None,
    }


def _bar(code: str, day: date, bar: Row) -> Row:
    close, change = _number(bar.get("收盘")), _number(bar.get("涨跌额"))
    return {
        "ts_code": code,
        "trade_date": day,
        "open": _number(bar.get("开盘")),
        "high": _number(bar.get("最高")),
        "low": _number(bar.get("最低")),
        "close": close,
        "pre_close": None if close is None or change is None else round(close - change, 4),
        "change": change,
        "pct_chg": _number(bar.get("涨跌幅")),
        "vol": _number(bar.get("成交量")),  # lots of 100 shares, as in the contract
        "amount": _scaled(bar.get("成交额"), 1_000),  # CNY -> thousand CNY
    }


def _valuation(code: str, day: date, value: Row, turnover: object) -> Row:
    return {
        "ts_code": code,
        "trade_date": day,
        "close": _number(value.get("当日收盘价")),
        "turnover_rate": _number(turnover),
        "volume_ratio": None,
        "pe": _positive(value.get("PE(静)")),
        "pe_ttm": _positive(value.get("PE(TTM)")),
        "pb": _number(value.get("市净率")),
        "ps": None,
        "ps_ttm": _number(value.get("市销率")),
        "dv_ratio": None,
        "dv_ttm": None,
        "total_share": _scaled(value.get("总股本"), 10_000),  # shares -> 10k shares
        "float_share": _scaled(value.get("流通股本"), 10_000),
        "total_mv": _scaled(value.get("总市值"), 10_000),  # CNY -> 10k CNY
        "circ_mv": _scaled(value.get("流通市值"), 10_000),
    }
