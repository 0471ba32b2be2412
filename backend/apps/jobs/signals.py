"""A Celery worker that becomes ready fails the jobs whose runner died (see services.fail_stale_jobs)."""

from __future__ import annotations

from typing import Any

from celery.signals import worker_ready


@worker_ready.connect
def fail_jobs_of_dead_workers(**kwargs: Any) -> None:
    from backend.apps.jobs.services import fail_stale_jobs

    fail_stale_jobs()
