"""LanguageContext: what the language engine knows about one market store.

It combines the semantic model with entity dictionaries drawn from the data (stock names, codes,
pinyin initials, industries, indexes) and the trading calendar. "Today" is the latest trading day
in the data on or before the run date. Contexts are cached per store; `invalidate()` drops them
after a load.
"""

from __future__ import annotations

import bisect
import re
import threading
import unicodedata
import weakref
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from backend.domain.language.semantic import SemanticModel, default_model
from backend.domain.market.taxonomy import INDEXES, INDUSTRIES

if TYPE_CHECKING:
    from backend.domain.language.lexicon import Lexicon
    from backend.domain.market.store import MarketStore

MARKET_TZ = ZoneInfo("Asia/Shanghai")


@dataclass(frozen=True)
class Stock:
    ts_code: str
    symbol: str
    name: str
    cnspell: str
    industry: str
    market: str
    exchange: str


_WORD_HYPHEN = re.compile(r"(?<=[a-z0-9])-(?=[a-z])|(?<=[a-z])-(?=[0-9])")
# a dash set off by spaces (or an em dash) is a pause, as a comma: "gap ups today - low above …"
# (a hyphen inside a word or a number's sign is not: 5-day, -3%)
DASH_PAUSE = re.compile(r" (?:--?|[–—]) |—")


def normalize_text(text: str) -> str:
    """Full-width → half-width (NFKC), lower case, one space between words, "5-day" → "5 day", a
    dash between spaces → a comma."""
    folded = " ".join(unicodedata.normalize("NFKC", text).lower().split())
    return _WORD_HYPHEN.sub(" ", DASH_PAUSE.sub(" , ", folded))


def market_today() -> date:
    return datetime.now(MARKET_TZ).date()


@dataclass
class LanguageContext:
    """Satisfies translation.SchemaContext; the built-in parser also reads its dictionaries."""

    model: SemanticModel
    database: str
    trade_dates: list[date]
    stocks: list[Stock]
    industries: list[str]
    indexes: dict[str, str]  # index code -> short name
    index_snapshots: dict[str, list[date]]  # index code -> sorted snapshot dates
    annual_periods: list[date]  # year-end report periods announced on or before the latest day
    report_periods: list[date]  # every report period announced on or before the latest day
    synthetic: bool = False
    today: date = field(default_factory=market_today)
    areas: list[str] = field(default_factory=list)  # stock_basic.area values (浙江, 广东, 深圳…)
    _lexicon: Lexicon | None = field(default=None, repr=False)

    # --- calendar -----------------------------------------------------------------------------
    @property
    def latest_trade_date(self) -> date:
        return self.trade_dates[-1] if self.trade_dates else self.today

    @property
    def has_data(self) -> bool:
        return bool(self.trade_dates)

    def is_trading_day(self, day: date) -> bool:
        index = bisect.bisect_left(self.trade_dates, day)
        return index < len(self.trade_dates) and self.trade_dates[index] == day

    def trading_day_offset(self, day: date, offset: int) -> date | None:
        """The trading day `offset` days before (negative) or after `day` (a trading day or not:
        a non-trading day counts from the last trading day before it)."""
        index = bisect.bisect_right(self.trade_dates, day) - 1
        target = index + offset
        if index < 0 or target < 0 or target >= len(self.trade_dates):
            return None
        return self.trade_dates[target]

    def last_trading_day_on_or_before(self, day: date) -> date | None:
        return self.trading_day_offset(day, 0)

    def index_snapshot(self, index_code: str, day: date) -> date | None:
        dates = self.index_snapshots.get(index_code, [])
        position = bisect.bisect_right(dates, day) - 1
        return dates[position] if position >= 0 else None

    def latest_annual_period(self, day: date | None = None) -> date | None:
        limit = day or self.latest_trade_date
        eligible = [period for period in self.annual_periods if period <= limit]
        return eligible[-1] if eligible else None

    # --- dictionaries -------------------------------------------------------------------------
    @cached_property
    def stock_codes(self) -> dict[str, str]:
        """Codes the lexicon recognises → ts_code: the symbol (600519) and the code's number part;
        built once per context, not for every question."""
        codes = {stock.symbol: stock.ts_code for stock in self.stocks if stock.symbol}
        codes.update({stock.ts_code.split(".")[0]: stock.ts_code for stock in self.stocks})
        return codes

    @cached_property
    def stock_names(self) -> dict[str, str]:
        return {stock.ts_code: stock.name for stock in self.stocks}

    @property
    def lexicon(self) -> Lexicon:
        if self._lexicon is None:
            from backend.domain.language.lexicon import Lexicon

            self._lexicon = Lexicon.build(self)
        return self._lexicon

    def table(self, name: str) -> str:
        return f"{self.database}.{name}"

    def schema_prompt(self) -> str:
        from backend.domain.market.schema import TABLES

        lines = [
            f"ClickHouse database `{self.database}` (semantic model v{self.model.version}).",
            f"Latest trading day in the data: {self.latest_trade_date.isoformat()}.",
        ]
        metric_by_column = {(m.table, m.column): m for m in self.model.metrics.values() if not m.negated}
        for table in TABLES:
            lines.append(
                f"\nTABLE {self.database}.{table.name} — {self.model.tables.get(table.name, table.comment)}"
            )
            for column in table.columns:
                metric = metric_by_column.get((table.name, column.name))
                detail = column.comment
                if metric is not None:
                    detail = (
                        f"{metric.meaning}; stored in {metric.stored_unit.name}; "
                        f"words: {', '.join(metric.words[:6])}"
                    )
                lines.append(f"  {column.name} {column.type} — {detail}")
        lines.append("\nUnits: " + ", ".join(f"{k}={v:g}" for k, v in self.model.scale_units.items()))
        lines.append("Conventions:")
        lines.extend(f"  - {key}: {text}" for key, text in self.model.conventions.items())
        lines.append("Industries: " + "、".join(self.industries))
        lines.append(
            "Industry groups: "
            + "; ".join(f"{g.key} = {'、'.join(g.industries)}" for g in self.model.industry_groups.values())
        )
        lines.append(
            "Exchanges: SSE (上交所), SZSE (深交所), BSE (北交所); boards: 主板, 创业板, 科创板, 北交所"
        )
        lines.append("Indexes: " + ", ".join(f"{code} {name}" for code, name in sorted(self.indexes.items())))
        return "\n".join(lines)

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def from_store(cls, store: MarketStore, *, today: date | None = None) -> LanguageContext:
        """The cached context of a store, reloaded when the data changed (a cheap fingerprint query)."""
        day = today or market_today()
        key = (id(store), day)
        fingerprint = _fingerprint(store)
        with _cache_lock:
            cached = _cache.get(key)
            if cached is not None and cached[0]() is store and cached[1] == fingerprint:
                return cached[2]
        context = _load(store, day)
        _ = context.lexicon  # build the dictionaries now, not inside the first question's parse
        with _cache_lock:
            _cache[key] = (weakref.ref(store), fingerprint, context)
        return context


