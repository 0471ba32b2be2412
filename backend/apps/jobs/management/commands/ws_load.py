"""`manage.py ws_load [--clients 50] [--users 10] [--stocks 300] [--timeout 600] [--report FILE]`

Starts the platform on loopback with THIS command's settings, then runs the WebSocket load benchmark
(backend/apps/jobs/load.py) against it and writes the figures to the report (one entry per mode).

- Embedded (JOB_RUNNER=threads, no REDIS_URL): `manage.py serve` on a free port is the one process;
  it owns the chdb directory of VERISCREEN_DATA_DIR and runs the jobs in its thread pool.
- Production (JOB_RUNNER=celery with REDIS_URL and DATABASE_URL): daphne serves HTTP and WebSockets
  and never opens the market store; one Celery worker runs the jobs and OWNS the embedded chdb
  directory (only one process may open it; a ClickHouse server lifts that limit).

This process only migrates the ORM database and creates the benchmark users; the demo market data is
generated (when the store is empty) by a `manage.py market` subprocess before the servers start.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backend.apps.jobs.bench_platform import analyst_tokens, free_port, run_manage, running, wait_ready
from backend.apps.jobs.load import run_load

SERVING = re.compile(r"VeriScreen serving http://127\.0\.0\.1:(\d+)/")
START_TIMEOUT_SECONDS = 180.0


class Command(BaseCommand):
    help = "WebSocket load benchmark: N clients ask at once and follow their jobs' events to the end."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--clients", type=int, default=50)
        parser.add_argument("--users", type=int, default=10, help="clients are spread over this many users")
        parser.add_argument("--stocks", type=int, default=300, help="demo size when the store is empty")
        parser.add_argument("--timeout", type=float, default=600.0, help="seconds per client at most")
        parser.add_argument("--report", default="reports/ws_load.json")

    def handle(self, *args: Any, **options: Any) -> None:
        clients, users = int(options["clients"]), max(1, int(options["users"]))
        if not 1 <= clients <= 500:
            raise CommandError("--clients must be between 1 and 500 (the benchmark is bounded)")
        mode = "production" if settings.JOB_RUNNER == "celery" else "embedded"
        if mode == "production" and not settings.REDIS_URL:
            raise CommandError("production mode needs REDIS_URL (Celery broker and channel layer)")
        call_command("migrate", interactive=False, verbosity=0)
        run_manage("market", "init")
        run_manage("market", "generate", "--if-empty", "--stocks", str(options["stocks"]))
        tokens = analyst_tokens("ws-load", users)
        log_path = Path(settings.DATA_DIR) / f"ws_load-{mode}.log"
        with ExitStack() as stack:
            log = stack.enter_context(log_path.open("w"))
            base_url = self._start(mode, stack, log)
            self.stdout.write(f"{mode}: {clients} clients against {base_url} (logs: {log_path})")
            report = run_load(mode, base_url, tokens, clients, float(options["timeout"]))
        self._print(report.as_json())
        self._write(Path(options["report"]), report.as_json())
        if report.errors:
            raise CommandError(f"{report.errors} errors in {clients - report.ok_clients} clients")

    def _start(self, mode: str, stack: ExitStack, log: IO[str]) -> str:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        if mode == "embedded":
            server = stack.enter_context(
                running([sys.executable, "-u", "manage.py", "serve", "--port", "0", "-v", "0"], log)
            )
            port = self._announced_port(server, log, deadline)
        else:
            port = free_port()
            stack.enter_context(
                running(
                    [sys.executable, "-m", "celery", "-A", "backend.project", "worker", "--pool=threads",
                     f"--concurrency={settings.JOB_THREADS}", "--loglevel=WARNING"],
                    log,
                )
            )  # fmt: skip
            server = stack.enter_context(
                running(
                    [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                     "backend.project.asgi:application"],
                    log,
                )
            )  # fmt: skip
        base_url = f"http://127.0.0.1:{port}"
        wait_ready(base_url, server, deadline)
        return base_url

    def _announced_port(self, server: subprocess.Popen[str], log: IO[str], deadline: float) -> int:
        log_file = Path(log.name)
        while time.monotonic() < deadline:
            found = SERVING.search(log_file.read_text(errors="replace"))
            if found:
                return int(found.group(1))
            if server.poll() is not None:
                raise CommandError(f"the server exited with {server.returncode}: see {log_file}")
            time.sleep(0.3)
        raise CommandError("the server did not announce its port in time")

    def _print(self, report: dict[str, Any]) -> None:
        self.stdout.write(
            f"{report['mode']}: {report['ok_clients']}/{report['clients']} clients complete and ordered, "
            f"{report['errors']} errors, {report['events_total']} events; time to the final result "
            f"p50 {report['p50_seconds']} s, p95 {report['p95_seconds']} s, max {report['max_seconds']} s; "
            f"wall {report['wall_seconds']} s; answers {report['answer_statuses']}"
        )
        for outcome in report["outcomes"]:
            for error in outcome["errors"]:
                self.stdout.write(f"  client {outcome['client']} (job {outcome['job_id']}): {error}")

    def _write(self, path: Path, report: dict[str, Any]) -> None:
        existing: dict[str, Any] = {}
        if path.is_file():
            existing = json.loads(path.read_text(encoding="utf-8"))
        existing[report["mode"]] = {**report, "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(existing, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        self.stdout.write(f"written {path}")
