"""Celery worker signals: a ready worker keeps failing the jobs whose runner died (see
services.fail_stale_jobs); metrics of a worker process that ends stop counting as live, and a worker
serves its metrics on METRICS_WORKER_PORT when set (web/metrics.py)."""

from __future__ import annotations

import os
import threading
from typing import Any

from celery.signals import worker_init, worker_process_shutdown, worker_ready, worker_shutdown
from django.conf import settings


@worker_ready.connect
def fail_jobs_of_dead_workers(**kwargs: Any) -> None:
    """Now, and then every JOB_HEARTBEAT_SECONDS while the worker lives: a job whose worker was killed
    is failed by the workers that survive it, not only when a worker starts."""
    from backend.apps.jobs.services import reap_stale_jobs_forever

    threading.Thread(target=reap_stale_jobs_forever, name="job-reaper", daemon=True).start()


@worker_init.connect
def serve_worker_metrics(**kwargs: Any) -> None:
    if settings.METRICS_WORKER_PORT:
        from prometheus_client import start_http_server

        from backend.apps.web.metrics import registry

        start_http_server(settings.METRICS_WORKER_PORT, registry=registry())


@worker_process_shutdown.connect
@worker_shutdown.connect
def retire_process_metrics(**kwargs: Any) -> None:
    """Live gauges (running jobs, admission queue) of this process no longer count once it is gone."""
    if settings.METRICS_MULTIPROCESS_DIR:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(os.getpid())
