"""Request and response shapes of the jobs API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from backend.apps.jobs.models import FINISHED_EVENT, Job, JobStatus
from backend.apps.screening.event_serializers import PIPELINE_EVENT_SERIALIZERS, event_serializer, event_union
from backend.domain.language.limits import MAX_QUESTION_CHARS


class AskJobRequestSerializer(serializers.Serializer[Any]):
    question = serializers.CharField(
        max_length=MAX_QUESTION_CHARS,
        help_text="A screening question in Chinese or English (text, never SQL)",
    )


class JobSerializer(serializers.ModelSerializer[Job]):
    owner = serializers.CharField(source="owner.username", read_only=True)
    screen = serializers.IntegerField(source="screen_id", allow_null=True, read_only=True)
    status = serializers.ChoiceField(choices=JobStatus.choices, read_only=True)
    answer_status = serializers.CharField(
        read_only=True,
        help_text="Once done: verified | corrected | unverified | not_understood | error, or the market "
        "error that left no result (query_failed, query_timeout, store_unavailable, …)",
    )
    error_code = serializers.CharField(
        read_only=True, help_text="Why a job failed: store_busy | server_error | worker_lost"
    )
    stream = serializers.SerializerMethodField(help_text="WebSocket path of the job's live events")

    class Meta:
        model = Job
        fields = (
            "id",
            "owner",
            "question",
            "screen",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "answer_status",
            "message",
            "error_code",
            "sql",
            "row_count",
            "stream",
        )
        read_only_fields = fields

    def get_stream(self, job: Job) -> str:
        return f"/ws/jobs/{job.pk}/"


class JobResultSerializer(serializers.Serializer[Any]):
    job = JobSerializer()
    columns = serializers.ListField(child=serializers.CharField())
    column_types = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(
        child=serializers.ListField(child=serializers.JSONField()), help_text="This page's rows"
    )
    row_count = serializers.IntegerField(help_text="All rows of the result")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    pages = serializers.IntegerField()
    initial_sql = serializers.CharField(allow_null=True)
    qst = serializers.JSONField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())
    checks = serializers.ListField(child=serializers.JSONField())
    rounds = serializers.ListField(child=serializers.JSONField())
    correction_round = serializers.IntegerField(allow_null=True)
    timings_ms = serializers.DictField(child=serializers.FloatField())
    engine = serializers.CharField()


JobFinishedEventSerializer = event_serializer(
    "JobFinishedEvent",
    FINISHED_EVENT,
    {
        "job_status": serializers.ChoiceField(
            choices=[JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED]
        ),
        "answer_status": serializers.CharField(help_text="As the job's answer_status"),
        "error_code": serializers.CharField(help_text="As the job's error_code"),
        "message": serializers.CharField(),
        "row_count": serializers.IntegerField(),
    },
    "The job's own last event: the job ended and its result is stored.",
)


@extend_schema_field(
    event_union("JobEvent", {**PIPELINE_EVENT_SERIALIZERS, FINISHED_EVENT: JobFinishedEventSerializer})
)
class JobEventField(serializers.JSONField):
    """One event of a job's stream: a pipeline event or the closing `job_finished`."""


class JobEventsSerializer(serializers.Serializer[Any]):
    events = serializers.ListField(child=JobEventField(), help_text="Events after `after`, in seq order")
    finished = serializers.BooleanField(help_text="The job has ended: no event will follow the last one")
