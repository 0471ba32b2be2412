"""Screens: save, search, names unique per owner, re-run (a new job each time), latest result as JSON
with pages and as CSV."""

from __future__ import annotations

import pytest

from backend.apps.jobs.models import Job, JobStatus
from tests.jobs.conftest import Person

pytestmark = pytest.mark.django_db


def test_screens_are_searched_by_name_question_or_description(alice: Person) -> None:
    for name, question, description in [
        ("cheap", "PE below 15", ""),
        ("leaders", "市值最大的10只股票", "largest caps"),
        ("banks", "银行股市盈率", ""),
    ]:
        created = alice.client.post(
            "/api/screens/", {"name": name, "question": question, "description": description}, format="json"
        )
        assert created.status_code == 201

    def found(text: str) -> list[str]:
        return [
            screen["name"] for screen in alice.client.get("/api/screens/", {"search": text}).json()["results"]
        ]

    assert found("pe below") == ["cheap"]
    assert found("市值") == ["leaders"]
    assert found("LARGEST") == ["leaders"]
    assert sorted(found("")) == ["banks", "cheap", "leaders"]


def test_a_name_is_unique_per_owner_and_a_question_must_be_askable(alice: Person, bob: Person) -> None:
    first = alice.client.post("/api/screens/", {"name": "cheap", "question": "PE below 15"}, format="json")
    again = alice.client.post("/api/screens/", {"name": " cheap ", "question": "PE below 10"}, format="json")
    blank = alice.client.post("/api/screens/", {"name": "blank", "question": "   "}, format="json")
    other = bob.client.post("/api/screens/", {"name": "cheap", "question": "PE below 15"}, format="json")

    assert first.status_code == 201 and other.status_code == 201
    assert again.status_code == 409 and again.json()["error"]["code"] == "screen_name_taken"
    assert blank.status_code == 400 and blank.json()["error"]["code"] == "invalid_request"
    renamed = alice.client.post("/api/screens/", {"name": "second", "question": "PE below 10"}, format="json")
    clash = alice.client.patch(f"/api/screens/{renamed.json()['id']}/", {"name": "cheap"}, format="json")
    assert clash.status_code == 409


def test_rerunning_creates_a_job_and_the_latest_finished_run_is_the_result(
    alice: Person, held_jobs: list[int]
) -> None:
    screen_id = alice.client.post(
        "/api/screens/", {"name": "s", "question": "PE below 15"}, format="json"
    ).json()["id"]
    assert alice.client.get(f"/api/screens/{screen_id}/result/").json()["error"]["code"] == "no_result"

    first, second = (alice.client.post(f"/api/screens/{screen_id}/runs/").json()["id"] for _ in range(2))
    rows = [[f"{n:06d}.SH", n + 0.5] for n in range(250)]
    Job.objects.filter(pk=first).update(
        status=JobStatus.DONE, result={"columns": ["ts_code", "pe"], "column_types": [], "rows": rows[:1]}
    )
    Job.objects.filter(pk=second).update(
        status=JobStatus.DONE, result={"columns": ["ts_code", "pe"], "column_types": [], "rows": rows}
    )
    Job.objects.filter(pk=first).update(finished_at="2026-01-01T00:00:00+08:00")
    Job.objects.filter(pk=second).update(finished_at="2026-01-02T00:00:00+08:00")

    page = alice.client.get(f"/api/screens/{screen_id}/result/", {"page": 3, "page_size": 100}).json()
    assert (page["job"]["id"], page["row_count"], page["pages"], page["page"]) == (second, 250, 3, 3)
    assert page["rows"] == rows[200:]
    csv = alice.client.get(f"/api/screens/{screen_id}/result/csv/")
    lines = b"".join(csv.streaming_content).decode("utf-8-sig").splitlines()
    assert lines[0] == "ts_code,pe" and len(lines) == 251 and lines[1] == "000000.SH,0.5"
    history = alice.client.get(f"/api/screens/{screen_id}/runs/").json()
    assert [job["id"] for job in history["results"]] == [second, first]


def test_a_job_still_running_has_no_result_yet(alice: Person, held_jobs: list[int]) -> None:
    job_id = alice.client.post("/api/jobs/", {"question": "PE below 15"}, format="json").json()["id"]

    response = alice.client.get(f"/api/jobs/{job_id}/result/")

    assert response.status_code == 409 and response.json()["error"]["code"] == "job_not_finished"
