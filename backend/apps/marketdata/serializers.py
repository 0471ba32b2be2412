"""Request and response shapes of the market-data API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

MAX_SQL_CHARS = 20_000


class SqlRequestSerializer(serializers.Serializer[Any]):
    sql = serializers.CharField(
        max_length=MAX_SQL_CHARS,
        help_text="Exactly one read statement (SELECT/WITH) in the ClickHouse dialect",
    )


class TableResultSerializer(serializers.Serializer[Any]):
    columns = serializers.ListField(child=serializers.CharField())
    column_types = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(child=serializers.ListField(child=serializers.JSONField()))
    row_count = serializers.IntegerField()
    elapsed_ms = serializers.FloatField()


class TableStatsSerializer(serializers.Serializer[Any]):
    table = serializers.CharField()
    rows = serializers.IntegerField()
    date_column = serializers.CharField(allow_null=True)
    min_date = serializers.DateField(allow_null=True)
    max_date = serializers.DateField(allow_null=True)
    stocks = serializers.IntegerField(allow_null=True, help_text="Distinct stock codes, if any")


class DatasetInfoSerializer(serializers.Serializer[Any]):
    dataset = serializers.CharField()
    synthetic = serializers.BooleanField()
    description = serializers.CharField()
    licence = serializers.CharField()
    loaded_at = serializers.DateTimeField()


class MarketSyncSerializer(serializers.Serializer[Any]):
    source_name = serializers.CharField(
        source="source", help_text="Where it fetched from: tushare or akshare"
    )
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField()
    succeeded = serializers.BooleanField()
    rows_written = serializers.IntegerField(help_text="Rows the run inserted (each slice is delete-insert)")
    rows_added = serializers.IntegerField(help_text="Rows in the store after the run minus before")
    error = serializers.CharField(help_text="Why the run failed; empty when it succeeded")


class MarketStatsSerializer(serializers.Serializer[Any]):
    database = serializers.CharField()
    synthetic = serializers.BooleanField(help_text="True when any loaded dataset is generated, not observed")
    tables = TableStatsSerializer(many=True)
    datasets = DatasetInfoSerializer(many=True)
    last_sync = MarketSyncSerializer(allow_null=True, help_text="The latest `market sync` run; null if none")
