"""Request and response shapes of the ask API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.domain.language.limits import MAX_QUESTION_CHARS


class AskRequestSerializer(serializers.Serializer[Any]):
    question = serializers.CharField(
        max_length=MAX_QUESTION_CHARS,
        help_text="A screening question in Chinese or English (text, never SQL)",
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


class AskAnswerSerializer(serializers.Serializer[Any]):
    question = serializers.CharField()
    status = serializers.CharField(
        help_text="ok | not_understood | error | query_rejected | query_failed | query_timeout | "
        "result_too_large | memory_limit_exceeded | store_unavailable"
    )
    message = serializers.CharField(allow_blank=True, help_text="Why the status is not ok (or a note)")
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
