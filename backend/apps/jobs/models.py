"""A job is one question asked by one user, run in the background; its events are the pipeline's trace
events (backend/domain/pipeline/trace.py) plus the job's own `job_finished`, numbered by `seq`."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

FINISHED_EVENT = "job_finished"  # the job's own last event, after the pipeline's


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


ACTIVE_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)


class Job(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="jobs")
    question = models.TextField()
    screen = models.ForeignKey(
        "screens.Screen",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="runs",
        help_text="the saved screen this job re-ran, if any",
    )
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # While the job is queued: when it was last handed to the runner (services.redispatch_lost_jobs).
    heartbeat_at = models.DateTimeField(default=timezone.now, help_text="last sign of life of its runner")
    worker = models.CharField(max_length=128, blank=True, help_text="host:pid of the process running it")
    cancel_requested = models.BooleanField(default=False)
    # The result summary (the full rows are in `result`).
    answer_status = models.CharField(max_length=32, blank=True, help_text="the pipeline's status")
    message = models.TextField(blank=True)
    error_code = models.CharField(max_length=64, blank=True)
    sql = models.TextField(blank=True)
    row_count = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True, help_text="the answer: columns, rows, checks, warnings…")
    pipeline_run = models.ForeignKey(
        "screening.PipelineRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (models.Index(fields=("owner", "-created_at"), name="job_owner_recent"),)

    def __str__(self) -> str:
        return f"job {self.pk} {self.status}: {self.question[:60]}"

    @property
    def finished(self) -> bool:
        return self.status not in ACTIVE_STATUSES


class JobEvent(models.Model):
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    payload = models.JSONField(help_text="the event as streamed (seq and type included)")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("job", "seq")
        constraints = (models.UniqueConstraint(fields=("job", "seq"), name="job_event_seq_unique"),)

    def __str__(self) -> str:
        return f"{self.job_id}#{self.seq} {self.type}"
