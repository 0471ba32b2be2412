"""`manage.py load_run [--minutes 4] [--workers 2] [--clients 4] [--stocks 300] [--report FILE]`

A bounded production load run on loopback: daphne serves HTTP and WebSockets, `--workers` Celery
worker processes run the jobs, PostgreSQL holds the jobs and events, Redis is the broker and channel
layer. `--clients` closed-loop clients ask one question after another (REST ask, then the job's
WebSocket to `job_finished`) for `--minutes`; a question started before the end is finished.

Reported (JSON in `--report`): questions per minute sustained, p50/p95/max seconds from ask to the
final event, errors (any client error, an incomplete or unordered stream, a job not `done`), and the
resident memory (RSS, from /proc) of the web process and each worker sampled every `--sample-seconds`,
with the mean of the first and last quarter of the run to show whether it stays flat. The metrics the
platform exported during the run (/metrics, added up over the processes) are summarised too.

Each worker owns its market data (chdb lets one process open a directory; a ClickHouse server lifts
that): the same seeded demo, generated into VERISCREEN_DATA_DIR/load_run/worker<N>/chdb first.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from prometheus_client.parser import text_string_to_metric_families

from backend.apps.jobs.bench_platform import analyst_tokens, free_port, run_manage, running, wait_ready
from backend.apps.jobs.load import QUESTIONS, ClientOutcome, percentile, run_load, sustained_load

START_TIMEOUT_SECONDS = 240.0
FLAT_TOLERANCE = 0.10  # the last quarter's mean RSS within 10% of the first quarter's
REPORTED_METRICS = (
    "veriscreen_jobs_finished_total",
    "veriscreen_pipeline_runs_total",
    "veriscreen_paradigm_lookups_total",
    "veriscreen_validation_verdicts_total",
    "veriscreen_query_admission_refused_total",
)


def rss_mb(pid: int) -> float | None:
    """Resident set size of a live process, in MiB (Linux /proc)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


