"""The production platform the end-to-end tests start: a fresh PostgreSQL database, the Redis they are
given, Celery workers and daphne as separate processes, one analyst with a token.

The Celery WORKER owns the embedded chdb directory: it runs the jobs, so it opens the market store;
the web process never opens it. Each platform sends its tasks to a queue and its channel-layer groups
under a prefix of its own, so that other workers on the same Redis never take its jobs.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from websockets.exceptions import ConnectionClosedError
from websockets.sync.client import connect
from websockets.typing import Origin

from tests.production.services import ROOT, fresh_postgres_database, subprocess_environment

START_SECONDS = 240.0
FINISH_SECONDS = 240.0
WORKER = [
    *(sys.executable, "-m", "celery", "-A", "backend.project", "worker"),
    *("--pool=threads", "--concurrency=2", "--loglevel=INFO", "--without-mingle", "--without-gossip"),
]
# (status, error_code, answer_status) of a job, as stored
JobState = tuple[str, str, str]


def manage(environment: dict[str, str], *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, f"manage.py {' '.join(arguments)}: {done.stderr[-3000:]}"
    return done.stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class Platform:
    base_url: str
    token: str
    database_url: str
    environment: dict[str, str]
    data_dir: Path
    web: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def worker(self) -> subprocess.Popen[bytes]:
        """The worker started last."""
        return self.workers[-1]

    def start_worker(self) -> None:
        log = (self.data_dir / f"worker{len(self.workers)}.log").open("wb")
        self.workers.append(
            subprocess.Popen(WORKER, cwd=ROOT, env=self.environment, stdout=log, stderr=subprocess.STDOUT)
        )

    def worker_log(self, number: int = -1) -> str:
        position = number if number >= 0 else len(self.workers) + number
        return (self.data_dir / f"worker{position}.log").read_text(errors="replace")

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.base_url + path, headers={"Authorization": f"Token {self.token}"}, timeout=60)

    def ask(self, question: str) -> dict[str, Any]:
        asked = httpx.post(
            self.base_url + "/api/jobs/",
            json={"question": question},
            headers={"Authorization": f"Token {self.token}"},
            timeout=60,
        )
        assert asked.status_code == 202, asked.text
        return dict(asked.json())

    def jobs(self, ids: list[int]) -> dict[int, JobState]:
        """Each job's state, read from PostgreSQL directly."""
        with psycopg.connect(self.database_url) as database:
            rows = database.execute(
                "SELECT id, status, error_code, answer_status FROM jobs_job WHERE id = ANY(%s)", (ids,)
            ).fetchall()
        return {row[0]: (row[1], row[2], row[3]) for row in rows}

    def stored_events(self, job_id: int) -> list[dict[str, Any]]:
        with psycopg.connect(self.database_url) as database:
            rows = database.execute(
                "SELECT payload FROM jobs_jobevent WHERE job_id = %s ORDER BY seq", (job_id,)
            ).fetchall()
        return [row[0] for row in rows]

    def wait_running(self, ids: list[int], timeout: float = FINISH_SECONDS) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            running = [job for job, (status, _, _) in self.jobs(ids).items() if status == "running"]
            if running:
                return running[0]
            time.sleep(0.05)
        raise AssertionError(f"none of the jobs {ids} started running")

    def wait_finished(self, ids: list[int], timeout: float = FINISH_SECONDS) -> dict[int, JobState]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.jobs(ids)
            if all(status not in {"queued", "running"} for status, _, _ in states.values()):
                return states
            time.sleep(0.5)
        raise AssertionError(f"jobs still active after {timeout} s: {self.jobs(ids)}")

    def follow(self, stream: str, *, after: int = 0, reconnects: int = 0) -> list[dict[str, Any]]:
        """The job's stream from `after` on, as a client that connects now sees it; like the browser, it
        may reconnect `reconnects` times with ?after=<last seq> when the server closes the socket."""
        events: list[dict[str, Any]] = []
        while True:
            last = events[-1]["seq"] if events else after
            url = self.base_url.replace("http://", "ws://") + stream + (f"?after={last}" if last else "")
            try:
                with connect(
                    url,
                    additional_headers={"Authorization": f"Token {self.token}"},
                    origin=Origin(self.base_url),
                    open_timeout=60,
                ) as socket_:
                    while not events or events[-1]["type"] != "job_finished":
                        events.append(json.loads(socket_.recv(timeout=180))["event"])
                return events
            except ConnectionClosedError:
                if reconnects == 0:
                    raise
                reconnects -= 1


@contextmanager
def running_platform(data_dir: Path, redis_url: str, **settings: str) -> Iterator[Platform]:
    """Migrate a fresh database, generate a small market, create an analyst, start daphne and one
    worker and wait until the server answers; everything is stopped on the way out. `settings` are
    extra environment variables of both processes."""
    isolation = f"veriscreen-test-{uuid.uuid4().hex[:10]}"
    with fresh_postgres_database() as database_url:
        environment = subprocess_environment(
            DATABASE_URL=database_url,
            REDIS_URL=redis_url,
            VERISCREEN_DATA_DIR=str(data_dir),
            CLICKHOUSE_URL=f"chdb://{data_dir / 'chdb'}",
            CELERY_TASK_ALWAYS_EAGER="0",
            JOB_RUNNER="celery",
            CELERY_TASK_DEFAULT_QUEUE=isolation,  # no other worker on this Redis takes our jobs
            CHANNEL_LAYER_PREFIX=isolation,
            LOG_LEVEL="INFO",
            **settings,
        )
        manage(environment, "migrate", "--noinput", "-v", "0")
        manage(environment, "market", "init")
        manage(environment, "market", "generate", "--stocks", "120")
        created = manage(environment, "createuser", "prod-analyst", "--password", "pw-prod-1", "--token")
        token = created.splitlines()[-1].removeprefix("token ")
        port = free_port()
        web = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "backend.project.asgi:application"],
            cwd=ROOT, env=environment, stdout=(data_dir / "web.log").open("wb"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        platform = Platform(f"http://127.0.0.1:{port}", token, database_url, environment, data_dir, web)
        platform.start_worker()
        try:
            deadline = time.monotonic() + START_SECONDS
            while True:
                assert web.poll() is None, (data_dir / "web.log").read_text(errors="replace")[-3000:]
                try:
                    if httpx.get(platform.base_url + "/api/health/live/", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline, "the ASGI server did not start"
                    time.sleep(0.5)
            yield platform
        finally:
            for process in [web, *platform.workers]:
                if process.poll() is None:
                    stop(process)
