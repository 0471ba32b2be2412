"""The real S&P 500 set (us_sp500: daily bars 2012-08..2017-08, constituents, financial snapshot).

Conventions kept from the A-share contract (documented in the dataset_info row):
- ts_code is `<TICKER>.US`, market 'US', industry = GICS sector from constituents.csv.
- exchange: NASDAQ for tickers in the curated NASDAQ_TICKERS list below, NYSE otherwise. The files
  do not say where a company is listed; the list holds S&P 500 members known to be NASDAQ-listed in
  2012-2017, and a few others may be mislabelled NYSE.
- list_date is the first bar in the price file (the files have no listing dates): a lower bound.
- vol is in lots of 100 shares (shares / 100); amount in thousand USD = close x shares / 1000
  (the file has no turnover or VWAP).
- pre_close is the previous bar's close of the same ticker; the first bar of each ticker has none
  and is dropped, and so are bars with missing prices (the file has them on one day).
- daily_basic applies the financial snapshot (one date, about 2017-2018) to every bar: total shares =
  market cap / snapshot price (constant), pe = close / EPS (NULL when EPS <= 0), pb = close / (book
  value per share), ps = close / (sales per share), dv_ratio from the snapshot dividend per share;
  float_share = total_share (no float data); volume_ratio is NULL. Tickers absent from the snapshot
  have no daily_basic rows. No income/fina_indicator: the set has no statements.
- trade_cal for NYSE and NASDAQ from the file's own dates: open when the file has bars that day.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from backend.domain.market.errors import ImportRejected
from backend.domain.market.importers.loading import build_table, insert_table, nullable
from backend.domain.market.importers.tushare import check_duplicate_keys, check_not_in_store
from backend.domain.market.schema import TABLES_BY_NAME
from backend.domain.market.store import MarketStore

DATASET = "us_sp500"
PRICES_FILE = "all_stocks_5yr.csv.gz"
CONSTITUENTS_FILE = "constituents.csv"
FINANCIALS_FILE = "constituents-financials.csv"
LICENCE = (
    "Daily prices: CNuge/kaggle-code individual_stocks_5yr (MIT, (c) 2017 Cam Nugent; the Kaggle dataset "
    "lists CC0). constituents.csv and constituents-financials.csv: datasets/s-and-p-500-companies and "
    "s-and-p-500-companies-financials (ODC-PDDL-1.0)."
)

NASDAQ_TICKERS: frozenset[str] = frozenset(
    """AAL AAPL ADBE ADI ADP ADSK AKAM ALGN ALXN AMAT AMGN AMZN ANSS ATVI AVGO BBBY BIIB CA CDNS CELG CERN
    CHRW CHTR CINF CMCSA CME COST CSCO CSX CTAS CTSH CTXS DISCA DISCK DISH DLTR EA EBAY EQIX ESRX ETFC EXPD
    EXPE FAST FB FISV FITB FLIR FOX FOXA GILD GOOG GOOGL GRMN HAS HBAN HOLX HSIC IDXX ILMN INCY INTC INTU
    ISRG JBHT KHC KLAC LBTYA LBTYK LKQ LRCX MAR MAT MCHP MDLZ MNST MSFT MU MYL NAVI NDAQ NFLX NTAP NTRS NVDA
    NWS NWSA ORLY PAYX PCAR PCLN PFG PYPL QCOM QRVO REGN ROST SBAC SBUX SNPS SRCL STX SWKS SYMC TRIP TROW
    TSCO TXN ULTA VIAB VRSK VRSN VRTX WBA WDC WLTW WYNN XLNX XRAY ZION""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Sp500Summary:
    rows: dict[str, int]
    tickers: int
    source_bars: int
    dropped_incomplete: int  # bars with a missing price
    dropped_first_bars: int  # first bar per ticker: no previous close
    warnings: list[str] = field(default_factory=list)


