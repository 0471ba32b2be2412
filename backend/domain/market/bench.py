"""Store benchmark: generate + load the default demo into a scratch chdb directory, then time typical
screens (median of warm runs). Prints figures; it asserts nothing (targets are reported, not enforced)."""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from backend.domain.market.config import StoreConfig
from backend.domain.market.demo import DEFAULT_SEED, generate_demo
from backend.domain.market.store import MarketStore

GENERATE_TARGET_SECONDS = 90.0
SCREEN_TARGET_MS = 150.0


@dataclass(frozen=True)
class Screen:
    name: str
    sql: str  # may use {day:Date} (the last trading day) and {ma_from:Date} (61 trading days back)


SCREENS: tuple[Screen, ...] = (
    Screen(
        "top10_close_with_names",
        "SELECT d.ts_code, b.name, d.close FROM market.daily AS d "
        "INNER JOIN market.stock_basic AS b ON d.ts_code = b.ts_code "
        "WHERE d.trade_date = {day:Date} ORDER BY d.close DESC LIMIT 10",
    ),
    Screen(
        "industry_top3_gainers",
        "SELECT b.industry, d.ts_code, b.name, d.pct_chg FROM market.daily AS d "
        "INNER JOIN market.stock_basic AS b ON d.ts_code = b.ts_code "
        "WHERE d.trade_date = {day:Date} ORDER BY b.industry, d.pct_chg DESC LIMIT 3 BY b.industry",
    ),
    Screen(
        # Window functions over the last 61 bars: a running sum and the bar number, both computed in one
        # pass (no re-aggregation per frame). Today's MA60 = bars 2..61, yesterday's = bars 1..60; a
        # stock with 61 bars in the 61 trading days traded every day, today included.
        "ma60_cross_today",
        "SELECT ts_code, anyIf(close, n = 61) AS today_close,"
        " (anyIf(running, n = 61) - anyIf(running, n = 1)) / 60 AS ma60"
        " FROM (SELECT ts_code, close, row_number() OVER w AS n, sum(close) OVER w AS running"
        " FROM market.daily WHERE trade_date BETWEEN {ma_from:Date} AND {day:Date}"
        " WINDOW w AS (PARTITION BY ts_code ORDER BY trade_date ROWS UNBOUNDED PRECEDING))"
        " GROUP BY ts_code HAVING max(n) = 61 AND today_close > ma60"
        " AND anyIf(close, n = 60) <= anyIf(running, n = 60) / 60 ORDER BY ts_code",
    ),
    Screen(
        "avg_close_30d_per_stock",
        "SELECT ts_code, avg(close) AS avg_close_30d FROM market.daily "
        "WHERE trade_date > {day:Date} - INTERVAL 30 DAY AND trade_date <= {day:Date} "
        "GROUP BY ts_code ORDER BY ts_code",
    ),
    Screen(
        "pe_below_15_cap_above_10bn",
        "SELECT db.ts_code, b.name, db.pe, db.total_mv FROM market.daily_basic AS db "
        "INNER JOIN market.stock_basic AS b ON db.ts_code = b.ts_code "
        "WHERE db.trade_date = {day:Date} AND db.pe < 15 AND db.total_mv > 1e6 "
        "ORDER BY db.total_mv DESC",
    ),
    Screen(
        "net_profit_up_3_years",
        "SELECT ts_code FROM market.income WHERE toMonth(end_date) = 12 "
        "GROUP BY ts_code HAVING countIf(end_date >= toDate('2021-12-31')) = 4 "
        "AND arrayAll((a, b) -> a > b, arraySlice(arrayMap(x -> x.2, arraySort(x -> x.1, "
        "groupArray((end_date, n_income_attr_p)))), -3), arraySlice(arrayMap(x -> x.2, arraySort(x -> x.1, "
        "groupArray((end_date, n_income_attr_p)))), -4, 3)) ORDER BY ts_code",
    ),
)


@dataclass(frozen=True)
class ScreenTiming:
    name: str
    median_ms: float  # wall clock: what an analyst waits
    median_cpu_ms: float  # CPU of this process (chdb runs in it): what the query costs without contention
    runs_ms: list[float]
    rows: int
    within_target: bool


@dataclass(frozen=True)
class BenchReport:
    stocks: int
    daily_rows: int
    generate_seconds: float
    load_seconds: float
    total_seconds: float
    generate_target_seconds: float
    within_generate_target: bool
    day: date
    screen_target_ms: float
    screens: list[ScreenTiming] = field(default_factory=list)
    load_average: tuple[float, float, float] = (0.0, 0.0, 0.0)  # 1/5/15-minute, when the screens ran
    cpus: int = 0

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["day"] = self.day.isoformat()
        return data


def _median_ms(run: Callable[[], int], warmups: int, runs: int) -> tuple[float, float, list[float], int]:
    rows = 0
    for _ in range(warmups):
        rows = run()
    wall, cpu = [], []
    for _ in range(runs):
        started, cpu_started = time.perf_counter(), time.process_time()
        rows = run()
        wall.append(round((time.perf_counter() - started) * 1000, 2))
        cpu.append((time.process_time() - cpu_started) * 1000)
    return statistics.median(wall), round(statistics.median(cpu), 2), wall, rows


def time_screens(store: MarketStore, *, runs: int = 7, warmups: int = 2) -> tuple[date, list[ScreenTiming]]:
    """Median warm latency of every typical screen on the store's last trading day, via store.query."""
    day = store.internal_query("SELECT max(trade_date) FROM market.daily").rows[0][0]
    ma_from = store.internal_query(
        "SELECT min(trade_date) FROM (SELECT DISTINCT trade_date FROM market.daily "
        "WHERE trade_date <= {day:Date} ORDER BY trade_date DESC LIMIT 61)",
        {"day": day},
    ).rows[0][0]
    timings = []
    for screen in SCREENS:
        parameters = {"day": day, "ma_from": ma_from}
        used = {k: v for k, v in parameters.items() if "{" + k + ":" in screen.sql}

        def run(sql: str = screen.sql, bound: dict[str, Any] = used) -> int:
            return len(store.query(sql, bound).rows)

        median, cpu, each, rows = _median_ms(run, warmups, runs)
        timings.append(ScreenTiming(screen.name, median, cpu, each, rows, median <= SCREEN_TARGET_MS))
    return day, timings


def run_bench(*, seed: int = DEFAULT_SEED, runs: int = 7, scratch_parent: Path | None = None) -> BenchReport:
    """Generate and load the full default demo into a scratch chdb directory and time the screens."""
    scratch = Path(tempfile.mkdtemp(prefix="veriscreen-bench-", dir=scratch_parent))
    store = MarketStore(StoreConfig(url=f"chdb://{scratch}"))
    try:
        started = time.perf_counter()
        summary = generate_demo(store, seed=seed)
        total = time.perf_counter() - started
        day, screens = time_screens(store, runs=runs)
        load = os.getloadavg()
    finally:
        store.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return BenchReport(
        stocks=summary.stocks,
        daily_rows=summary.rows["daily"],
        generate_seconds=summary.generate_seconds,
        load_seconds=summary.load_seconds,
        total_seconds=round(total, 3),
        generate_target_seconds=GENERATE_TARGET_SECONDS,
        within_generate_target=total <= GENERATE_TARGET_SECONDS,
        day=day,
        screen_target_ms=SCREEN_TARGET_MS,
        screens=screens,
        load_average=load,
        cpus=os.cpu_count() or 0,
    )
