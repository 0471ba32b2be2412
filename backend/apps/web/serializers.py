"""The error body every API endpoint answers with (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class ErrorDetailSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(help_text="Stable machine-readable name, e.g. query_rejected")
    message = serializers.CharField(help_text="What went wrong, for a person")
    field_errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Per-field validation messages (invalid_request only)",
    )
    request_id = serializers.CharField(
        required=False, help_text="Server errors only: quote it when reporting; the server log has it"
    )


class ErrorSerializer(serializers.Serializer[Any]):
    error = ErrorDetailSerializer()


class HealthCheckSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(
        help_text="orm, channel_layer, broker, clickhouse, or llm:<roles> for each model endpoint in use"
    )
    state = serializers.ChoiceField(choices=["ok", "failed", "skipped"])
    detail = serializers.CharField(allow_blank=True)
    ms = serializers.FloatField()


class HealthSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=["ok", "unavailable"])
    checks = HealthCheckSerializer(many=True)