def _read_csv(path: Path) -> pa.Table:
    if not path.is_file():
        raise ImportRejected(f"{path}: no such file (is --path the us_sp500 folder?)")
    try:
        return pacsv.read_csv(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise ImportRejected(f"{path}: the file cannot be read: {error}") from error


def _require(table: pa.Table, path: Path, columns: list[str]) -> None:
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise ImportRejected(f"{path}: required columns missing: {', '.join(missing)}")


def _by_symbol(table: pa.Table, column: str) -> dict[str, object]:
    return dict(zip(table.column("Symbol").to_pylist(), table.column(column).to_pylist(), strict=True))


@dataclass(frozen=True)
class _Bars:
    table: pa.Table  # Name, Date, Open, High, Low, Close, Volume, PreClose; sorted by Name, Date
    first_dates: pa.Table  # Name, Date_min: each ticker's first complete bar (the dropped one)
    session_dates: list[date]  # every date of the source file, incomplete bars included
    source_rows: int
    dropped_incomplete: int
    dropped_first: int


def _bars(path: Path) -> _Bars:
    raw = _read_csv(path)
    price_columns = ["Open", "High", "Low", "Close", "Volume"]
    _require(raw, path, ["Date", "Name", *price_columns])
    complete = raw.filter(_all_valid(raw, price_columns))
    ordered = complete.sort_by([("Name", "ascending"), ("Date", "ascending")])
    names = ordered.column("Name").to_numpy(zero_copy_only=False)
    close = ordered.column("Close").to_numpy().astype(float)
    first = np.concatenate([[True], names[1:] != names[:-1]])
    pre_close = np.concatenate([[np.nan], close[:-1]])
    with_previous = ordered.append_column("PreClose", pa.array(pre_close)).filter(pa.array(~first))
    return _Bars(
        table=with_previous,
        first_dates=ordered.group_by("Name").aggregate([("Date", "min")]).sort_by("Name"),
        session_dates=sorted(pc.unique(raw.column("Date")).to_pylist()),
        source_rows=raw.num_rows,
        dropped_incomplete=raw.num_rows - complete.num_rows,
        dropped_first=int(first.sum()),
    )


def _all_valid(table: pa.Table, columns: list[str]) -> pa.Array:
    mask = pc.is_valid(table.column(columns[0]))
    for column in columns[1:]:
        mask = pc.and_(mask, pc.is_valid(table.column(column)))
    return mask


def repeated_series_warning(bars: pa.Table) -> str | None:
    """The shipped price file can repeat one series under every ticker; say so rather than hide it."""
    tickers = len(pc.unique(bars.column("Name")))
    per_date = bars.group_by("Date").aggregate([("Close", "count_distinct")])
    if tickers > 1 and pc.max(per_date.column("Close_count_distinct")).as_py() == 1:
        return (
            f"the price file gives the same OHLCV series under all {tickers} tickers (one distinct close per "
            "date): the bars are not per-company prices"
        )
    return None


def _stock_basic(bars: _Bars, constituents: pa.Table, financials: pa.Table) -> pa.Table:
    first_days = bars.first_dates
    tickers = first_days.column("Name").to_pylist()
    security = _by_symbol(financials, "Name") | _by_symbol(constituents, "Security")
    sector = _by_symbol(constituents, "GICS Sector")
    location = _by_symbol(constituents, "Headquarters Location")

    def area(ticker: str) -> str:
        place = str(location.get(ticker) or "")
        return place.rsplit(",", 1)[-1].strip()

    return build_table(
        "stock_basic",
        {
            "ts_code": [f"{t}.US" for t in tickers],
            "symbol": tickers,
            "name": [str(security.get(t) or t) for t in tickers],
            "cnspell": [t.lower() for t in tickers],
            "area": [area(t) for t in tickers],
            "industry": [str(sector.get(t) or "Unknown") for t in tickers],
            "market": ["US"] * len(tickers),
            "exchange": ["NASDAQ" if t in NASDAQ_TICKERS else "NYSE" for t in tickers],
            "list_status": ["L"] * len(tickers),
            "list_date": first_days.column("Date_min"),
            "delist_date": pa.nulls(len(tickers), pa.date32()),
        },
    )


def _trade_cal(sessions: list[date]) -> pa.Table:
    """NYSE and NASDAQ calendars as the price file shows them: a day is open when it has bars."""
    open_days = set(sessions)
    exchanges, cal_dates, is_open, pretrade = [], [], [], []
    for exchange in ("NYSE", "NASDAQ"):
        previous: date | None = None
        day = sessions[0]
        while day <= sessions[-1]:
            exchanges.append(exchange)
            cal_dates.append(day)
            is_open.append(int(day in open_days))
            pretrade.append(previous)
            if day in open_days:
                previous = day
            day += timedelta(days=1)
    return build_table(
        "trade_cal",
        {"exchange": exchanges, "cal_date": cal_dates, "is_open": is_open, "pretrade_date": pretrade},
    )


def _daily(bars: pa.Table) -> pa.Table:
    close = bars.column("Close").to_numpy().astype(float)
    pre_close = bars.column("PreClose").to_numpy()
    shares = bars.column("Volume").to_numpy().astype(float)
    change = np.round(close - pre_close, 4)
    return build_table(
        "daily",
        {
            "ts_code": pc.binary_join_element_wise(bars.column("Name"), ".US", ""),
            "trade_date": bars.column("Date"),
            "open": bars.column("Open"),
            "high": bars.column("High"),
            "low": bars.column("Low"),
            "close": close,
            "pre_close": pre_close,
            "change": change,
            "pct_chg": np.round(change / pre_close * 100, 4),
            "vol": shares / 100,
            "amount": np.round(close * shares / 1000, 3),
        },
    )


def _positive(values: np.ndarray) -> np.ndarray:
    return np.where(values > 0, values, np.nan)


def _daily_basic(bars: pa.Table, financials: pa.Table) -> pa.Table:
    snapshot = {
        column: _by_symbol(financials, column)
        for column in ("Price", "Market Cap", "Earnings/Share", "Price/Book", "Price/Sales", "Dividend Yield")
    }
    names = bars.column("Name").to_numpy(zero_copy_only=False)

    def per_bar(column: str) -> np.ndarray:
        lookup = snapshot[column]
        return np.array([np.nan if lookup.get(n) is None else float(lookup[n]) for n in names])  # type: ignore[arg-type]

    price, cap = per_bar("Price"), per_bar("Market Cap")
    covered = (price > 0) & (cap > 0)
    rows = bars.filter(pa.array(covered))
    price, cap = price[covered], cap[covered]
    close = rows.column("Close").to_numpy().astype(float)
    lots = rows.column("Volume").to_numpy().astype(float) / 100
    total_share = cap / price / 1e4  # 10k shares
    book_per_share = price / _positive(per_bar("Price/Book")[covered])
    sales_per_share = price / _positive(per_bar("Price/Sales")[covered])
    dividend_per_share = np.nan_to_num(per_bar("Dividend Yield")[covered]) * price
    pe = np.round(close / _positive(per_bar("Earnings/Share")[covered]), 4)
    ps = np.round(close / sales_per_share, 4)
    return build_table(
        "daily_basic",
        {
            "ts_code": pc.binary_join_element_wise(rows.column("Name"), ".US", ""),
            "trade_date": rows.column("Date"),
            "close": close,
            "turnover_rate": np.round(lots / total_share, 4),
            "volume_ratio": pa.nulls(rows.num_rows, pa.float64()),
            "pe": nullable(pe),
            "pe_ttm": nullable(pe),
            "pb": nullable(np.round(close / book_per_share, 4)),
            "ps": nullable(ps),
            "ps_ttm": nullable(ps),
            "dv_ratio": nullable(np.round(dividend_per_share / close * 100, 4)),
            "dv_ttm": nullable(np.round(dividend_per_share / close * 100, 4)),
            "total_share": np.round(total_share, 4),
            "float_share": np.round(total_share, 4),
            "total_mv": np.round(close * total_share, 4),
            "circ_mv": np.round(close * total_share, 4),
        },
    )


def _dataset_info(summary_text: str) -> pa.Table:
    return build_table(
        "dataset_info",
        {
            "dataset": [DATASET],
            "synthetic": [0],
            "description": [summary_text],
            "licence": [LICENCE],
            "loaded_at": [datetime.now(UTC).replace(microsecond=0)],
        },
    )


def import_sp500(store: MarketStore, directory: Path) -> Sp500Summary:
    """Validate and convert the whole set, then insert every table; a refusal writes nothing."""
    constituents = _read_csv(directory / CONSTITUENTS_FILE)
    _require(constituents, directory / CONSTITUENTS_FILE, ["Symbol", "Security", "GICS Sector"])
    financials = _read_csv(directory / FINANCIALS_FILE)
    _require(
        financials,
        directory / FINANCIALS_FILE,
        [
            "Symbol",
            "Name",
            "Price",
            "Market Cap",
            "Earnings/Share",
            "Price/Book",
            "Price/Sales",
            "Dividend Yield",
        ],
    )
    bars = _bars(directory / PRICES_FILE)
    warning = repeated_series_warning(bars.table)
    warnings = [warning] if warning else []
    tickers = len(pc.unique(bars.table.column("Name")))
    description = (
        f"REAL US market data: {tickers} S&P 500 tickers, daily bars "
        f"{pc.min(bars.table.column('Date')).as_py()} .. {pc.max(bars.table.column('Date')).as_py()} "
        f"({bars.dropped_incomplete} bars with missing prices and the first bar of each ticker dropped); "
        "valuations from a single financial snapshot. " + " ".join(f"WARNING: {w}." for w in warnings)
    ).strip()
    tables = {
        "stock_basic": _stock_basic(bars, constituents, financials),
        "trade_cal": _trade_cal(bars.session_dates),
        "daily": _daily(bars.table),
        "daily_basic": _daily_basic(bars.table, financials),
        "dataset_info": _dataset_info(description),
    }
    for name, rows in tables.items():
        check_duplicate_keys(TABLES_BY_NAME[name], rows)
        check_not_in_store(store, TABLES_BY_NAME[name], rows)
    inserted = {name: insert_table(store, name, rows) for name, rows in tables.items()}
    return Sp500Summary(
        rows=inserted,
        tickers=tickers,
        source_bars=bars.source_rows,
        dropped_incomplete=bars.dropped_incomplete,
        dropped_first_bars=bars.dropped_first,
        warnings=warnings,
    )
