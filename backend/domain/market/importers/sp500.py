"""The real S&P 500 reference set: company list + one valuation snapshot, and optionally your prices.

Bundled in `backend/domain/market/reference/us_sp500/` (ODC-PDDL-1.0; see SOURCE.txt there):
`constituents.csv` (the company list) and `constituents-financials.csv` (one snapshot of price, market
cap, trailing P/E, P/B, P/S, dividend yield). No daily prices are bundled: the price file that usually
travels with this material repeats one OHLCV series under every ticker. A price file you supply
(`prices=`) is loaded only after a check that refuses tickers sharing one series.

Conventions (also written into the dataset_info row):
- ts_code is `<TICKER>.US`, market 'US', industry = GICS sector, area = the state or country of the
  headquarters.
- exchange: NASDAQ for tickers in the curated NASDAQ_TICKERS list below, NYSE otherwise. The files do
  not say where a company is listed, so a company missing from the list may be mislabelled NYSE.
- list_date: the day the company joined the index ("Date added"), or the first bar of a supplied price
  file when that is earlier. Both are upper bounds: the company was listed on or before that day.
  Days before 1970-01-01 (the founding members joined in 1957) are stored as 1970-01-01, ClickHouse's
  first Date, which is still an upper bound.
- daily_basic: one row per company of the list that has a price and a market cap in the snapshot,
  filed under `as_of` (the file carries no date; default SNAPSHOT_AS_OF, the day it was bundled).
  close = snapshot price (USD); pe = pe_ttm = trailing P/E (NULL when the snapshot has none, i.e. for
  losses); pb = P/B (NULL when book value is negative); ps = ps_ttm = trailing P/S;
  dv_ratio = dv_ttm = dividend yield in %; total_share = market cap / price in 10k shares;
  total_mv = market cap in 10k USD; float_share and circ_mv equal the totals (no float data);
  dv_ratio is 0 when the snapshot has no yield (Yahoo gives none for non-payers); turnover_rate is NaN
  and volume_ratio NULL (no volume in a snapshot).
- Supplied prices (layout Date, Open, High, Low, Close, Volume, Name; .csv or .csv.gz): daily bars for
  tickers of the company list (others are skipped and counted), vol in lots of 100 shares, amount in
  thousand USD = close x shares / 1000 (no turnover in the file); pre_close is the previous bar's close,
  so each ticker's first bar and bars with a missing price are dropped; trade_cal for NYSE and NASDAQ
  from the file's own dates (open when the file has bars that day).
- No income / fina_indicator: the set has no statements.
"""

from __future__ import annotations

import hashlib
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
REFERENCE_DIR = Path(__file__).resolve().parent.parent / "reference" / "us_sp500"
CONSTITUENTS_FILE = "constituents.csv"
FINANCIALS_FILE = "constituents-financials.csv"
EARLIEST_DATE = date(1970, 1, 1)  # ClickHouse's first Date; the index itself dates from 1957
SNAPSHOT_AS_OF = date(2026, 12, 1)  # the day the undated snapshot was bundled: it is no newer
SAME_SERIES_MIN_BARS = 20  # two companies with this many identical bars are one series copied
LICENCE = (
    "constituents.csv and constituents-financials.csv: datasets/s-and-p-500-companies and "
    "s-and-p-500-companies-financials, ODC-PDDL-1.0 (public domain dedication). Figures collected by the "
    "publisher from Wikipedia and Yahoo Finance."
)
PRICES_COLUMNS = ["Date", "Open", "High", "Low", "Close", "Volume", "Name"]

