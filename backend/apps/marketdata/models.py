"""One row per `market sync` run (the command or the beat task): what the data status page shows as
the last sync. The market rows themselves live in ClickHouse; this is the run's record."""

from __future__ import annotations

from django.db import models


class MarketSync(models.Model):
    source = models.CharField(max_length=32)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    succeeded = models.BooleanField()
    rows_written = models.BigIntegerField(default=0, help_text="rows the run inserted (delete-insert)")
    rows_added = models.BigIntegerField(default=0, help_text="rows in the store after the run minus before")
    tables = models.JSONField(default=dict, help_text="per table: rows written and added")
    error = models.TextField(blank=True)

    class Meta:
        ordering = ("-finished_at", "-id")
        indexes = (models.Index(fields=("-finished_at",), name="marketsync_finished"),)

    def __str__(self) -> str:
        outcome = f"+{self.rows_added} rows" if self.succeeded else "failed"
        return f"{self.source} sync {self.finished_at:%Y-%m-%d %H:%M} {outcome}"
