"""Celery tasks of the jobs app: thin wrappers around services."""

from __future__ import annotations

from celery import shared_task

from backend.apps.jobs import services


@shared_task(name="jobs.run_job", ignore_result=True)
def run_job_task(job_id: int) -> None:
    services.run_job(job_id)
