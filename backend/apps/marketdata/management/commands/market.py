"""`manage.py market init|generate|import|sync|stats|bench`: thin wrapper over services and the domain.

`stats` reads, so it works beside a running server (forwarded to it); the other actions write and
refuse to run while a server owns the data. The domain and services are imported inside each action:
they take seconds to import, which a forwarded `stats` does not need.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.core.management.base import CommandError, CommandParser

from backend.apps.marketdata.forwarding import TerminalCommand
from backend.domain.market.errors import MarketError, StoreUnavailable
from backend.domain.market.ownership import DirectoryInUse
from backend.domain.market.schema import TABLES_BY_NAME
from backend.domain.market.sync.plan import SYNC_SOURCES, SYNC_TABLES

if TYPE_CHECKING:
    from backend.domain.market.bench import BenchReport


def _explain(error: MarketError) -> str:
    text = str(error)
    # chdb reports a directory held by a process outside VeriScreen's own lock as a lock error or a
    # failed EmbeddedServer start; its raw text helps nobody.
    chdb_refusal = "lock" in text.lower() or "EmbeddedServer" in text
    if isinstance(error, StoreUnavailable) and not isinstance(error, DirectoryInUse) and chdb_refusal:
        return (
            "the market store is in use by another process (chdb allows one process per data "
            "directory); stop it or set VERISCREEN_DATA_DIR"
        )
    return text


class Command(TerminalCommand):
    help = "Market data: create the schema, generate the synthetic demo, import files, show stats, benchmark."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(
            dest="action", required=True, metavar="init|generate|import|sync|stats|bench"
        )
        actions.add_parser("init", help="create the database and tables (idempotent)")
        generate = actions.add_parser("generate", help="load the SYNTHETIC A-share demo market")
        generate.add_argument("--seed", type=int, default=None, help="default: the demo's fixed seed")
        generate.add_argument("--stocks", type=int, default=None, help="sample size (default: all codes)")
        mode = generate.add_mutually_exclusive_group()
        mode.add_argument("--if-empty", action="store_true", help="do nothing when the store has data")
        mode.add_argument("--replace", action="store_true", help="empty every market table first")
        importing = actions.add_parser("import", help="import real data files")
        sources = importing.add_subparsers(dest="source", required=True, metavar="tushare|sp500")
        tushare = sources.add_parser("tushare", help="a Tushare-layout CSV/Parquet file into one table")
        tushare.add_argument("table", choices=sorted(TABLES_BY_NAME))
        tushare.add_argument("file", type=Path)
        sp500 = sources.add_parser(
            "sp500", help="the bundled S&P 500 company list and valuation snapshot (real data; no prices)"
        )
        sp500.add_argument(
            "--path", type=Path, default=None, help="a folder with the same two files (default: bundled copy)"
        )
        sp500.add_argument(
            "--as-of",
            type=date.fromisoformat,
            default=None,
            help="date to file the undated valuation snapshot under (default: the day it was bundled)",
        )
        sp500.add_argument(
            "--prices",
            type=Path,
            default=None,
            help="your daily price file (Date,Open,High,Low,Close,Volume,Name); "
            "refused when tickers share one series",
        )
        sync = actions.add_parser(
            "sync", help="fetch the REAL A-share data the store lacks (Tushare Pro or AKShare)"
        )
        sync.add_argument(
            "--source",
            choices=SYNC_SOURCES,
            default=None,
            help="tushare (TUSHARE_TOKEN) or akshare (free, per-stock calls); default MARKET_SYNC_SOURCE",
        )
        sync.add_argument(
            "--since", type=date.fromisoformat, default=None, help="re-fetch from this day (YYYY-MM-DD)"
        )
        sync.add_argument("--tables", nargs="+", choices=SYNC_TABLES, default=list(SYNC_TABLES))
        stats = actions.add_parser("stats", help="rows and date ranges per table")
        stats.add_argument("--json", action="store_true")
        bench = actions.add_parser("bench", help="time demo generation and typical screens (scratch store)")
        bench.add_argument("--json-out", type=Path, default=Path("reports/market_bench.json"))
        bench.add_argument("--runs", type=int, default=7)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] in {"init", "generate", "import", "sync"}:
            self.claim_store()
        try:
            getattr(self, f"_{options['action']}")(options)
        except MarketError as error:
            raise CommandError(_explain(error)) from error

    def _init(self, options: dict[str, Any]) -> None:
        from backend.apps.marketdata import services

        services.init_market_schema()
        self.stdout.write("market schema ready")

    def _generate(self, options: dict[str, Any]) -> None:
        from backend.apps.marketdata import services
        from backend.domain.market.demo import DEFAULT_SEED

        if options["if_empty"] and not services.market_is_empty():
            self.stdout.write("market store already has data; nothing generated")
            return
        summary = services.generate_demo_market(
            seed=DEFAULT_SEED if options["seed"] is None else options["seed"],
            n_stocks=options["stocks"],
            replace=options["replace"],
        )
        self.stdout.write(
            f"SYNTHETIC demo market loaded: {summary.stocks} stocks, {summary.trading_days} trading days "
            f"{summary.start}..{summary.end}, seed {summary.seed}; "
            f"generated in {summary.generate_seconds:.1f} s, loaded in {summary.load_seconds:.1f} s"
        )
        for table, rows in summary.rows.items():
            self.stdout.write(f"  {table:<15} {rows:>10,}")

    def _import(self, options: dict[str, Any]) -> None:
        from backend.apps.marketdata import services

        if options["source"] == "tushare":
            summary = services.import_tushare(options["table"], options["file"])
            self.stdout.write(f"imported {summary.rows:,} rows into {summary.table} from {summary.source}")
            if summary.ignored_columns:
                self.stdout.write(f"  ignored columns: {', '.join(summary.ignored_columns)}")
            return
        result = services.import_sp500_set(options["path"], as_of=options["as_of"], prices=options["prices"])
        self.stdout.write(
            f"imported S&P 500 (real data): {result.companies} companies; valuation snapshot for "
            f"{result.snapshot_rows} of them filed under {result.snapshot_as_of}"
        )
        if result.prices:
            p = result.prices
            self.stdout.write(
                f"  prices {p.first_date}..{p.last_date}: {p.tickers} tickers loaded, "
                f"{p.skipped_tickers} not in the company list skipped; {p.source_bars:,} source bars, "
                f"dropped {p.dropped_incomplete} with missing prices and {p.dropped_first_bars} first bars"
            )
        for table, rows in result.rows.items():
            self.stdout.write(f"  {table:<15} {rows:>10,}")
        for note in result.notes:
            self.stdout.write(f"  note: {note}")

    def _sync(self, options: dict[str, Any]) -> None:
        from django.conf import settings

        from backend.apps.marketdata import services
        from backend.domain.market.sync.progress import TextProgress

        report = services.sync_market(
            source=options["source"] or settings.MARKET_SYNC_SOURCE,
            since=options["since"],
            tables=options["tables"],
            # The raw stream: Django's wrapper would end every redraw of the bar with a newline.
            progress=TextProgress(getattr(self.stdout, "_out", self.stdout)),
        )
        self.stdout.write(f"REAL data from {report.source}: rows written per table (slices fetched)")
        for table, synced in report.tables.items():
            notes = f", {synced.dropped} rows without a required value dropped" if synced.dropped else ""
            if synced.empty:
                notes += f", the source returned nothing for {', '.join(synced.empty)}"
            self.stdout.write(f"  {table:<15} {synced.rows:>10,} ({synced.slices} slices{notes})")
        self.stdout.write(f"rows added to the store: {report.rows_added:,}")
        self.stdout.write("rows in the store:")
        for table, rows in report.row_counts.items():
            self.stdout.write(f"  {table:<15} {rows:>10,}")

    def _stats(self, options: dict[str, Any]) -> None:
        tables = self._table_stats()
        if options["json"]:
            self.stdout.write(json.dumps({"tables": tables}, ensure_ascii=False, indent=2))
            return
        self.stdout.write(f"{'table':<15} {'rows':>12}  {'from':<10}  {'to':<10}  {'stocks':>6}")
        for s in tables:
            self.stdout.write(
                f"{s['table']:<15} {s['rows']:>12,}  {s['min_date'] or '-':<10}  {s['max_date'] or '-':<10}  "
                f"{'-' if s['stocks'] is None else s['stocks']:>6}"
            )

    def _table_stats(self) -> list[dict[str, Any]]:
        """Per-table stats in their JSON form, from the server when one owns the data."""
        reply = self.server_reply("GET", "/api/market/stats/")
        if reply is None:
            from backend.apps.marketdata.store import get_market_store
            from backend.domain.market.stats import collect_stats

            return [s.as_json() for s in collect_stats(get_market_store())]
        if reply.error is not None:
            raise CommandError(reply.error[1])
        tables: list[dict[str, Any]] = reply.body["tables"]
        return tables

    def _bench(self, options: dict[str, Any]) -> None:
        from backend.domain.market.bench import run_bench

        report = run_bench(runs=options["runs"])
        self._print_bench(report)
        out: Path = options["json_out"]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report.as_json(), ensure_ascii=False, indent=2), encoding="utf-8")
        self.stdout.write(f"report written to {out}")

    def _print_bench(self, report: BenchReport) -> None:
        verdict = "OK" if report.within_generate_target else "OVER TARGET"
        self.stdout.write(
            f"demo: {report.stocks} stocks, {report.daily_rows:,} daily bars; "
            f"generate {report.generate_seconds:.1f} s + load {report.load_seconds:.1f} s "
            f"= {report.total_seconds:.1f} s "
            f"(target <= {report.generate_target_seconds:.0f} s: {verdict})"
        )
        load = ", ".join(f"{value:.1f}" for value in report.load_average)
        self.stdout.write(
            f"screens on {report.day}, median of {len(report.screens[0].runs_ms)} warm runs "
            f"(load average {load} on {report.cpus} CPUs; wall = what an analyst waits, "
            "cpu = what the query costs):"
        )
        for screen in report.screens:
            mark = "OK" if screen.within_target else "OVER TARGET"
            self.stdout.write(
                f"  {screen.name:<28} wall {screen.median_ms:>7.1f} ms  cpu {screen.median_cpu_ms:>7.1f} ms  "
                f"rows {screen.rows:>6}  (target <= {report.screen_target_ms:.0f} ms wall: {mark})"
            )
