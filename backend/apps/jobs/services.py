"""Writes of the jobs app: submit a job, run it (the runner's thread or a Celery task calls `run_job`),
cancel it, and fail jobs whose runner died.

Running a job is a thin shell around backend.apps.screening.services.answer_question: the job's
JobEventSink receives the pipeline's events, the store's queries run in an execution context with the
job owner as requester and the job's CancelToken, and the answer becomes the job's result.

A runner that dies mid-job (a killed worker or server) cannot finish its job; `fail_stale_jobs` marks
such jobs failed with error code `worker_lost`: a job whose runner process on this host no longer
exists, or a running job whose heartbeat (written every JOB_HEARTBEAT_SECONDS while it runs) is older
than JOB_STALE_SECONDS. It runs when the embedded runner starts in a process, and in every Celery worker
every JOB_HEARTBEAT_SECONDS from the moment it is ready (so the workers that survive fail the jobs of
one that was killed). A killed worker's task is not run again: Celery acknowledged it when it started
(acks_late is off), so no event is stored twice.
"""

from __future__ import annotations

import contextvars
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import close_old_connections, transaction
from django.db.models import Max, Q
from django.utils import timezone

from backend.apps.jobs import runner
from backend.apps.jobs.models import ACTIVE_STATUSES, FINISHED_EVENT, Job, JobStatus
from backend.apps.jobs.reconnect import reconnecting
from backend.apps.jobs.sink import JobEventSink
from backend.apps.screening.answers import AskAnswer, clean_question
from backend.apps.screening.services import answer_question
from backend.apps.screens.models import Screen
from backend.apps.web import metrics
from backend.apps.web.logs import bound_job
from backend.domain.market.errors import StoreBusy
from backend.domain.market.execution import CancelToken, execution_context

logger = logging.getLogger(__name__)

# What a finished job saves (its status, summary and result).
FINISH_FIELDS = (
    "status",
    "error_code",
    "message",
    "answer_status",
    "sql",
    "row_count",
    "result",
    "pipeline_run",
    "finished_at",
)
CANCEL_POLL_SECONDS = 1.0  # how soon a runner in another process notices a cancel request

# Tokens of the jobs running in this process: a cancel from this process stops them at once.
_running: dict[int, CancelToken] = {}
_running_lock = threading.Lock()


def this_worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def requester_of_job(job: Job) -> str:
    """The store's fairness key of a job: its owner, as for the owner's own requests."""
    return f"user:{job.owner_id}"


def submit_job(*, owner: User, question: str, screen: Screen | None = None) -> Job:
    """Create a queued job and hand it to the runner once committed. Raises InvalidQuestion."""
    text = clean_question(question)
    worker = this_worker() if runner.runs_in_process() else ""
    job = Job.objects.create(owner=owner, question=text, screen=screen, worker=worker)
    transaction.on_commit(lambda: runner.dispatch(job.pk))
    metrics.JOBS_SUBMITTED.inc()
    return job


def _finish_payload(job: Job) -> dict[str, Any]:
    return {
        "type": FINISHED_EVENT,
        "job_status": job.status,
        "answer_status": job.answer_status,
        "error_code": job.error_code,
        "message": job.message,
        "row_count": job.row_count,
    }


def _publish_finish(sink: JobEventSink, job: Job) -> None:
    """Send the closing event, count the job's end, and wait until every event is stored and sent."""
    payload = _finish_payload(job)
    sink.publish(payload)
    metrics.observe_event(payload)
    sink.close()


def _next_seq(job_id: int) -> int:
    last = Job.objects.filter(pk=job_id).aggregate(last=Max("events__seq"))["last"]
    return int(last or 0) + 1


def _end_without_runner(job: Job, status: JobStatus, error_code: str, message: str) -> None:
    """Finish a job nobody runs (cancelled while queued, or its runner died) and tell its clients."""
    with bound_job(job.pk):
        _publish_finish(JobEventSink(job.pk, first_seq=_next_seq(job.pk)), job)
    logger.info("job %s ended without its runner: %s %s %s", job.pk, status, error_code, message)


def cancel_job(job: Job) -> Job:
    """Cancel a queued or running job; a finished job is returned as it is."""
    now = timezone.now()
    if Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        status=JobStatus.CANCELLED, cancel_requested=True, finished_at=now, message="cancelled before it ran"
    ):
        job.refresh_from_db()
        _end_without_runner(job, JobStatus.CANCELLED, "", job.message)
        return job
    if Job.objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(cancel_requested=True):
        with _running_lock:
            token = _running.get(job.pk)
        if token is not None:
            token.cancel()  # running here: stop its queries now; other processes poll cancel_requested
    job.refresh_from_db()
    return job


