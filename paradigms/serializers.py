"""Request and response shapes of the paradigm curation API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.domain.paradigms.trees import outline
from paradigms.models import Origin, Paradigm

MAX_SQL_CHARS = 20_000
MAX_IMPORT_CHARS = 5_000_000
# Far beyond any library, and within the 64-bit integer the databases take for OFFSET.
MAX_LIST_OFFSET = 1_000_000_000


class ParadigmListQuerySerializer(serializers.Serializer[Any]):
    search = serializers.CharField(required=False, allow_blank=True, help_text="words of the question")
    pinned = serializers.BooleanField(required=False, allow_null=True, default=None)
    origin = serializers.ChoiceField(choices=Origin.choices, required=False)
    limit = serializers.IntegerField(required=False, default=50, min_value=1, max_value=500)
    offset = serializers.IntegerField(required=False, default=0, min_value=0, max_value=MAX_LIST_OFFSET)


class ParadigmSummarySerializer(serializers.ModelSerializer[Paradigm]):
    hits = serializers.IntegerField(read_only=True, help_text="uses since it was stored")
    uses_30d = serializers.IntegerField(read_only=True, help_text="uses in the 30-day eviction window")
    last_used = serializers.DateField(read_only=True, allow_null=True)

    class Meta:
        model = Paradigm
        fields: tuple[str, ...] = (
            "id",
            "question",
            "kind",
            "origin",
            "validation_status",
            "pinned",
            "created_at",
            "node_count",
            "hits",
            "uses_30d",
            "last_used",
        )


class ParadigmPageSerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField()
    results = ParadigmSummarySerializer(many=True)


class ParadigmDetailSerializer(ParadigmSummarySerializer):
    qst_tree = serializers.SerializerMethodField(help_text="the QST as an indented tree, one node a line")

    class Meta(ParadigmSummarySerializer.Meta):
        fields = (
            *ParadigmSummarySerializer.Meta.fields,
            "qst",
            "qst_tree",
            "sql_template",
            "slots",
            "fixed_dates",
            "resolved_on",
            "check_spec",
        )

    def get_qst_tree(self, paradigm: Paradigm) -> list[str]:
        return outline(paradigm.qst)


class SqlEditSerializer(serializers.Serializer[Any]):
    sql = serializers.CharField(
        max_length=MAX_SQL_CHARS,
        help_text="the paradigm's SQL for its own question (literals written out); it is guard-checked, "
        "validated on the question and templated again before it is saved",
    )


class PinSerializer(serializers.Serializer[Any]):
    pinned = serializers.BooleanField(help_text="pinned paradigms are never evicted")


class ImportSerializer(serializers.Serializer[Any]):
    yaml = serializers.CharField(max_length=MAX_IMPORT_CHARS, help_text="an export file's text")


class ImportReportSerializer(serializers.Serializer[Any]):
    created = serializers.IntegerField()
    existing = serializers.IntegerField()
    evicted = serializers.IntegerField()
    failed = serializers.ListField(child=serializers.CharField())


class LibraryDaySerializer(serializers.Serializer[Any]):
    day = serializers.DateField()
    hits = serializers.IntegerField()
    misses = serializers.IntegerField()
    hit_rate = serializers.FloatField(allow_null=True)
    insertions = serializers.IntegerField()
    evictions = serializers.IntegerField()


class LibraryStatsSerializer(serializers.Serializer[Any]):
    size = serializers.IntegerField()
    pinned = serializers.IntegerField()
    capacity = serializers.IntegerField()
    tau = serializers.FloatField()
    top_k = serializers.IntegerField()
    hits = serializers.IntegerField()
    misses = serializers.IntegerField()
    insertions = serializers.IntegerField()
    evictions = serializers.IntegerField()
    hit_rate = serializers.FloatField(allow_null=True)
    history = LibraryDaySerializer(many=True, help_text="the last 30 days, oldest first")
