"""Response shapes of the semantic-model API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class WordsSerializer(serializers.Serializer[Any]):
    zh = serializers.ListField(child=serializers.CharField())
    en = serializers.ListField(child=serializers.CharField())


class MetricSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    meaning = serializers.CharField()
    table = serializers.CharField()
    column = serializers.CharField()
    kind = serializers.CharField(help_text="daily or report")
    stored_unit = serializers.CharField(help_text="the unit the column is stored in")
    input_unit = serializers.CharField(help_text="the unit a bare number in a question is read in")
    percent = serializers.BooleanField()
    words = WordsSerializer()


class DimensionSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    column = serializers.CharField()
    meaning = serializers.CharField()
    words = serializers.ListField(child=serializers.CharField())


class IndustryGroupSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    words = serializers.ListField(child=serializers.CharField())
    industries = serializers.ListField(child=serializers.CharField())


class SemanticModelSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    metrics = MetricSerializer(many=True)
    dimensions = DimensionSerializer(many=True)
    units = serializers.JSONField(help_text="scale and share units with their factors, unit words")
    exchanges = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    boards = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    industries = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    industry_groups = IndustryGroupSerializer(many=True)
    indexes = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    conventions = serializers.DictField(child=serializers.CharField())


class ConceptSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    family = serializers.CharField()
    title = serializers.CharField()
    reads = serializers.CharField()
    words = WordsSerializer()
    definition = serializers.JSONField(help_text="the concept as a QST building block")
    units = serializers.CharField(allow_blank=True)
    examples = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField(help_text="supported or planned")
    note = serializers.CharField(allow_blank=True)
