"""Pipeline runs and their events, kept so that the web platform can show the history of answers and
replay a run's trace (the events are exactly backend.domain.pipeline.trace's dictionaries)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class PipelineRun(models.Model):
    question = models.TextField()
    status = models.CharField(
        max_length=32, help_text="verified | corrected | unverified | not_understood | error"
    )
    error_code = models.CharField(max_length=64, blank=True, help_text="the market error that left no result")
    engine = models.CharField(max_length=32)
    lang = models.CharField(max_length=2)
    candidate_sql = models.TextField(blank=True, help_text="an external candidate (manage.py validate --sql)")
    initial_sql = models.TextField(blank=True)
    final_sql = models.TextField(blank=True, help_text="the SQL whose result was returned")
    correction_round = models.PositiveSmallIntegerField(null=True, blank=True)
    row_count = models.PositiveIntegerField(default=0)
    warnings = models.JSONField(default=list)
    total_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.status}: {self.question[:60]}"


class PipelineEvent(models.Model):
    run = models.ForeignKey(PipelineRun, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    at_ms = models.FloatField()
    payload = models.JSONField(help_text="the event as the trace serialises it (seq and type included)")

    class Meta:
        ordering = ("run", "seq")
        constraints = (models.UniqueConstraint(fields=("run", "seq"), name="pipeline_event_seq_unique"),)

    def __str__(self) -> str:
        return f"{self.run_id}#{self.seq} {self.type}"
