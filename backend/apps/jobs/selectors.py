"""Reads of jobs and their events; who may see what."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db.models import QuerySet

from backend.apps.jobs.models import Job, JobEvent


def visible_jobs(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Job]:
    """A user sees their own jobs; an admin (staff) sees every job."""
    jobs = Job.objects.select_related("owner", "screen").defer("result")
    if getattr(user, "is_staff", False):
        return jobs
    return jobs.filter(owner_id=user.pk)


def own_jobs(user: User, screen_id: int | None = None) -> QuerySet[Job]:
    jobs = Job.objects.select_related("owner", "screen").defer("result").filter(owner_id=user.pk)
    return jobs if screen_id is None else jobs.filter(screen_id=screen_id)


def job_with_result(user: AbstractBaseUser | AnonymousUser, job_id: int) -> Job:
    """Raises Job.DoesNotExist for a job the user may not see."""
    jobs = Job.objects.select_related("owner", "screen")
    if not getattr(user, "is_staff", False):
        jobs = jobs.filter(owner_id=user.pk)
    return jobs.get(pk=job_id)


def can_see_job(user: AbstractBaseUser | AnonymousUser, job_id: int) -> bool:
    return bool(user.is_authenticated) and visible_jobs(user).filter(pk=job_id).exists()


def job_events(job_id: int, after: int = 0) -> list[dict[str, Any]]:
    """The job's events after `after`, in seq order, exactly as they were streamed."""
    return [
        dict(payload)
        for payload in JobEvent.objects.filter(job_id=job_id, seq__gt=after)
        .order_by("seq")
        .values_list("payload", flat=True)
    ]
