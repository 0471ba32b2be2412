"""Faults in production mode with real services on loopback: PostgreSQL connections dropped mid-job,
Redis restarted mid-job, a Celery worker killed mid-job.

The platform: a fresh PostgreSQL database on the test server, a PRIVATE redis-server on a free port
(restarted by the test; the shared one on 6379 is never touched), one Celery worker (restartable) that
owns the embedded market data, and daphne. For each fault: what the user sees (job status, the
stream's closing event) and that nothing stored is lost (every job's events numbered 1..n, stored
once, ending with job_finished).
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.exceptions import ConnectionClosedError
from websockets.sync.client import connect
from websockets.typing import Origin

from backend.apps.jobs.load import check_events
from tests.production.services import ROOT, fresh_postgres_database, subprocess_environment
from tests.production.test_jobs_production import _free_port, _manage, _stop

pytestmark = pytest.mark.production

QUESTIONS = ("2025年9月8日收盘价最高的上交所股票", "市值最大的10只股票", "PE below 15")
START_SECONDS = 240.0
FINISH_SECONDS = 240.0


def _start_redis(port: int, log: Path) -> subprocess.Popen[bytes]:
    redis_server = shutil.which("redis-server")
    assert redis_server, "redis-server is not installed (scripts/ensure-services.sh needs it too)"
    process = subprocess.Popen(
        [redis_server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout != b"PONG\n":
        assert time.monotonic() < deadline and process.poll() is None, (
            "the private redis-server did not start"
        )
        time.sleep(0.2)
    return process


@dataclass
class Platform:
    base_url: str
    token: str
    database_url: str
    redis_port: int
    environment: dict[str, str]
    data_dir: Path
    redis: subprocess.Popen[bytes]
    web: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def worker(self) -> subprocess.Popen[bytes]:
        return self.workers[-1]

    def start_worker(self) -> None:
        log = (self.data_dir / f"worker{len(self.workers)}.log").open("wb")
        self.workers.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "backend.project",
                    "worker",
                    "--pool=threads",
                    "--concurrency=2",
                    "--loglevel=INFO",
                    "--without-mingle",
                    "--without-gossip",
                ],
                cwd=ROOT,
                env=self.environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )

    def restart_redis(self) -> None:
        self.redis.terminate()
        self.redis.wait(timeout=30)
        self.redis = _start_redis(self.redis_port, self.data_dir / "redis.log")

    def ask(self, question: str) -> dict[str, Any]:
        asked = httpx.post(
            self.base_url + "/api/jobs/",
            json={"question": question},
            headers={"Authorization": f"Token {self.token}"},
            timeout=60,
        )
        assert asked.status_code == 202, asked.text
        return dict(asked.json())

    def jobs(self, ids: list[int]) -> dict[int, tuple[str, str, str]]:
        """(status, error_code, answer_status) per job, read from PostgreSQL directly."""
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

    def wait_finished(
        self, ids: list[int], timeout: float = FINISH_SECONDS
    ) -> dict[int, tuple[str, str, str]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.jobs(ids)
            if all(status not in {"queued", "running"} for status, _, _ in states.values()):
                return states
            time.sleep(0.5)
        raise AssertionError(f"jobs still active after {timeout} s: {self.jobs(ids)}")

    def follow(self, stream: str, reconnects: int = 0) -> list[dict[str, Any]]:
        """The job's whole stream as a client that connects now sees it; like the browser, it may
        reconnect `reconnects` times with ?after=<last seq> when the server closes the socket."""
        events: list[dict[str, Any]] = []
        while True:
            after = f"?after={events[-1]['seq']}" if events else ""
            url = self.base_url.replace("http://", "ws://") + stream + after
            try:
                with connect(
                    url,
                    additional_headers={"Authorization": f"Token {self.token}"},
                    origin=Origin(self.base_url),
                    open_timeout=60,
                ) as socket_:
                    while not events or events[-1]["type"] != "job_finished":
                        events.append(json.loads(socket_.recv(timeout=120))["event"])
                return events
            except ConnectionClosedError:
                if reconnects == 0:
                    raise
                reconnects -= 1


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    data_dir: Path = tmp_path_factory.mktemp("faults")
    redis_port = _free_port()
    redis = _start_redis(redis_port, data_dir / "redis.log")
    isolation = f"veriscreen-faults-{uuid.uuid4().hex[:8]}"
    with fresh_postgres_database() as database_url:
        environment = subprocess_environment(
            DATABASE_URL=database_url,
            REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
            VERISCREEN_DATA_DIR=str(data_dir),
            CLICKHOUSE_URL=f"chdb://{data_dir / 'chdb'}",
            CELERY_TASK_ALWAYS_EAGER="0",
            JOB_RUNNER="celery",
            JOB_HEARTBEAT_SECONDS="2",
            CELERY_TASK_DEFAULT_QUEUE=isolation,
            CHANNEL_LAYER_PREFIX=isolation,
            LOG_LEVEL="INFO",
        )
        _manage(environment, "migrate", "--noinput", "-v", "0")
        _manage(environment, "market", "init")
        _manage(environment, "market", "generate", "--stocks", "120")
        created = _manage(environment, "createuser", "fault-analyst", "--password", "pw-fault-1", "--token")
        token = created.splitlines()[-1].removeprefix("token ")
        port = _free_port()
        web = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "backend.project.asgi:application"],
            cwd=ROOT, env=environment, stdout=(data_dir / "web.log").open("wb"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        platform = Platform(
            f"http://127.0.0.1:{port}", token, database_url, redis_port, environment, data_dir, redis, web
        )
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
            # A first job end to end: the worker is up and has opened the market data.
            first = platform.ask(QUESTIONS[0])
            assert platform.wait_finished([first["id"]])[first["id"]][0] == "done"
            yield platform
        finally:
            _stop(platform.web)
            for worker in platform.workers:
                if worker.poll() is None:
                    _stop(worker)
            platform.redis.terminate()
            platform.redis.wait(timeout=30)


def _assert_complete(platform: Platform, job_id: int) -> list[dict[str, Any]]:
    # The job's row says it finished a moment before its writer has stored the closing event.
    deadline = time.monotonic() + 30
    while (events := platform.stored_events(job_id))[-1:] and events[-1]["type"] != "job_finished":
        assert time.monotonic() < deadline, f"job {job_id} has no closing event: {events[-1]}"
        time.sleep(0.2)
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    assert [event["type"] for event in events].count("job_finished") == 1
    assert events[-1]["type"] == "job_finished"
    return events


def test_postgresql_connections_dropped_mid_job(platform: Platform) -> None:
    jobs = [platform.ask(question) for question in QUESTIONS]
    ids = [job["id"] for job in jobs]
    platform.wait_running(ids)

    database_name = platform.database_url.rsplit("/", 1)[-1]
    with psycopg.connect(platform.database_url, autocommit=True) as database:
        terminated = database.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (database_name,),
        ).fetchone()
    assert terminated is not None and terminated[0] >= 1  # the worker's and the web server's connections

    states = platform.wait_finished(ids)
    # Every job finishes on new connections, answered; its events are all stored once, in order.
    assert {state[0] for state in states.values()} == {"done"}, states
    for job in jobs:
        assert check_events(_assert_complete(platform, job["id"])) == []
        assert platform.follow(job["stream"]) == platform.stored_events(job["id"])


def test_redis_restarted_mid_job(platform: Platform) -> None:
    jobs = [platform.ask(question) for question in QUESTIONS[:2]]
    ids = [job["id"] for job in jobs]
    platform.wait_running(ids)

    platform.restart_redis()  # broker, results and channel layer: everything in it is gone

    states = platform.wait_finished(ids)
    assert {state[0] for state in states.values()} == {"done"}, states
    for job in jobs:
        events = _assert_complete(platform, job["id"])
        assert check_events(events) == []
        # A client connecting after the restart gets the whole stream from PostgreSQL. The web server's
        # first use of a pooled Redis connection reset by the restart may close a socket with 1011;
        # the client reconnects with ?after= (as the browser does) and misses nothing.
        assert platform.follow(job["stream"], reconnects=1) == events
    # The platform keeps working on the new Redis: the next question is answered.
    after = platform.ask(QUESTIONS[0])
    assert platform.wait_finished([after["id"]])[after["id"]][0] == "done"


def test_a_worker_killed_mid_job_fails_the_job_once_and_the_next_worker_runs_new_jobs(
    platform: Platform,
) -> None:
    job = platform.ask(QUESTIONS[1])
    platform.wait_running([job["id"]])
    killed = platform.worker
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    stored_before = len(platform.stored_events(job["id"]))

    platform.start_worker()  # on start, and every JOB_HEARTBEAT_SECONDS, it fails jobs of dead workers
    states = platform.wait_finished([job["id"]], timeout=120)

    assert states[job["id"]][:2] == ("failed", "worker_lost")
    events = _assert_complete(platform, job["id"])
    assert len(events) == stored_before + 1  # what the killed worker stored, then the closing event
    assert events[-1]["job_status"] == "failed" and events[-1]["error_code"] == "worker_lost"
    assert events[-1]["message"] == "the process running this job stopped before it finished"
    assert platform.follow(job["stream"], reconnects=1) == events
    # The task is not run again (acknowledged when it started): no second run_started, no repeats.
    assert [event["type"] for event in events].count("run_started") <= 1
    time.sleep(5)
    assert len(platform.stored_events(job["id"])) == len(events)
    after = platform.ask(QUESTIONS[0])
    assert platform.wait_finished([after["id"]])[after["id"]][0] == "done"