@dataclass
class MemorySampler:
    """Samples the RSS of named processes every `interval` seconds on a thread of its own."""

    pids: dict[str, int]
    interval: float
    samples: list[dict[str, float | None]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while True:
            sample: dict[str, float | None] = {"t": round(time.monotonic() - self._started, 1)}
            sample |= {name: rss_mb(pid) for name, pid in self.pids.items()}
            sample["total"] = round(sum(v for k, v in sample.items() if k != "t" and v is not None), 1)
            self.samples.append(sample)
            if self._stop.wait(self.interval):
                return

    def summary(self) -> dict[str, Any]:
        totals = [float(sample["total"] or 0) for sample in self.samples]
        quarter = max(1, len(totals) // 4)
        first, last = statistics.fmean(totals[:quarter]), statistics.fmean(totals[-quarter:])
        return {
            "samples": len(totals),
            "first_quarter_mean_mb": round(first, 1),
            "last_quarter_mean_mb": round(last, 1),
            "max_mb": max(totals),
            "growth_percent": round((last - first) / first * 100, 1) if first else None,
            "flat": last <= first * (1 + FLAT_TOLERANCE),
        }


def _exported_metrics(base_url: str) -> dict[str, float]:
    text = httpx.get(base_url + "/metrics", timeout=30).text
    summary: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in REPORTED_METRICS:
                labels = ",".join(f"{key}={value}" for key, value in sorted(sample.labels.items()))
                summary[f"{sample.name}{{{labels}}}"] = sample.value
    return summary


class Command(BaseCommand):
    help = "Production load run on loopback: sustained questions per minute, p95, errors, memory over time."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--minutes", type=float, default=4.0)
        parser.add_argument("--workers", type=int, default=2, help="Celery worker processes")
        parser.add_argument("--threads", type=int, default=2, help="jobs at once per worker")
        parser.add_argument("--clients", type=int, default=4, help="closed-loop clients asking in turn")
        parser.add_argument("--users", type=int, default=4)
        parser.add_argument("--stocks", type=int, default=300, help="demo size when the store is empty")
        parser.add_argument("--sample-seconds", type=float, default=5.0)
        parser.add_argument("--timeout", type=float, default=300.0, help="seconds per question at most")
        parser.add_argument("--report", default="reports/load_run.json")

    def handle(self, *args: Any, **options: Any) -> None:
        minutes, workers, clients = (
            float(options["minutes"]),
            int(options["workers"]),
            int(options["clients"]),
        )
        if not (0.2 <= minutes <= 15 and 1 <= workers <= 8 and 1 <= clients <= 64):
            raise CommandError("bounded run: --minutes 0.2..15, --workers 1..8, --clients 1..64")
        self._require_production()
        call_command("migrate", interactive=False, verbosity=0)
        tokens = analyst_tokens("load-run", max(1, int(options["users"])))
        run_dir = Path(settings.DATA_DIR) / "load_run"
        run_dir.mkdir(parents=True, exist_ok=True)  # the workers' stores are kept for the next run
        with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="veriscreen-metrics-") as metrics_dir:
            base_env = self._child_environment(metrics_dir)
            log = stack.enter_context((run_dir / "platform.log").open("w"))
            worker_pids = {}
            for number in range(workers):
                worker = stack.enter_context(
                    running(
                        self._worker_arguments(number, int(options["threads"])),
                        log,
                        self._worker_env(base_env, run_dir, number, int(options["stocks"])),
                    )
                )
                worker_pids[f"worker{number}"] = worker.pid
            port = free_port()
            web = stack.enter_context(
                running(
                    [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                     "backend.project.asgi:application"],
                    log,
                    base_env,
                )
            )  # fmt: skip
            base_url = f"http://127.0.0.1:{port}"
            wait_ready(base_url, web, time.monotonic() + START_TIMEOUT_SECONDS)
            self._warm_up(base_url, tokens[0], workers, float(options["timeout"]))
            self.stdout.write(
                f"production load: {clients} clients, {workers} workers × {options['threads']} threads, "
                f"{minutes} min against {base_url} (log: {run_dir / 'platform.log'})"
            )
            sampler = MemorySampler({"web": web.pid, **worker_pids}, float(options["sample_seconds"]))
            sampler.start()
            started = time.monotonic()
            outcomes = sustained_load(base_url, tokens, clients, minutes * 60, float(options["timeout"]))
            wall = time.monotonic() - started
            sampler.stop()
            exported = _exported_metrics(base_url)
        report = self._report(outcomes, wall, sampler, exported, options)
        self._print(report)
        path = Path(options["report"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        self.stdout.write(f"written {path}")
        if report["errors"]:
            raise CommandError(f"{report['errors']} errors")

    def _require_production(self) -> None:
        problems = []
        if not settings.PRODUCTION:
            problems.append("VERISCREEN_PRODUCTION=1")
        if not settings.REDIS_URL:
            problems.append("REDIS_URL (broker and channel layer)")
        if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
            problems.append("DATABASE_URL=postgres://…")
        if settings.JOB_RUNNER != "celery":
            problems.append("JOB_RUNNER=celery")
        if problems:
            raise CommandError("load_run runs the production layout; set " + ", ".join(problems))

    def _child_environment(self, metrics_dir: str) -> dict[str, str]:
        return {
            **os.environ,
            "PROMETHEUS_MULTIPROC_DIR": metrics_dir,
            "DJANGO_SECURE_SSL_REDIRECT": "0",  # plain HTTP on loopback; no TLS proxy in front
            "API_THROTTLE_USER": "100000/minute",
        }

    def _worker_env(self, base: dict[str, str], run_dir: Path, number: int, stocks: int) -> dict[str, str]:
        """Each worker its own market data (chdb: one process per directory): the same seeded demo,
        generated into the worker's directory. With a ClickHouse server every worker reads the server."""
        if not settings.CLICKHOUSE_URL.startswith("chdb://"):
            return base
        environment = {**base, "CLICKHOUSE_URL": f"chdb://{run_dir / f'worker{number}' / 'chdb'}"}
        run_manage("market", "init", environment=environment)
        run_manage("market", "generate", "--if-empty", "--stocks", str(stocks), environment=environment)
        return environment

    def _worker_arguments(self, number: int, threads: int) -> list[str]:
        return [
            sys.executable, "-m", "celery", "-A", "backend.project", "worker", "--pool=threads",
            f"--concurrency={threads}", "-n", f"load{number}@%h", "--without-mingle", "--without-gossip",
            "--loglevel=WARNING",
        ]  # fmt: skip

    def _warm_up(self, base_url: str, token: str, workers: int, timeout: float) -> None:
        """Every question on every worker first, so start-up (engine import, store open, first caches) is
        not in the figures."""
        warm = run_load("warm-up", base_url, [token], workers * len(QUESTIONS), timeout)
        failed = [error for outcome in warm.outcomes for error in outcome.errors]
        if failed:
            raise CommandError(f"warm-up failed: {failed[:3]}")

    def _report(
        self,
        outcomes: list[ClientOutcome],
        wall: float,
        sampler: MemorySampler,
        exported: dict[str, float],
        options: dict[str, Any],
    ) -> dict[str, Any]:
        seconds = [outcome.seconds_to_result for outcome in outcomes if outcome.seconds_to_result is not None]
        statuses: dict[str, int] = {}
        for outcome in outcomes:
            statuses[outcome.answer_status or "-"] = statuses.get(outcome.answer_status or "-", 0) + 1
        completed = sum(not outcome.errors for outcome in outcomes)
        return {
            "mode": "production",
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "workers": options["workers"],
            "threads_per_worker": options["threads"],
            "clients": options["clients"],
            "minutes_asked": options["minutes"],
            "wall_seconds": round(wall, 1),
            "questions": len(outcomes),
            "completed": completed,
            "questions_per_minute": round(completed / (wall / 60), 2),
            "errors": sum(len(outcome.errors) for outcome in outcomes),
            "p50_seconds": percentile(seconds, 0.50),
            "p95_seconds": percentile(seconds, 0.95),
            "max_seconds": max(seconds) if seconds else None,
            "answer_statuses": statuses,
            "memory": sampler.summary(),
            "memory_samples": sampler.samples,
            "metrics": exported,
            "failures": [asdict(outcome) for outcome in outcomes if outcome.errors][:20],
        }

    def _print(self, report: dict[str, Any]) -> None:
        memory = report["memory"]
        self.stdout.write(
            f"{report['completed']}/{report['questions']} questions in {report['wall_seconds']} s: "
            f"{report['questions_per_minute']} per minute; p50 {report['p50_seconds']} s, "
            f"p95 {report['p95_seconds']} s, max {report['max_seconds']} s; {report['errors']} errors; "
            f"answers {report['answer_statuses']}"
        )
        self.stdout.write(
            f"RSS web + workers: first quarter {memory['first_quarter_mean_mb']} MiB, last quarter "
            f"{memory['last_quarter_mean_mb']} MiB ({memory['growth_percent']}%), "
            f"max {memory['max_mb']} MiB, "
            f"{'flat' if memory['flat'] else 'GROWING'} over {memory['samples']} samples"
        )
        for failure in report["failures"]:
            self.stdout.write(f"  client {failure['client']} (job {failure['job_id']}): {failure['errors']}")
