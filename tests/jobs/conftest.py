"""Users, API clients and job helpers for the platform tests (jobs, screens, accounts, WebSocket)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.apps.accounts.services import create_user, issue_token
from backend.apps.jobs import runner
from backend.apps.jobs.models import Job

SEED_QUESTION = "2025年9月8日收盘价最高的上交所股票"


@dataclass(frozen=True)
class Person:
    user: User
    token: str
    client: APIClient


def person(username: str, role: str = "analyst") -> Person:
    user = create_user(username, "pass-" + username, role)  # type: ignore[arg-type]
    client = APIClient()
    token = issue_token(user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return Person(user, token, client)


@pytest.fixture
def alice(db: None) -> Person:
    return person("alice")


@pytest.fixture
def bob(db: None) -> Person:
    return person("bob")


@pytest.fixture
def admin(db: None) -> Person:
    return person("root", "admin")


@pytest.fixture
def held_jobs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Submitted jobs are not run: their ids are collected, and the test runs them (run_job) itself."""
    held: list[int] = []
    monkeypatch.setattr(runner, "dispatch", held.append)
    return held


def wait_finished(job_id: int, timeout: float = 120.0) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.finished:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout} s")
