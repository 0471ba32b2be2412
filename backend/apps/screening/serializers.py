"""Request and response shapes of the ask API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.apps.screening.event_serializers import PipelineEventField
from backend.domain.language.limits import MAX_QUESTION_CHARS

MAX_CANDIDATE_SQL_CHARS = 20_000


class AskRequestSerializer(serializers.Serializer[Any]):
    question = serializers.CharField(
        max_length=MAX_QUESTION_CHARS,
        help_text="A screening question in Chinese or English (text, never SQL)",
    )


class ValidateRequestSerializer(AskRequestSerializer):
    sql = serializers.CharField(
        max_length=MAX_CANDIDATE_SQL_CHARS,
        help_text="The candidate SQL to validate; it replaces the generated first SQL",
    )
    correct = serializers.BooleanField(
        default=True, help_text="Regenerate when the candidate fails its checks (at most PIPELINE_MAX_ROUNDS)"
    )


class LlmCallSerializer(serializers.Serializer[Any]):
    role = serializers.CharField()
    model = serializers.CharField()
    latency_ms = serializers.FloatField()
    prompt_tokens = serializers.IntegerField(allow_null=True)
    completion_tokens = serializers.IntegerField(allow_null=True)
    total_tokens = serializers.IntegerField(allow_null=True)
    attempt = serializers.IntegerField()
    error = serializers.CharField(allow_null=True)


class CheckSerializer(serializers.Serializer[Any]):
    id = serializers.CharField()
    stage = serializers.ChoiceField(choices=["checklist", "reverse"], help_text="Which stage wrote it")
    level = serializers.ChoiceField(choices=["syntax", "execution", "constraint", "result"])
    kind = serializers.CharField()
    text = serializers.CharField(help_text="The check as a sentence in the question's language")
    sql = serializers.CharField(
        allow_null=True, help_text="The reverse SQL (null for a check on the SQL tree)"
    )
    criterion = serializers.CharField()
    verdict = serializers.ChoiceField(choices=["pass", "fail", "undecidable"])
    attribution = serializers.CharField(allow_null=True, help_text="What a failure blames")
    reason = serializers.CharField(allow_blank=True)
    ms = serializers.FloatField()
    point = serializers.CharField(allow_null=True, help_text="The question's point, when two checks judge it")


class RoundSerializer(serializers.Serializer[Any]):
    round = serializers.IntegerField()
    sql = serializers.CharField()
    passed = serializers.BooleanField()
    error = serializers.CharField(allow_null=True)
    failed = serializers.ListField(child=serializers.CharField())
    undecided = serializers.ListField(child=serializers.CharField())


class AskAnswerSerializer(serializers.Serializer[Any]):
    question = serializers.CharField()
    status = serializers.CharField(
        help_text="verified | corrected | unverified | not_understood | error, or when no SQL could run "
        "the market error: query_rejected | query_failed | query_timeout | result_too_large | "
        "memory_limit_exceeded | store_unavailable"
    )
    message = serializers.CharField(allow_blank=True, help_text="Why there is no verified answer (or a note)")
    sql = serializers.CharField(allow_null=True)
    qst = serializers.JSONField(allow_null=True, help_text="Query Structure Tree of the question")
    columns = serializers.ListField(child=serializers.CharField())
    column_types = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(child=serializers.ListField(child=serializers.JSONField()))
    row_count = serializers.IntegerField()
    warnings = serializers.ListField(child=serializers.CharField())
    timings_ms = serializers.DictField(child=serializers.FloatField())
    llm_calls = LlmCallSerializer(many=True)
    engine = serializers.CharField()
    initial_sql = serializers.CharField(
        allow_null=True, help_text="The first SQL (generated, or the candidate)"
    )
    checks = CheckSerializer(many=True, help_text="The checks of the SQL whose result is returned")
    rounds = RoundSerializer(many=True, help_text="Every candidate tried, the first SQL first")
    correction_round = serializers.IntegerField(allow_null=True, help_text="The round verified (corrected)")
    trace = serializers.ListField(child=PipelineEventField(), help_text="The run's events, in seq order")
    run_id = serializers.IntegerField(allow_null=True, help_text="The recorded run")
    paradigms = serializers.ListField(
        child=serializers.JSONField(),
        help_text=(
            "The paradigm library on the question and on each reverse query (`query`: `question` or the"
            " reverse check's id): hit (id, distance), adapted, miss, learned (new id)"
        ),
    )
