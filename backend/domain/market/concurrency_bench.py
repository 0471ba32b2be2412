"""Latency of a light query while 0, 1 and 2 heavy queries run, measured in one run on one store.

Heavy requesters loop over real analytic screens (seconds each on the full demo); the light requester
looks up one stock's last bars. The figures show what the fair admission and per-query handles give
an analyst whose colleague runs heavy screens. Prints and returns figures; asserts nothing."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from contextvars import copy_context
from dataclasses import asdict, dataclass
from typing import Any

from backend.domain.market.errors import MarketError
from backend.domain.market.execution import execution_context
from backend.domain.market.store import MarketStore

LIGHT_TARGET_P95_MS = 500.0
LIGHT_QUERY = (
    "SELECT d.trade_date, d.close FROM market.daily AS d WHERE d.ts_code = '600519.SH' "
    "ORDER BY d.trade_date DESC LIMIT 5"
)
HEAVY_QUERIES = (
    # 60-bar moving average of every stock over its whole history.
    "SELECT ts_code, max(ma60) AS highest_ma60 FROM (SELECT ts_code, avg(close) OVER (PARTITION BY ts_code "
    "ORDER BY trade_date ROWS BETWEEN 59 PRECEDING AND CURRENT ROW) AS ma60 FROM market.daily) "
    "GROUP BY ts_code ORDER BY highest_ma60 DESC LIMIT 20",
    # Correlation of every stock's daily change with one stock's.
    "SELECT a.ts_code, corr(a.pct_chg, b.pct_chg) AS correlation FROM market.daily AS a INNER JOIN "
    "(SELECT trade_date, pct_chg FROM market.daily WHERE ts_code = '600519.SH') AS b "
    "ON a.trade_date = b.trade_date GROUP BY a.ts_code ORDER BY correlation DESC LIMIT 20",
    # Distribution statistics per stock.
    "SELECT ts_code, quantileExact(0.9)(amount) AS amount_p90, stddevPop(pct_chg) AS volatility "
    "FROM market.daily GROUP BY ts_code ORDER BY volatility DESC LIMIT 20",
)


@dataclass(frozen=True)
class LevelFigures:
    heavy_running: int
    light_runs: int
    light_p50_ms: float
    light_p95_ms: float
    light_max_ms: float
    light_errors: int
    heavy_completed: int
    heavy_mean_s: float | None


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class _HeavyLoop:
    """One heavy requester running heavy screens back to back until stopped."""

    def __init__(self, store: MarketStore, requester: str) -> None:
        self._store = store
        self._requester = requester
        self._stop = threading.Event()
        self.durations: list[float] = []
        self._thread = threading.Thread(target=copy_context().run, args=(self._loop,), daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        with execution_context(self._requester):
            index = 0
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    self._store.query(HEAVY_QUERIES[index % len(HEAVY_QUERIES)])
                    self.durations.append(time.perf_counter() - started)
                except MarketError:
                    pass  # a heavy screen stopped by its limit still loaded the store
                index += 1


def measure_level(
    store: MarketStore, heavy_running: int, light_runs: int, pause_s: float = 0.02
) -> LevelFigures:
    heavies = [_HeavyLoop(store, f"bench-heavy-{index}") for index in range(heavy_running)]
    for heavy in heavies:
        heavy.start()
    if heavies:
        time.sleep(0.5)  # let the heavy screens get going before measuring
    latencies: list[float] = []
    errors = 0
    with execution_context("bench-light"):
        for _ in range(light_runs):
            started = time.perf_counter()
            try:
                store.query(LIGHT_QUERY)
                latencies.append((time.perf_counter() - started) * 1000)
            except MarketError:
                errors += 1
            time.sleep(pause_s)
    for heavy in heavies:
        heavy.stop()
    durations = [duration for heavy in heavies for duration in heavy.durations]
    return LevelFigures(
        heavy_running=heavy_running,
        light_runs=len(latencies),
        light_p50_ms=round(statistics.median(latencies), 1) if latencies else float("nan"),
        light_p95_ms=round(_percentile(latencies, 0.95), 1) if latencies else float("nan"),
        light_max_ms=round(max(latencies), 1) if latencies else float("nan"),
        light_errors=errors,
        heavy_completed=len(durations),
        heavy_mean_s=round(statistics.mean(durations), 2) if durations else None,
    )


def run_concurrency_bench(
    store: MarketStore,
    light_runs: int = 60,
    levels: tuple[int, ...] = (0, 1, 2),
    progress: Callable[[str], None] = lambda _: None,
    serialised: MarketStore | None = None,
) -> dict[str, Any]:
    """Figures per level; with `serialised` (the same data behind a one-slot store) also the highest
    level measured there, side by side in the same run."""
    store.query(LIGHT_QUERY)  # warm the handle and the caches once, outside the figures
    figures = []
    for level in levels:
        progress(f"measuring the light query with {level} heavy queries running…")
        figures.append(measure_level(store, level, light_runs))
    worst = next((figure for figure in figures if figure.heavy_running == max(levels)), figures[-1])
    baseline = None
    if serialised is not None:
        progress(f"measuring the same with one slot and {max(levels)} heavy queries running…")
        baseline = asdict(measure_level(serialised, max(levels), light_runs))
    return {
        "light_query": LIGHT_QUERY,
        "heavy_queries": list(HEAVY_QUERIES),
        "slots": store.admission.limits.slots,
        "levels": [asdict(figure) for figure in figures],
        "target_p95_ms": LIGHT_TARGET_P95_MS,
        "target_met": worst.light_p95_ms <= LIGHT_TARGET_P95_MS and worst.light_errors == 0,
        "serialised": baseline,
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [
        f"light query p50/p95 while heavy queries run (slots: {report['slots']})",
        f"{'heavy':>5}  {'runs':>4}  {'p50 ms':>8}  {'p95 ms':>8}  {'max ms':>8}  {'errors':>6}  "
        "heavy done (mean s)",
    ]
    for level in report["levels"]:
        lines.append(_level_line(level))
    if report.get("serialised"):
        lines.append("the same with one slot (queries one at a time, as before per-query handles):")
        lines.append(_level_line(report["serialised"]))
    verdict = "met" if report["target_met"] else "NOT met"
    lines.append(f"target p95 <= {report['target_p95_ms']:.0f} ms with 2 heavy queries running: {verdict}")
    return "\n".join(lines)


def _level_line(level: dict[str, Any]) -> str:
    return (
        f"{level['heavy_running']:>5}  {level['light_runs']:>4}  {level['light_p50_ms']:>8}  "
        f"{level['light_p95_ms']:>8}  {level['light_max_ms']:>8}  {level['light_errors']:>6}  "
        f"{level['heavy_completed']} ({level['heavy_mean_s']})"
    )
