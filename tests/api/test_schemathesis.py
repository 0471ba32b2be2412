"""Property-based calls of every operation of the OpenAPI schema (schemathesis, bounded: at most 25
generated requests per operation) as an admin with a token: no answer may be a server error (5xx).

Jobs created by the calls are not run (the runner is held); the pipeline is exercised by tests/jobs.
Throttling is lifted for the run so that every generated request reaches its view.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle
from schemathesis.checks import not_a_server_error

from backend.apps.accounts.services import create_user, issue_token
from backend.apps.jobs import runner
from backend.project.wsgi import application

MAX_EXAMPLES = 25


schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)  # no database needed


@pytest.fixture
def admin_token(db: None, demo_store: object, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(runner, "dispatch", lambda job_id: None)
    unlimited = {"anon": None, "user": None}
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", unlimited)
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", unlimited)
    # As Django's test client does: requests must not close the test's database connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield issue_token(create_user("fuzz-admin", "fuzz-pass-1", "admin"))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.mark.django_db
@pytest.mark.filterwarnings("ignore:No directory at:UserWarning")
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_no_operation_answers_a_server_error(case: schemathesis.Case, admin_token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Token {admin_token}"}, checks=[not_a_server_error])
