"""Jobs on the demo store: asking returns at once, the job runs the pipeline, its events are numbered,
stored once and end with job_finished; cancel (queued, running here, running elsewhere); stale jobs."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from backend.apps.jobs import runner, services
from backend.apps.jobs.load import check_events
from backend.apps.jobs.models import Job, JobEvent, JobStatus
from backend.apps.marketdata.selectors import json_rows
from backend.apps.screening.answers import AskAnswer
from backend.apps.screening.models import PipelineEvent
from backend.domain.market.errors import StoreBusy
from backend.domain.market.execution import current_context
from backend.domain.market.store import MarketStore
from tests.jobs.conftest import SEED_QUESTION, Person, wait_finished

pytestmark = [
    pytest.mark.django_db(transaction=True),  # the runner and the sink write from their own threads
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def events_of(person: Person, job_id: int, after: int = 0) -> list[dict]:
    response = person.client.get(f"/api/jobs/{job_id}/events/?after={after}")
    assert response.status_code == 200
    return response.json()["events"]


def test_a_job_runs_the_pipeline_and_stores_every_event_once_in_order(
    demo_store: MarketStore, alice: Person, held_jobs: list[int]
) -> None:
    response = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json")
    assert response.status_code == 202
    job_id = response.json()["id"]
    assert response.json()["status"] == "queued" and response.json()["stream"] == f"/ws/jobs/{job_id}/"
    assert held_jobs == [job_id]

    services.run_job(job_id)

    job = Job.objects.get(pk=job_id)
    assert (job.status, job.answer_status, job.row_count) == (JobStatus.DONE, "verified", 1)
    assert job.started_at is not None and job.finished_at is not None and job.finished_at.tzinfo is not None
    events = events_of(alice, job_id)
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run_started" and events[0]["question"] == SEED_QUESTION
    assert events[-2]["type"] == "run_finished" and events[-2]["status"] == "verified"
    assert events[-1] == {
        "type": "job_finished",
        "seq": len(events),
        "job_status": "done",
        "answer_status": "verified",
        "error_code": "",
        "message": job.message,
        "row_count": 1,
    }
    assert {"step_started", "step_finished", "check_verdict"} <= {event["type"] for event in events}
    # The pipeline's own record of the run holds the same events (the job adds job_finished).
    recorded = list(
        PipelineEvent.objects.filter(run=job.pipeline_run).order_by("seq").values_list("payload", flat=True)
    )
    assert recorded == events[:-1]
    assert events_of(alice, job_id, after=len(events) - 2) == events[-2:]

    result = alice.client.get(f"/api/jobs/{job_id}/result/").json()
    assert result["row_count"] == 1 and result["pages"] == 1 and result["job"]["answer_status"] == "verified"
    assert result["columns"] == demo_store.query(job.sql).columns
    assert result["rows"] == json_rows(demo_store.query(job.sql).rows)
    csv = alice.client.get(f"/api/jobs/{job_id}/result/csv/")
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv")
    lines = b"".join(csv.streaming_content).decode("utf-8-sig").splitlines()
    assert lines[0] == ",".join(result["columns"]) and len(lines) == 2

    services.run_job(job_id)  # a second delivery of the task does nothing
    assert JobEvent.objects.filter(job_id=job_id).count() == len(events)


def test_asking_answers_at_once_and_the_embedded_thread_pool_runs_the_job(
    demo_store: MarketStore, alice: Person
) -> None:
    assert runner.runs_in_process()
    response = alice.client.post("/api/jobs/", {"question": "PE below 15"}, format="json")
    assert response.status_code == 202 and response.json()["status"] in {"queued", "running"}

    job = wait_finished(response.json()["id"])

    assert (job.status, job.answer_status) == (JobStatus.DONE, "verified")
    listed = alice.client.get("/api/jobs/").json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == job.pk


def test_a_question_that_cannot_be_asked_creates_no_job(alice: Person, held_jobs: list[int]) -> None:
    response = alice.client.post("/api/jobs/", {"question": "   "}, format="json")

    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_request"
    assert held_jobs == [] and not Job.objects.exists()


def test_cancelling_a_queued_job_ends_it_and_it_never_runs(alice: Person, held_jobs: list[int]) -> None:
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]

    response = alice.client.post(f"/api/jobs/{job_id}/cancel/")

    assert response.status_code == 202 and response.json()["status"] == "cancelled"
    services.run_job(job_id)
    assert Job.objects.get(pk=job_id).status == JobStatus.CANCELLED
    [event] = events_of(alice, job_id)
    assert (event["seq"], event["type"], event["job_status"]) == (1, "job_finished", "cancelled")
    assert alice.client.get(f"/api/jobs/{job_id}/result/").json()["error"]["code"] == "no_result"
    again = alice.client.post(f"/api/jobs/{job_id}/cancel/")
    assert again.status_code == 200 and again.json()["status"] == "cancelled"


def _answer_waiting_for_cancel(question: str, **kwargs: object) -> AskAnswer:
    """Stands in for the pipeline: waits until the job's execution context is cancelled."""
    context = current_context()
    assert context.requester.startswith("user:")
    deadline = time.monotonic() + 30
    while not context.cancel.cancelled and time.monotonic() < deadline:
        time.sleep(0.02)
    return AskAnswer(question=question, status="query_cancelled")