@contextmanager
def _heartbeat(job_id: int, cancel: CancelToken) -> Iterator[None]:
    """While the job runs: write its heartbeat, and relay a cancel request made by another process."""
    stop = threading.Event()

    def beat() -> None:
        last_beat = 0.0
        elapsed = 0.0
        try:
            while not stop.wait(CANCEL_POLL_SECONDS):
                elapsed += CANCEL_POLL_SECONDS
                if reconnecting(Job.objects.filter(pk=job_id, cancel_requested=True).exists):
                    cancel.cancel()
                if elapsed - last_beat >= settings.JOB_HEARTBEAT_SECONDS:
                    last_beat = elapsed
                    reconnecting(lambda: Job.objects.filter(pk=job_id).update(heartbeat_at=timezone.now()))
        finally:
            close_old_connections()

    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(beat,), name=f"job-{job_id}-heartbeat", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _answer(job: Job, sink: JobEventSink, cancel: CancelToken) -> tuple[AskAnswer | None, str, str]:
    """The answer, or (None, error code, message) when there is none."""
    try:
        with execution_context(requester_of_job(job), cancel):
            return answer_question(job.question, sink=sink), "", ""
    except StoreBusy as error:
        return None, error.code, str(error)
    except Exception:
        logger.exception("job %s failed", job.pk)
        return None, "server_error", "the job failed; the server log has the details"


def run_job(job_id: int) -> None:
    """Run a queued job to its end (a job already taken, cancelled or finished is left alone). Every
    line logged meanwhile, in this thread or the job's own threads, names the job."""
    with bound_job(job_id), metrics.JOBS_RUNNING.track_inprogress():
        _run_claimed(job_id)


def _run_claimed(job_id: int) -> None:
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=now, heartbeat_at=now, worker=this_worker()
    )
    if not claimed:
        return
    logger.info("job %s started on %s", job_id, this_worker())
    job = Job.objects.get(pk=job_id)
    cancel = CancelToken()
    with _running_lock:
        _running[job_id] = cancel
    sink = JobEventSink(job_id)
    try:
        with _heartbeat(job_id, cancel):
            answer, error_code, message = _answer(job, sink, cancel)
    finally:
        with _running_lock:
            _running.pop(job_id, None)
    if cancel.cancelled:
        job.status, job.error_code, job.message = JobStatus.CANCELLED, "", "cancelled while it ran"
    elif answer is None:
        job.status, job.error_code, job.message = JobStatus.FAILED, error_code, message
    else:
        job.status = JobStatus.DONE
        job.answer_status, job.message, job.sql = answer.status, answer.message, answer.sql or ""
        job.row_count = answer.row_count
        job.result = {key: value for key, value in answer.to_dict().items() if key != "trace"}
        job.pipeline_run_id = answer.run_id
    job.finished_at = timezone.now()
    reconnecting(lambda: job.save(update_fields=FINISH_FIELDS))
    _publish_finish(sink, job)
    seconds = (job.finished_at - now).total_seconds()
    logger.info("job %s %s in %.1f s %s", job_id, job.status, seconds, job.error_code or job.answer_status)


def _process_gone(worker: str) -> bool:
    host, _, pid = worker.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def fail_stale_jobs() -> list[int]:
    """Mark failed every job whose runner is gone; returns their ids."""
    stale_before = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS)
    candidates = Job.objects.filter(
        Q(status=JobStatus.RUNNING, heartbeat_at__lt=stale_before)
        | Q(status__in=ACTIVE_STATUSES, worker__startswith=f"{socket.gethostname()}:")
    ).only("pk", "status", "worker", "heartbeat_at")
    failed: list[int] = []
    for job in candidates:
        heartbeat_stale = job.status == JobStatus.RUNNING and job.heartbeat_at < stale_before
        if not heartbeat_stale and not _process_gone(job.worker):
            continue
        message = "the process running this job stopped before it finished"
        if not Job.objects.filter(pk=job.pk, status__in=ACTIVE_STATUSES).update(
            status=JobStatus.FAILED, error_code="worker_lost", message=message, finished_at=timezone.now()
        ):
            continue
        job.refresh_from_db()
        _end_without_runner(job, JobStatus.FAILED, "worker_lost", message)
        failed.append(job.pk)
    return failed


def redispatch_lost_jobs() -> list[int]:
    """Hand again to the broker every job still queued JOB_STALE_SECONDS after it was last handed over.

    A broker restarted without persistence forgets its queue, and such a job would stay `queued` for
    ever. Sending one twice is harmless: a runner claims only a job that is still queued. While a job is
    queued its `heartbeat_at` is when it was last handed over; the conditional update lets one reaper
    of several send it. Returns the ids sent again.
    """
    if runner.runs_in_process():  # the in-process pool loses nothing that the process itself keeps
        return []
    now = timezone.now()
    stale_before = now - timedelta(seconds=settings.JOB_STALE_SECONDS)
    waiting = Job.objects.filter(status=JobStatus.QUEUED, heartbeat_at__lt=stale_before)
    sent: list[int] = []
    for job_id in waiting.values_list("pk", flat=True):
        if Job.objects.filter(pk=job_id, status=JobStatus.QUEUED, heartbeat_at__lt=stale_before).update(
            heartbeat_at=now
        ):
            runner.dispatch(job_id)
            sent.append(job_id)
    if sent:
        logger.warning("jobs %s were still queued after %s s: sent again", sent, settings.JOB_STALE_SECONDS)
    return sent


def reap_stale_jobs_forever() -> None:
    """A worker's reaper thread, every JOB_HEARTBEAT_SECONDS: fail the jobs of dead runners and send
    again the queued jobs a broker lost."""
    while True:
        try:
            fail_stale_jobs()
            redispatch_lost_jobs()
        except Exception:  # the database or the broker may be away for a while: try again next round
            logger.exception("reaping stale jobs did not work this round")
        finally:
            close_old_connections()
        time.sleep(settings.JOB_HEARTBEAT_SECONDS)
