"""Production mode end to end: PostgreSQL (a fresh database), Redis as Celery broker and channel
layer, a real Celery worker process and the ASGI server (daphne) as a separate process.

Which process owns the embedded chdb directory: the Celery WORKER. It runs the jobs, so it opens the
market store (and claims the directory on first use); the web process never opens it — its readiness
check reports ClickHouse as `skipped` for that reason — so the two never contend for the directory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from backend.apps.jobs.load import check_events
from backend.domain.market.ownership import RECORD_FILE
from tests.production.platform import Platform, running_platform
from tests.production.services import REDIS_URL, require_redis

pytestmark = pytest.mark.production

QUESTION = "2025年9月8日收盘价最高的上交所股票"


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    require_redis()
    data_dir: Path = tmp_path_factory.mktemp("production-platform")
    # The metrics directory is shared by web and worker: one scrape adds up both.
    metrics = str(data_dir / "metrics")
    with running_platform(data_dir, REDIS_URL, PROMETHEUS_MULTIPROC_DIR=metrics) as platform:
        yield platform


def test_a_job_runs_on_the_worker_and_streams_through_redis_to_the_asgi_server(platform: Platform) -> None:
    job = platform.ask(QUESTION)

    live = platform.follow(job["stream"])

    assert check_events(live) == []
    assert (live[-1]["job_status"], live[-1]["answer_status"]) == ("done", "verified")
    assert platform.follow(job["stream"]) == live  # a late client: the whole history from PostgreSQL
    assert platform.follow(job["stream"], after=4) == live[4:]
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
    job = platform.ask(QUESTION)
    job_id = job["id"]
    events = platform.follow(job["stream"])
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
    lines = [json.loads(line) for line in platform.worker_log().splitlines() if line.startswith("{")]
    of_job = [line for line in lines if line["job_id"] == job_id]
    assert any(line["message"].startswith(f"job {job_id} started on ") for line in of_job)
    assert any(line["message"].startswith(f"job {job_id} done in ") for line in of_job)
    assert all(line["pid"] == platform.worker.pid for line in of_job)