@pytest.mark.parametrize("where", ["this process", "another process"])
def test_cancelling_a_running_job_stops_it_through_its_cancel_token(
    alice: Person, held_jobs: list[int], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    monkeypatch.setattr(services, "answer_question", _answer_waiting_for_cancel)
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]
    running = threading.Thread(target=services.run_job, args=(job_id,))
    running.start()
    while Job.objects.get(pk=job_id).status != JobStatus.RUNNING:
        time.sleep(0.02)

    if where == "this process":
        response = alice.client.post(f"/api/jobs/{job_id}/cancel/")
        assert response.status_code == 202
    else:  # a cancel made through another process only reaches the runner through the database
        Job.objects.filter(pk=job_id).update(cancel_requested=True)
    running.join(timeout=10)

    assert not running.is_alive()
    job = Job.objects.get(pk=job_id)
    assert (job.status, job.result) == (JobStatus.CANCELLED, None)
    assert events_of(alice, job_id)[-1]["job_status"] == "cancelled"


def _dead_pid() -> int:
    finished = subprocess.Popen(["true"])
    finished.wait()
    return finished.pid


def test_jobs_of_a_dead_runner_are_failed_and_live_ones_are_left_alone(
    alice: Person, settings: object, held_jobs: list[int]
) -> None:
    host = socket.gethostname()
    now = timezone.now()
    dead = Job.objects.create(
        owner=alice.user, question="q", status=JobStatus.RUNNING, worker=f"{host}:{_dead_pid()}"
    )
    queued_dead = Job.objects.create(owner=alice.user, question="q", worker=f"{host}:{_dead_pid()}")
    silent = Job.objects.create(
        owner=alice.user,
        question="q",
        status=JobStatus.RUNNING,
        worker="elsewhere:1",
        heartbeat_at=now - timedelta(hours=1),
    )
    alive = Job.objects.create(
        owner=alice.user, question="q", status=JobStatus.RUNNING, worker=services.this_worker()
    )
    elsewhere = Job.objects.create(
        owner=alice.user, question="q", status=JobStatus.RUNNING, worker="elsewhere:1"
    )
    JobEvent.objects.create(job=dead, seq=1, type="run_started", payload={"seq": 1, "type": "run_started"})

    failed = services.fail_stale_jobs()

    assert sorted(failed) == sorted([dead.pk, queued_dead.pk, silent.pk])
    for job in (dead, queued_dead, silent):
        job.refresh_from_db()
        assert (job.status, job.error_code) == (JobStatus.FAILED, "worker_lost")
    assert [event["seq"] for event in events_of(alice, dead.pk)] == [1, 2]
    assert events_of(alice, dead.pk)[-1]["job_status"] == "failed"
    assert Job.objects.get(pk=alive.pk).status == Job.objects.get(pk=elsewhere.pk).status == JobStatus.RUNNING


