"""Prometheus metrics: what they count, how events become samples, and the /metrics exposition.

Pipeline metrics are read off the pipeline's own events (`observe_event`): the step that finished
and how long it took, every check's verdict, the paradigm library's hit or miss, the run's status,
and a job's end. Nothing else in the code counts these things, so a metric and the stored trace
cannot disagree. LLM calls and the store's admission queue have their own small hooks.

Several processes: the web server, and the Celery workers that run the jobs (a prefork pool forks a
child per slot). With PROMETHEUS_MULTIPROC_DIR set (production), prometheus-client's multiprocess
mode writes every process's samples to memory-mapped files in that directory and /metrics adds them
up at scrape time, so one scrape of the web server sees the jobs its workers ran. A registry per
process would need a port per Celery child, which Prometheus cannot discover and which a recycled
child takes away with its counts. The directory must be emptied when the deployment starts (a fresh
tmpfs or emptyDir); workers on another host share it through METRICS_WORKER_PORT instead (celery.py).
Without the variable (embedded mode: one process) the default registry is served as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

# Pipeline steps take milliseconds (a probe) to tens of seconds (an LLM generation on a busy server).
STEP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)

JOBS_SUBMITTED = Counter("veriscreen_jobs_submitted", "Jobs created by an ask or a screen re-run")
JOBS_FINISHED = Counter(
    "veriscreen_jobs_finished", "Jobs that ended, by job status and error code", ("status", "error_code")
)
JOBS_RUNNING = Gauge(
    "veriscreen_jobs_running", "Jobs running right now (live processes only)", multiprocess_mode="livesum"
)
PIPELINE_RUNS = Counter("veriscreen_pipeline_runs", "Pipeline runs by final status", ("status",))
STEP_SECONDS = Histogram(
    "veriscreen_pipeline_step_seconds",
    "Time of each pipeline step (probe, generate, execute, checklist, reverse_checks, correct, paradigm)",
    ("step", "outcome"),
    buckets=STEP_BUCKETS,
)
VERDICTS = Counter(
    "veriscreen_validation_verdicts", "Checklist and reverse-check verdicts", ("stage", "verdict")
)
PARADIGM = Counter(
    "veriscreen_paradigm_lookups",
    "Paradigm library outcomes (hit, adapted, miss, learned) on questions and on reverse queries",
    ("outcome", "query"),
)
LLM_CALLS = Counter(
    "veriscreen_llm_calls", "Calls to a language model by role and outcome", ("role", "outcome")
)
LLM_SECONDS = Histogram(
    "veriscreen_llm_call_seconds", "Latency of language-model calls", ("role",), buckets=STEP_BUCKETS
)
QUERIES_RUNNING = Gauge(
    "veriscreen_query_admission_running", "Market queries holding a slot", multiprocess_mode="livesum"
)
QUERIES_WAITING = Gauge(
    "veriscreen_query_admission_waiting", "Market queries waiting for a slot", multiprocess_mode="livesum"
)
QUERIES_REFUSED = Counter(
    "veriscreen_query_admission_refused", "Market queries refused because the queue was full (store_busy)"
)
QUERY_WAIT_SECONDS = Histogram(
    "veriscreen_query_admission_wait_seconds", "Time a market query waited for its slot", buckets=STEP_BUCKETS
)


def observe_event(event: Mapping[str, Any]) -> None:
    """Count one pipeline or job event, as stored and streamed (trace.RecordedEvent.to_dict)."""
    kind = event.get("type")
    if kind == "step_finished":
        STEP_SECONDS.labels(str(event["step"]), str(event["outcome"])).observe(float(event["ms"]) / 1000)
    elif kind == "check_verdict":
        VERDICTS.labels(str(event["stage"]), str(event["verdict"])).inc()
    elif kind == "paradigm":
        PARADIGM.labels(
            str(event["outcome"]), "question" if event.get("query", "question") == "question" else "reverse"
        ).inc()
    elif kind == "run_finished":
        PIPELINE_RUNS.labels(str(event["status"])).inc()
    elif kind == "job_finished":
        JOBS_FINISHED.labels(str(event["job_status"]), str(event.get("error_code") or "")).inc()


def observe_llm_calls(calls: Iterable[Mapping[str, Any]]) -> None:
    """Count recorded model calls (translation.LlmCall.to_dict): every attempt, failures included."""
    for call in calls:
        role = str(call["role"])
        LLM_CALLS.labels(role, "error" if call.get("error") else "ok").inc()
        LLM_SECONDS.labels(role).observe(float(call["latency_ms"]) / 1000)


class AdmissionMetrics:
    """The store's admission queue (execution.admission.AdmissionObserver)."""

    def occupancy(self, running: int, waiting: int) -> None:
        QUERIES_RUNNING.set(running)
        QUERIES_WAITING.set(waiting)

    def admitted(self, waited_seconds: float) -> None:
        QUERY_WAIT_SECONDS.observe(waited_seconds)

    def refused(self) -> None:
        QUERIES_REFUSED.inc()


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's files in multiprocess mode, else this process's metrics."""
    if not settings.METRICS_MULTIPROCESS_DIR:
        return REGISTRY
    combined = CollectorRegistry()
    MultiProcessCollector(combined)
    return combined


def exposition() -> tuple[bytes, str]:
    """The text exposition format, and its content type."""
    return generate_latest(registry()), CONTENT_TYPE_LATEST
