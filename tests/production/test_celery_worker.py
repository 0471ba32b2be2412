"""A real Celery worker process, Redis as broker and result backend, running a guarded query on a
chdb store that the worker owns (its own data directory: chdb allows one process per directory)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery import Celery

from backend.domain.market.errors import QueryRejected, ResultTooLarge
from tests.production.services import REDIS_URL, ROOT, require_redis, subprocess_environment

pytestmark = pytest.mark.production

TASK = "marketdata.run_guarded_query"
ROW_LIMIT = 5


@pytest.fixture
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Celery, str]]:
    """(client app, queue) for a solo-pool worker consuming a queue of its own."""
    require_redis()
    queue = f"veriscreen-test-{uuid.uuid4().hex[:12]}"
    data_dir: Path = tmp_path_factory.mktemp("worker-data")
    log = (data_dir / "worker.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "backend.project",
            "worker",
            "--pool=solo",
            "--queues",
            queue,
            "--loglevel",
            "INFO",
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
        ],
        cwd=ROOT,
        env=subprocess_environment(
            REDIS_URL=REDIS_URL,
            VERISCREEN_DATA_DIR=str(data_dir),
            QUERY_MAX_RESULT_ROWS=str(ROW_LIMIT),
            CELERY_TASK_ALWAYS_EAGER="0",
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    client = Celery("veriscreen-test-client", broker=REDIS_URL, backend=REDIS_URL)
    try:
        yield client, queue
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        client.close()


def _run(worker: tuple[Celery, str], sql: str) -> object:
    client, queue = worker
    # The task waits in the queue until the worker is up, so no readiness polling is needed.
    return client.send_task(TASK, args=[sql], queue=queue).get(timeout=120)


def test_worker_runs_guarded_queries_with_its_own_store_and_limits(worker: tuple[Celery, str]) -> None:
    # One test, one worker process: starting a worker costs seconds.
    sql = "SELECT sum(number) AS total, count() AS n, toDate('2025-09-08') AS day FROM numbers(5)"
    result = _run(worker, sql)
    assert isinstance(result, dict)
    assert result["columns"] == ["total", "n", "day"]
    assert result["rows"] == [[10, 5, "2025-09-08"]]

    # A guard refusal inside the worker reaches the caller as the same error class.
    with pytest.raises(QueryRejected, match=r"table function file\(\)"):
        _run(worker, "SELECT * FROM file('/etc/passwd', 'LineAsString')")

    # The worker applies the limits of its own settings (QUERY_MAX_RESULT_ROWS from its environment).
    with pytest.raises(ResultTooLarge):
        _run(worker, f"SELECT number FROM numbers({ROW_LIMIT + 1})")
