"""Structured logs: one JSON object per line, naming the request and the job it was written under.

The ids live in context variables: the request id is set by RequestIdMiddleware for each ASGI/WSGI
request, the job id by `bound_job` while a job runs (jobs.services.run_job, which the Celery task and
the embedded runner both call). Threads started for a job copy the context (contextvars.copy_context),
so the lines of its event writer, heartbeat, probes and reverse checks carry the same id.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime

from django.http import HttpRequest

from backend.apps.web.request_id import META_KEY, current_request_id

_job: ContextVar[int | None] = ContextVar("veriscreen_job_id", default=None)

# LogRecord attributes that are not extra fields a caller passed with `extra=`.
# Django's `request` extra is an object: its id is what the line needs, and `request_id` has it.
_STANDARD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {
    "message",
    "asctime",
    "request_id",
    "job_id",
    "request",
}


def current_job_id() -> int | None:
    return _job.get()


@contextmanager
def bound_job(job_id: int) -> Iterator[None]:
    """Every line logged in this context (and in threads that copy it) names the job."""
    token = _job.set(job_id)
    try:
        yield
    finally:
        _job.reset(token)


class LogContextFilter(logging.Filter):
    """Adds `request_id` and `job_id` (None outside a request or a job) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)  # Django's request records carry the request
        from_request = request.META.get(META_KEY) if isinstance(request, HttpRequest) else None
        record.request_id = current_request_id() or from_request
        record.job_id = current_job_id()
        return True


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "message", "request_id", "job_id", "pid", "thread"[, "exc"][, extras]}`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
            "job_id": getattr(record, "job_id", None),
            "pid": record.process,
            "thread": record.threadName,
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD_FIELDS and key not in line and not key.startswith("_"):
                line[key] = value
        return json.dumps(line, ensure_ascii=False, default=str)