NASDAQ_TICKERS: frozenset[str] = frozenset(
    """AAL AAPL ADBE ADI ADP ADSK AKAM ALGN ALXN AMAT AMD AMGN AMZN ANSS APP ATVI AVGO AXON BBBY BIIB BKNG CA
    CDNS CEG CELG CERN CHRW CHTR CINF CMCSA CME COIN COST CPRT CRWD CSCO CSGP CSX CTAS CTSH CTXS DDOG DISCA
    DISCK DISH DLTR DXCM EA EBAY ENPH EQIX ESRX ETFC EXPD EXPE FANG FAST FB FISV FITB FLIR FOX FOXA FTNT
    GEHC GILD GOOG GOOGL GRMN HAS HBAN HOLX HON HSIC IDXX ILMN INCY INTC INTU ISRG JBHT KDP KHC KLAC LBTYA
    LBTYK LIN LKQ LRCX LULU MAR MAT MCHP MDLZ META MNST MPWR MRNA MSFT MU MYL NAVI NDAQ NFLX NTAP NTRS NVDA
    NWS NWSA NXPI ODFL ON ORLY PANW PAYX PCAR PCLN PEP PFG PLTR PODD PYPL QCOM QRVO REGN ROST SBAC SBUX SMCI
    SNPS SRCL STX SWKS SYMC TER TMUS TRIP TROW TSCO TSLA TTWO TXN ULTA VIAB VRSK VRSN VRTX WBA WBD WDAY WDC
    WLTW WYNN XLNX XRAY ZION""".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class PriceSummary:
    source_bars: int
    tickers: int  # tickers of the price file loaded (those in the company list)
    skipped_tickers: int  # tickers of the price file not in the company list
    dropped_incomplete: int  # bars with a missing price
    dropped_first_bars: int  # first bar per loaded ticker: no previous close
    first_date: date
    last_date: date


@dataclass(frozen=True)
class Sp500Summary:
    rows: dict[str, int]
    companies: int
    snapshot_as_of: date
    snapshot_rows: int
    snapshot_skipped: int  # companies of the list without a price or market cap in the snapshot
    prices: PriceSummary | None = None
    notes: list[str] = field(default_factory=list)


def _read_csv(path: Path) -> pa.Table:
    if not path.is_file():
        raise ImportRejected(f"{path}: no such file")
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


# --- company list and snapshot ---------------------------------------------------------------------


def _companies(path: Path) -> pa.Table:
    constituents = _read_csv(path)
    _require(constituents, path, ["Symbol", "Security", "GICS Sector", "Headquarters Location", "Date added"])
    symbols = constituents.column("Symbol").to_pylist()
    if any(not symbol for symbol in symbols):
        raise ImportRejected(f"{path}: a row has no Symbol")
    if constituents.column("Date added").null_count:
        raise ImportRejected(f"{path}: every company needs a 'Date added' (YYYY-MM-DD)")
    added = constituents.column("Date added")
    if not pa.types.is_date(added.type):
        raise ImportRejected(f"{path}: 'Date added' must be dates (YYYY-MM-DD), found {added.type}")
    return constituents


def _stock_basic(constituents: pa.Table, first_bars: dict[str, date]) -> pa.Table:
    tickers = [str(t) for t in constituents.column("Symbol").to_pylist()]
    added = constituents.column("Date added").cast(pa.date32()).to_pylist()
    locations = constituents.column("Headquarters Location").to_pylist()

    def area(place: object) -> str:
        return str(place or "").rsplit(",", 1)[-1].strip()

    def listed(ticker: str, joined: date) -> date:
        first = first_bars.get(ticker)
        return max(EARLIEST_DATE, min(joined, first) if first else joined)

    return build_table(
        "stock_basic",
        {
            "ts_code": [f"{t}.US" for t in tickers],
            "symbol": tickers,
            "name": [str(s) for s in constituents.column("Security").to_pylist()],
            "cnspell": [t.lower() for t in tickers],
            "area": [area(place) for place in locations],
            "industry": [str(s or "Unknown") for s in constituents.column("GICS Sector").to_pylist()],
            "market": ["US"] * len(tickers),
            "exchange": ["NASDAQ" if t in NASDAQ_TICKERS else "NYSE" for t in tickers],
            "list_status": ["L"] * len(tickers),
            "list_date": [listed(t, d) for t, d in zip(tickers, added, strict=True)],
            "delist_date": pa.nulls(len(tickers), pa.date32()),
        },
    )


def _snapshot_column(financials: pa.Table, column: str, tickers: list[str]) -> np.ndarray:
    lookup = _by_symbol(financials, column)
    return np.array(
        [np.nan if lookup.get(t) is None else float(lookup[t]) for t in tickers],  # type: ignore[arg-type]
        dtype=float,
    )


def _positive(values: np.ndarray) -> np.ndarray:
    return np.where(values > 0, values, np.nan)


def _daily_basic(financials: pa.Table, companies: list[str], as_of: date) -> tuple[pa.Table, int]:
    """One row per listed company with a price and a market cap; also the number left out."""
    listed = set(companies)
    tickers = [str(t) for t in financials.column("Symbol").to_pylist() if t in listed]
    price = _snapshot_column(financials, "Price", tickers)
    cap = _snapshot_column(financials, "Market Cap", tickers)
    covered = (price > 0) & (cap > 0)
    kept = [t for t, keep in zip(tickers, covered, strict=True) if keep]
    price, cap = price[covered], cap[covered]

    def column(name: str) -> np.ndarray:
        return _snapshot_column(financials, name, tickers)[covered]

    total_share = cap / price / 1e4  # 10k shares
    total_mv = cap / 1e4  # 10k USD
    pe = _positive(column("Price/Earnings"))
    ps = _positive(column("Price/Sales"))
    dividend = np.round(np.nan_to_num(column("Dividend Yield")) * 100, 4)  # a fraction in the file
    rows = len(kept)
    table = build_table(
        "daily_basic",
        {
            "ts_code": [f"{t}.US" for t in kept],
            "trade_date": [as_of] * rows,
            "close": price,
            "turnover_rate": np.full(rows, np.nan),
            "volume_ratio": pa.nulls(rows, pa.float64()),
            "pe": nullable(np.round(pe, 4)),
            "pe_ttm": nullable(np.round(pe, 4)),
            "pb": nullable(np.round(_positive(column("Price/Book")), 4)),
            "ps": nullable(np.round(ps, 4)),
            "ps_ttm": nullable(np.round(ps, 4)),
            "dv_ratio": dividend,
            "dv_ttm": dividend,
            "total_share": np.round(total_share, 4),
            "float_share": np.round(total_share, 4),
            "total_mv": np.round(total_mv, 4),
            "circ_mv": np.round(total_mv, 4),
        },
    )
    return table, len(companies) - rows


# --- supplied prices -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Bars:
    table: pa.Table  # Name, Date, Open, High, Low, Close, Volume, PreClose; sorted by Name, Date
    first_dates: dict[str, date]  # each loaded ticker's first complete bar (the dropped one)
    session_dates: list[date]  # every date of the source file, incomplete bars included
    summary: PriceSummary


def _all_valid(table: pa.Table, columns: list[str]) -> pa.Array:
    mask = pc.is_valid(table.column(columns[0]))
    for column in columns[1:]:
        mask = pc.and_(mask, pc.is_valid(table.column(column)))
    return mask


def shared_series(bars: pa.Table, min_bars: int = SAME_SERIES_MIN_BARS) -> list[list[str]]:
    """Groups of tickers that carry the very same OHLCV series (same dates, every value equal).

    Two companies never print identical bars for weeks; when they do, one series was copied under
    several tickers (the defect of the widely shared `all_stocks_5yr.csv`). Tickers with fewer than
    `min_bars` bars are not compared.
    """
    ordered = bars.sort_by([("Name", "ascending"), ("Date", "ascending")])
    names = ordered.column("Name").to_numpy(zero_copy_only=False)
    values = np.column_stack(
        [ordered.column("Date").cast(pa.int32()).to_numpy().astype(float)]
        + [ordered.column(c).to_numpy().astype(float) for c in ("Open", "High", "Low", "Close", "Volume")]
    )
    starts = np.flatnonzero(np.concatenate([[True], names[1:] != names[:-1]]))
    ends = np.append(starts[1:], len(names))
    groups: dict[str, list[str]] = {}
    for start, end in zip(starts, ends, strict=True):
        if end - start >= min_bars:
            digest = hashlib.sha256(np.ascontiguousarray(values[start:end]).tobytes()).hexdigest()
            groups.setdefault(digest, []).append(str(names[start]))
    return sorted((sorted(group) for group in groups.values() if len(group) > 1), key=lambda g: (-len(g), g))


def _refuse_shared_series(bars: pa.Table, path: Path) -> None:
    groups = shared_series(bars)
    if not groups:
        return
    copied = sum(len(group) for group in groups)
    tickers = len(pc.unique(bars.column("Name")))
    example = ", ".join(groups[0][:6]) + (", …" if len(groups[0]) > 6 else "")
    raise ImportRejected(
        f"{path}: {copied} of {tickers} tickers carry the same OHLCV series as another ticker "
        f"(e.g. {example} share one series bar for bar): these are not per-company prices; nothing was "
        "imported"
    )


def _bars(path: Path, companies: set[str]) -> _Bars:
    raw = _read_csv(path)
    _require(raw, path, PRICES_COLUMNS)
    if not pa.types.is_date(raw.column("Date").type):
        raise ImportRejected(f"{path}: Date must be a date (YYYY-MM-DD), found {raw.column('Date').type}")
    if raw.num_rows == 0:
        raise ImportRejected(f"{path}: the file has no bars")
    price_columns = ["Open", "High", "Low", "Close", "Volume"]
    complete = raw.filter(_all_valid(raw, price_columns))
    _refuse_shared_series(complete, path)
    in_list = complete.filter(pc.is_in(complete.column("Name"), pa.array(sorted(companies))))
    ordered = in_list.sort_by([("Name", "ascending"), ("Date", "ascending")])
    names = ordered.column("Name").to_numpy(zero_copy_only=False)
    close = ordered.column("Close").to_numpy().astype(float)
    first = np.concatenate([[True], names[1:] != names[:-1]]) if len(names) else np.array([], bool)
    pre_close = np.concatenate([[np.nan], close[:-1]]) if len(names) else np.array([], float)
    with_previous = ordered.append_column("PreClose", pa.array(pre_close, pa.float64())).filter(
        pa.array(~first)
    )
    first_dates = ordered.filter(pa.array(first))
    file_tickers = set(pc.unique(complete.column("Name")).to_pylist())
    span = pc.min_max(raw.column("Date"))
    return _Bars(
        table=with_previous,
        first_dates=dict(
            zip(first_dates.column("Name").to_pylist(), first_dates.column("Date").to_pylist(), strict=True)
        ),
        session_dates=sorted(pc.unique(raw.column("Date")).to_pylist()),
        summary=PriceSummary(
            source_bars=raw.num_rows,
            tickers=len(file_tickers & companies),
            skipped_tickers=len(file_tickers - companies),
            dropped_incomplete=raw.num_rows - complete.num_rows,
            dropped_first_bars=int(first.sum()),
            first_date=span["min"].as_py(),
            last_date=span["max"].as_py(),
        ),
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


# --- import ----------------------------------------------------------------------------------------


def _dataset_info(description: str) -> pa.Table:
    return build_table(
        "dataset_info",
        {
            "dataset": [DATASET],
            "synthetic": [0],
            "description": [description],
            "licence": [LICENCE],
            "loaded_at": [datetime.now(UTC).replace(microsecond=0)],
        },
    )


def _description(companies: int, snapshot_rows: int, as_of: date, prices: PriceSummary | None) -> str:
    text = (
        f"REAL US reference data: {companies} S&P 500 companies (GICS sectors; list_date is the day each "
        f"joined the index, an upper bound on its listing date); one valuation snapshot for {snapshot_rows} "
        "of them (price, market cap, trailing P/E, P/B, P/S, dividend yield; USD, market values in 10k USD), "
        f"filed under {as_of.isoformat()} because the source file is undated."
    )
    if prices is None:
        return text + " No daily prices: none are bundled."
    return text + (
        f" Daily bars {prices.first_date}..{prices.last_date} for {prices.tickers} companies from a price "
        f"file supplied at import ({prices.skipped_tickers} tickers outside the company list skipped)."
    )


def import_sp500(
    store: MarketStore,
    directory: Path = REFERENCE_DIR,
    *,
    as_of: date = SNAPSHOT_AS_OF,
    prices: Path | None = None,
) -> Sp500Summary:
    """Validate and convert the whole set, then insert every table; a refusal writes nothing."""
    constituents = _companies(directory / CONSTITUENTS_FILE)
    financials = _read_csv(directory / FINANCIALS_FILE)
    _require(
        financials,
        directory / FINANCIALS_FILE,
        ["Symbol", "Price", "Market Cap", "Price/Earnings", "Price/Book", "Price/Sales", "Dividend Yield"],
    )
    companies = [str(t) for t in constituents.column("Symbol").to_pylist()]
    bars = _bars(prices, set(companies)) if prices is not None else None
    daily_basic, skipped = _daily_basic(financials, companies, as_of)
    price_summary = bars.summary if bars else None
    tables = {
        "stock_basic": _stock_basic(constituents, bars.first_dates if bars else {}),
        "daily_basic": daily_basic,
    }
    if bars is not None:
        tables["daily"] = _daily(bars.table)
        tables["trade_cal"] = _trade_cal(bars.session_dates)
    tables["dataset_info"] = _dataset_info(
        _description(len(companies), daily_basic.num_rows, as_of, price_summary)
    )
    for name, rows in tables.items():
        check_duplicate_keys(TABLES_BY_NAME[name], rows)
        check_not_in_store(store, TABLES_BY_NAME[name], rows)
    inserted = {name: insert_table(store, name, rows) for name, rows in tables.items()}
    notes = [
        f"{skipped} of {len(companies)} companies have no price or market cap in the snapshot "
        "(no daily_basic row)"
    ]
    if price_summary is None:
        notes.append("no daily prices loaded (none are bundled; --prices FILE loads yours)")
    return Sp500Summary(
        rows=inserted,
        companies=len(companies),
        snapshot_as_of=as_of,
        snapshot_rows=daily_basic.num_rows,
        snapshot_skipped=skipped,
        prices=price_summary,
        notes=notes,
    )