def _fingerprint(store: MarketStore) -> tuple[object, ...]:
    db = store.database
    row = store.internal_query(
        f"SELECT (SELECT max(trade_date) FROM {db}.daily), (SELECT count() FROM {db}.stock_basic), "
        f"(SELECT max(end_date) FROM {db}.income), (SELECT count() FROM {db}.index_weight)"
    ).rows[0]
    return tuple(row)


_cache: dict[
    tuple[int, date], tuple[weakref.ReferenceType[MarketStore], tuple[object, ...], LanguageContext]
] = {}
_cache_lock = threading.Lock()


def invalidate(store: MarketStore) -> None:
    """Forget cached contexts of a store (call after loading new data)."""
    with _cache_lock:
        for key in [key for key in _cache if key[0] == id(store)]:
            del _cache[key]


def _load(store: MarketStore, today: date) -> LanguageContext:
    db = store.database
    params = {"today": today}
    trade_dates = [
        row[0]
        for row in store.internal_query(
            f"SELECT DISTINCT trade_date FROM {db}.daily WHERE trade_date <= {{today:Date}} "
            "ORDER BY trade_date",
            params,
        ).rows
    ]
    latest = trade_dates[-1] if trade_dates else today
    stocks = [
        Stock(*(str(value or "") for value in row))
        for row in store.internal_query(
            f"SELECT ts_code, symbol, name, cnspell, industry, market, exchange FROM {db}.stock_basic "
            "ORDER BY ts_code"
        ).rows
    ]
    areas = [
        str(row[0])
        for row in store.internal_query(
            f"SELECT DISTINCT area FROM {db}.stock_basic WHERE area != '' ORDER BY area"
        ).rows
    ]
    data_industries = sorted({stock.industry for stock in stocks if stock.industry})
    industries = list(INDUSTRIES) + [name for name in data_industries if name not in INDUSTRIES]
    indexes = {code: short for code, (short, _full) in INDEXES.items()}
    indexes.update(
        {
            str(code): str(name)
            for code, name in store.internal_query(f"SELECT ts_code, name FROM {db}.index_basic").rows
        }
    )
    snapshots: dict[str, list[date]] = {}
    for code, day in store.internal_query(
        f"SELECT DISTINCT index_code, trade_date FROM {db}.index_weight ORDER BY index_code, trade_date"
    ).rows:
        snapshots.setdefault(str(code), []).append(day)
    annual_periods = [
        row[0]
        for row in store.internal_query(
            f"SELECT DISTINCT end_date FROM {db}.income WHERE toMonth(end_date) = 12 "
            "AND ann_date <= {latest:Date} ORDER BY end_date",
            {"latest": latest},
        ).rows
    ]
    report_periods = [
        row[0]
        for row in store.internal_query(
            f"SELECT DISTINCT end_date FROM {db}.income WHERE ann_date <= {{latest:Date}} ORDER BY end_date",
            {"latest": latest},
        ).rows
    ]
    synthetic_rows = store.internal_query(f"SELECT max(synthetic) FROM {db}.dataset_info").rows
    synthetic = bool(synthetic_rows and synthetic_rows[0][0])
    return LanguageContext(
        model=default_model(),
        database=db,
        trade_dates=trade_dates,
        stocks=stocks,
        industries=industries,
        indexes=indexes,
        index_snapshots=snapshots,
        annual_periods=annual_periods,
        report_periods=report_periods,
        synthetic=synthetic,
        today=today,
        areas=areas,
    )
