"""Where jobs run, behind one function: `dispatch(job_id)`.

JOB_RUNNER=threads (embedded default): a bounded thread pool inside the web process, so the ask request
returns the job id at once and the process stays the only one that opens the embedded market data.
JOB_RUNNER=celery (production default, with REDIS_URL): the `jobs.run_job` task on the Celery workers;
the worker processes own the market store (in production a ClickHouse server; with an embedded chdb
directory, the one worker that owns it).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def runs_in_process() -> bool:
    return bool(settings.JOB_RUNNER == "threads")


def _run_in_thread(job_id: int) -> None:
    from backend.apps.jobs.services import run_job

    try:
        run_job(job_id)
    finally:
        close_old_connections()


def _embedded_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            from backend.apps.jobs.services import fail_stale_jobs

            fail_stale_jobs()  # jobs of an earlier process on this data that died mid-job
            _pool = ThreadPoolExecutor(max_workers=settings.JOB_THREADS, thread_name_prefix="job")
        return _pool


def dispatch(job_id: int) -> None:
    if runs_in_process():
        _embedded_pool().submit(_run_in_thread, job_id)
        return
    from backend.apps.jobs.tasks import run_job_task

    run_job_task.delay(job_id)
