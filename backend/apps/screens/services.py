"""Writes of screens: save, change, delete, run (a run is a job of the user who runs it)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from backend.apps.jobs.models import Job
from backend.apps.jobs.services import submit_job
from backend.apps.screening.answers import clean_question
from backend.apps.screens.models import Screen


class ScreenNameTaken(ValueError):
    """The owner has a screen of that name already."""


def _save(screen: Screen) -> Screen:
    name = screen.name
    if Screen.objects.filter(owner_id=screen.owner_id, name=name).exclude(pk=screen.pk).exists():
        raise ScreenNameTaken(f"you have a screen named {name!r} already")
    try:
        with transaction.atomic():
            screen.save()
    except IntegrityError as error:  # saved by a concurrent request meanwhile
        raise ScreenNameTaken(f"you have a screen named {name!r} already") from error
    return screen


def create_screen(*, owner: User, name: str, question: str, description: str, shared: bool) -> Screen:
    """Raises InvalidQuestion for an empty or too long question, ScreenNameTaken for a name in use."""
    screen = Screen(
        owner_id=owner.pk,
        name=name.strip(),
        question=clean_question(question),
        description=description,
        shared=shared,
    )
    return _save(screen)


def update_screen(screen: Screen, changes: dict[str, Any]) -> Screen:
    """Raises InvalidQuestion and ScreenNameTaken as create_screen does."""
    if "question" in changes:
        changes = {**changes, "question": clean_question(changes["question"])}
    if "name" in changes:
        changes = {**changes, "name": changes["name"].strip()}
    for field, value in changes.items():
        setattr(screen, field, value)
    return _save(screen)


def delete_screen(screen: Screen) -> None:
    screen.delete()  # its runs stay in their owners' history, without the screen


def run_screen(screen: Screen, user: User) -> Job:
    """Ask the screen's question again, on the data as it is now."""
    return submit_job(owner=user, question=screen.question, screen=screen)
