"""Reads of recorded pipeline runs (the web platform's history and trace replay)."""

from __future__ import annotations

from typing import Any

from backend.apps.screening.models import PipelineEvent, PipelineRun


def recent_runs(limit: int = 50) -> list[PipelineRun]:
    return list(PipelineRun.objects.all()[:limit])


def run_events(run_id: int) -> list[dict[str, Any]]:
    """The run's trace, exactly as it was emitted, in `seq` order."""
    return [dict(event.payload) for event in PipelineEvent.objects.filter(run_id=run_id).order_by("seq")]
