"""Production mode end to end: PostgreSQL (a fresh database), Redis as Celery broker and channel
layer, a real Celery worker process and the ASGI server (daphne) as a separate process.

Which process owns the embedded chdb directory: the Celery WORKER. It runs the jobs, so it opens the
market store (and claims the directory on first use); the web process never opens it — its readiness
check reports ClickHouse as `skipped` for that reason — so the two never contend for the directory.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect
from websockets.typing import Origin

from backend.apps.jobs.load import check_events
from backend.domain.market.ownership import RECORD_FILE
from tests.production.services import (
    REDIS_URL,
    ROOT,
    fresh_postgres_database,
    require_redis,
    subprocess_environment,
)

pytestmark = pytest.mark.production

QUESTION = "2025年9月8日收盘价最高的上交所股票"
START_SECONDS = 180.0


@dataclass(frozen=True)
class Platform:
    base_url: str
    token: str
    worker: subprocess.Popen[bytes]
    web: subprocess.Popen[bytes]
    data_dir: Path

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.base_url + path, headers={"Authorization": f"Token {self.token}"}, timeout=60)


def _manage(environment: dict[str, str], *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, f"manage.py {' '.join(arguments)}: {done.stderr[-3000:]}"
    return done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    require_redis()
    data_dir: Path = tmp_path_factory.mktemp("production-platform")
    isolation = f"veriscreen-test-{uuid.uuid4().hex[:10]}"
    with fresh_postgres_database() as database_url:
        environment = subprocess_environment(
            DATABASE_URL=database_url,
            REDIS_URL=REDIS_URL,
            VERISCREEN_DATA_DIR=str(data_dir),
            CLICKHOUSE_URL=f"chdb://{data_dir / 'chdb'}",
            CELERY_TASK_ALWAYS_EAGER="0",
            JOB_RUNNER="celery",
            CELERY_TASK_DEFAULT_QUEUE=isolation,  # no other worker on this Redis takes our jobs
            CHANNEL_LAYER_PREFIX=isolation,
            PROMETHEUS_MULTIPROC_DIR=str(data_dir / "metrics"),  # shared by web and worker: one scrape
            LOG_LEVEL="INFO",
        )
        _manage(environment, "migrate", "--noinput", "-v", "0")
        _manage(environment, "market", "init")
        _manage(environment, "market", "generate", "--stocks", "120")
        created = _manage(environment, "createuser", "prod-analyst", "--password", "pw-prod-1", "--token")
        token = created.splitlines()[-1].removeprefix("token ")
        port = _free_port()
        with (data_dir / "worker.log").open("wb") as worker_log, (data_dir / "web.log").open("wb") as web_log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "backend.project", "worker", "--pool=threads",
                 "--concurrency=2", "--loglevel=INFO", "--without-mingle", "--without-gossip"],
                cwd=ROOT, env=environment, stdout=worker_log, stderr=subprocess.STDOUT,
            )  # fmt: skip
            web = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                 "backend.project.asgi:application"],
                cwd=ROOT, env=environment, stdout=web_log, stderr=subprocess.STDOUT,
            )  # fmt: skip
            try:
                base_url = f"http://127.0.0.1:{port}"
                deadline = time.monotonic() + START_SECONDS
                while True:
                    assert web.poll() is None, (data_dir / "web.log").read_text(errors="replace")[-3000:]
                    try:
                        if httpx.get(base_url + "/api/health/live/", timeout=5).status_code == 200:
                            break
                    except httpx.HTTPError:
                        assert time.monotonic() < deadline, "the ASGI server did not start"
                        time.sleep(0.5)
                yield Platform(base_url, token, worker, web, data_dir)
            finally:
                _stop(web)
                _stop(worker)


def _follow(platform: Platform, stream: str, after: int = 0) -> list[dict[str, Any]]:
    url = platform.base_url.replace("http://", "ws://") + stream + (f"?after={after}" if after else "")
    events: list[dict[str, Any]] = []
    with connect(
        url,
        additional_headers={"Authorization": f"Token {platform.token}"},
        origin=Origin(platform.base_url),
        open_timeout=60,
    ) as socket_:
        while not events or events[-1]["type"] != "job_finished":
            events.append(json.loads(socket_.recv(timeout=180))["event"])
    return events


def test_a_job_runs_on_the_worker_and_streams_through_redis_to_the_asgi_server(platform: Platform) -> None:
    asked = httpx.post(
        platform.base_url + "/api/jobs/",
        json={"question": QUESTION},
        headers={"Authorization": f"Token {platform.token}"},
        timeout=60,
    )
    assert asked.status_code == 202, asked.text
    job = asked.json()

    live = _follow(platform, job["stream"])

    assert check_events(live) == []
    assert (live[-1]["job_status"], live[-1]["answer_status"]) == ("done", "verified")
    assert _follow(platform, job["stream"]) == live  # a late client: the whole history from PostgreSQL
    assert _follow(platform, job["stream"], after=4) == live[4:]
    result = platform.get(f"/api/jobs/{job['id']}/result/").json()
    assert result["row_count"] == 1 and result["job"]["status"] == "done"
    # The worker owns the embedded market data; the web process never opened it.
    owner = json.loads((platform.data_dir / "chdb" / RECORD_FILE).read_text())
    assert owner["pid"] == platform.worker.pid


def test_readiness_checks_postgresql_redis_and_the_broker(platform: Platform) -> None:
    ready = platform.get("/api/health/ready/")

    assert ready.status_code == 200, ready.text
    checks = {check["name"]: (check["state"], check["detail"]) for check in ready.json()["checks"]}
    assert checks["orm"] == ("ok", "postgresql")
    assert checks["channel_layer"] == ("ok", "RedisChannelLayer")
    assert checks["broker"][0] == "ok"
    assert checks["clickhouse"] == ("skipped", "the Celery worker owns the embedded market data")


def test_the_web_servers_metrics_add_up_the_jobs_its_worker_ran(platform: Platform) -> None:
    asked = httpx.post(
        platform.base_url + "/api/jobs/",
        json={"question": QUESTION},
        headers={"Authorization": f"Token {platform.token}"},
        timeout=60,
    )
    job_id = asked.json()["id"]
    events = _follow(platform, asked.json()["stream"])
    assert events[-1]["job_status"] == "done"

    scraped = httpx.get(platform.base_url + "/metrics", timeout=30)
    assert scraped.status_code == 200
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(scraped.text)
        for sample in family.samples
    }
    # Counted in the web process (submitted) and in the worker process (everything else).
    assert samples[("veriscreen_jobs_submitted_total", ())] >= 1
    assert samples[("veriscreen_jobs_finished_total", (("error_code", ""), ("status", "done")))] >= 1
    assert samples[("veriscreen_pipeline_runs_total", (("status", "verified"),))] >= 1
    steps = [event for event in events if event["type"] == "step_finished" and event["step"] == "execute"]
    assert samples[
        ("veriscreen_pipeline_step_seconds_count", (("outcome", "ok"), ("step", "execute")))
    ] >= len(steps)
    assert samples[("veriscreen_jobs_running", ())] == 0

    # The worker's log is JSON lines; those written while the job ran name it.
    lines = [
        json.loads(line)
        for line in (platform.data_dir / "worker.log").read_text().splitlines()
        if line.startswith("{")
    ]
    of_job = [line for line in lines if line["job_id"] == job_id]
    assert any(line["message"].startswith(f"job {job_id} started on ") for line in of_job)
    assert any(line["message"].startswith(f"job {job_id} done in ") for line in of_job)
    assert all(line["pid"] == platform.worker.pid for line in of_job)
