"""Reads of screens: a user sees their own and the shared ones; an admin sees all."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet

from backend.apps.jobs.models import Job, JobStatus
from backend.apps.screens.models import Screen


def visible_screens(user: AbstractBaseUser | AnonymousUser, search: str = "") -> QuerySet[Screen]:
    screens = Screen.objects.select_related("owner")
    if not getattr(user, "is_staff", False):
        screens = screens.filter(Q(owner_id=user.pk) | Q(shared=True))
    if search:
        screens = screens.filter(
            Q(name__icontains=search) | Q(question__icontains=search) | Q(description__icontains=search)
        )
    return screens


def can_edit(user: AbstractBaseUser | AnonymousUser, screen: Screen) -> bool:
    return screen.owner_id == user.pk or bool(getattr(user, "is_staff", False))


def screen_runs(user: AbstractBaseUser | AnonymousUser, screen: Screen) -> QuerySet[Job]:
    """The screen's runs this user may see: their own (an admin: everyone's), newest first."""
    runs = Job.objects.select_related("owner", "screen").defer("result").filter(screen=screen)
    return runs if getattr(user, "is_staff", False) else runs.filter(owner_id=user.pk)


def latest_result(user: AbstractBaseUser | AnonymousUser, screen: Screen) -> Job | None:
    """The user's newest finished run of the screen with a result (an admin: anyone's)."""
    runs = Job.objects.select_related("owner", "screen").filter(
        screen=screen, status=JobStatus.DONE, result__isnull=False
    )
    if not getattr(user, "is_staff", False):
        runs = runs.filter(owner_id=user.pk)
    return runs.order_by("-finished_at", "-id").first()
