"""Who may do what: anonymous clients are refused (401), a user sees only their own jobs and their own
and shared screens (another user's are 404), only the owner or an admin changes a screen, an admin
(staff) reads every job."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from backend.apps.jobs.models import Job, JobStatus
from backend.apps.screens.models import Screen
from tests.jobs.conftest import Person

pytestmark = pytest.mark.django_db

JOB_PATHS = (
    "/api/jobs/{id}/",
    "/api/jobs/{id}/result/",
    "/api/jobs/{id}/result/csv/",
    "/api/jobs/{id}/events/",
)


def done_job(owner: Person) -> Job:
    return Job.objects.create(
        owner=owner.user,
        question="PE below 15",
        status=JobStatus.DONE,
        answer_status="verified",
        row_count=2,
        result={
            "columns": ["ts_code", "pe"],
            "column_types": ["String", "Float64"],
            "rows": [["a", 1.5], ["b", 2.5]],
        },
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/jobs/"),
        ("post", "/api/jobs/"),
        ("get", "/api/jobs/1/"),
        ("post", "/api/jobs/1/cancel/"),
        ("get", "/api/screens/"),
        ("post", "/api/screens/"),
        ("post", "/api/screens/1/runs/"),
        ("get", "/api/auth/me/"),
        ("get", "/api/semantic/"),
        ("get", "/api/semantic/concepts/"),
    ],
)
def test_anonymous_clients_are_refused_with_401_and_a_json_error(method: str, path: str) -> None:
    response = getattr(APIClient(), method)(path, {}, format="json")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["error"]["code"] == "not_authenticated"


def test_a_wrong_token_is_401(alice: Person) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")

    response = client.get("/api/jobs/")

    assert response.status_code == 401 and response.json()["error"]["code"] == "authentication_failed"


@pytest.mark.parametrize("path", JOB_PATHS)
def test_a_job_is_read_by_its_owner_and_an_admin_and_is_404_for_anyone_else(
    alice: Person, bob: Person, admin: Person, path: str
) -> None:
    job = done_job(alice)
    url = path.format(id=job.pk)

    assert alice.client.get(url).status_code == 200
    assert admin.client.get(url).status_code == 200
    refused = bob.client.get(url)
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"


def test_another_users_job_cannot_be_cancelled(alice: Person, bob: Person, held_jobs: list[int]) -> None:
    job_id = alice.client.post("/api/jobs/", {"question": "PE below 15"}, format="json").json()["id"]

    assert bob.client.post(f"/api/jobs/{job_id}/cancel/").status_code == 404
    assert Job.objects.get(pk=job_id).status == JobStatus.QUEUED


def test_the_job_list_is_my_history_only(alice: Person, bob: Person) -> None:
    mine = [done_job(alice), done_job(alice)]
    done_job(bob)

    listed = alice.client.get("/api/jobs/").json()

    assert listed["count"] == 2
    assert [job["id"] for job in listed["results"]] == [job.pk for job in reversed(mine)]
    assert {job["owner"] for job in listed["results"]} == {"alice"}


def test_screens_are_private_unless_shared_and_only_the_owner_or_an_admin_changes_them(
    alice: Person, bob: Person, admin: Person
) -> None:
    private = alice.client.post("/api/screens/", {"name": "cheap", "question": "PE below 15"}, format="json")
    shared = alice.client.post(
        "/api/screens/",
        {"name": "top SSE", "question": "2025年9月8日收盘价最高的上交所股票", "shared": True},
        format="json",
    )
    assert private.status_code == shared.status_code == 201
    private_id, shared_id = private.json()["id"], shared.json()["id"]

    assert [s["id"] for s in bob.client.get("/api/screens/").json()["results"]] == [shared_id]
    assert bob.client.get(f"/api/screens/{private_id}/").status_code == 404
    assert bob.client.get(f"/api/screens/{shared_id}/").json()["editable"] is False
    refused = bob.client.patch(f"/api/screens/{shared_id}/", {"name": "mine now"}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied"
    assert bob.client.delete(f"/api/screens/{shared_id}/").status_code == 403
    assert bob.client.delete(f"/api/screens/{private_id}/").status_code == 404

    assert {s["id"] for s in admin.client.get("/api/screens/").json()["results"]} == {private_id, shared_id}
    renamed = admin.client.patch(f"/api/screens/{private_id}/", {"name": "cheap stocks"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "cheap stocks"
    assert alice.client.delete(f"/api/screens/{private_id}/").status_code == 204
    assert not Screen.objects.filter(pk=private_id).exists()


def test_a_shared_screen_run_by_another_user_is_that_users_job(
    alice: Person, bob: Person, held_jobs: list[int]
) -> None:
    screen = alice.client.post(
        "/api/screens/", {"name": "s", "question": "PE below 15", "shared": True}, format="json"
    ).json()

    run = bob.client.post(f"/api/screens/{screen['id']}/runs/")

    assert run.status_code == 202 and run.json()["owner"] == "bob" and run.json()["screen"] == screen["id"]
    job_id = run.json()["id"]
    assert Job.objects.get(pk=job_id).owner == bob.user
    assert [job["id"] for job in bob.client.get(f"/api/screens/{screen['id']}/runs/").json()["results"]] == [
        job_id
    ]
    assert alice.client.get(f"/api/screens/{screen['id']}/runs/").json()["count"] == 0
    assert alice.client.get(f"/api/jobs/{job_id}/").status_code == 404