def test_the_embedded_runner_fails_the_jobs_of_a_killed_server_when_it_starts(
    alice: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server killed mid-job leaves it `running`; the next server process fails it on its first job."""
    orphan = Job.objects.create(
        owner=alice.user,
        question="q",
        status=JobStatus.RUNNING,
        worker=f"{socket.gethostname()}:{_dead_pid()}",
    )
    monkeypatch.setattr(runner, "_pool", None)
    monkeypatch.setattr(
        services, "answer_question", lambda question, **kwargs: AskAnswer(question, "verified")
    )

    job = wait_finished(alice.client.post("/api/jobs/", {"question": "q2"}, format="json").json()["id"])

    assert job.status == JobStatus.DONE
    orphan.refresh_from_db()
    assert (orphan.status, orphan.error_code) == (JobStatus.FAILED, "worker_lost")
    pool = runner._pool
    assert pool is not None
    pool.shutdown(wait=True)


def test_a_store_too_busy_to_take_the_job_fails_it_with_store_busy(
    alice: Person, held_jobs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def busy(question: str, **kwargs: object) -> AskAnswer:
        raise StoreBusy("the market store is busy; try again shortly", retry_after=3)

    monkeypatch.setattr(services, "answer_question", busy)
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]

    services.run_job(job_id)

    job = Job.objects.get(pk=job_id)
    assert (job.status, job.error_code) == (JobStatus.FAILED, "store_busy")
    [event] = events_of(alice, job_id)
    assert (event["type"], event["job_status"], event["error_code"]) == (
        "job_finished",
        "failed",
        "store_busy",
    )


def test_the_load_benchmark_flags_gaps_repeats_and_unfinished_streams() -> None:
    def stream(*types: str) -> list[dict]:
        return [{"seq": seq, "type": kind} for seq, kind in enumerate(types, start=1)]

    complete = stream("run_started", "step_started", "run_finished", "job_finished")
    assert check_events(complete) == []
    assert check_events([complete[0], complete[2], complete[3]])  # a gap
    assert check_events([complete[0], complete[1], complete[1], *complete[2:]])  # a repeat
    assert check_events(complete[:-1])  # no job_finished
    assert check_events(stream("run_started", "job_finished"))  # no run_finished


def test_a_job_a_broker_lost_is_sent_again_once_per_stale_period_and_runs_once(
    alice: Person, held_jobs: list[int], settings: Any, demo_store: MarketStore
) -> None:
    settings.JOB_RUNNER = "celery"  # a broker queue can be lost; the in-process pool cannot
    lost = services.submit_job(owner=alice.user, question=SEED_QUESTION)
    fresh = services.submit_job(owner=alice.user, question=SEED_QUESTION)
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS + 5)
    Job.objects.filter(pk=lost.pk).update(created_at=long_ago, heartbeat_at=long_ago)
    held_jobs.clear()

    assert services.redispatch_lost_jobs() == [lost.pk]
    assert held_jobs == [lost.pk]
    assert services.redispatch_lost_jobs() == []  # handed over just now: not again before it is stale
    services.run_job(lost.pk)
    services.run_job(lost.pk)  # the duplicate delivery finds it taken
    assert Job.objects.get(pk=lost.pk).status == JobStatus.DONE
    assert Job.objects.get(pk=fresh.pk).status == JobStatus.QUEUED
    seqs = list(JobEvent.objects.filter(job_id=lost.pk).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


def test_the_in_process_runner_sends_nothing_again(
    alice: Person, held_jobs: list[int], settings: Any
) -> None:
    settings.JOB_RUNNER = "threads"
    job = services.submit_job(owner=alice.user, question=SEED_QUESTION)
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS + 5)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=long_ago)

    assert services.redispatch_lost_jobs() == []
