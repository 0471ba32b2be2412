"""`manage.py load_run` runs only the production layout, and its memory summary says flat or growing."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from backend.apps.jobs.management.commands.load_run import MemorySampler


def test_load_run_refuses_the_embedded_settings_naming_what_to_set() -> None:
    with pytest.raises(CommandError) as refused:
        call_command("load_run", "--minutes", "0.2")
    assert str(refused.value) == (
        "load_run runs the production layout; set VERISCREEN_PRODUCTION=1, REDIS_URL (broker and channel "
        "layer), DATABASE_URL=postgres://…, JOB_RUNNER=celery"
    )


@pytest.mark.parametrize(
    ("totals", "flat"),
    [([500, 510, 505, 520, 515, 508, 512, 530], True), ([500, 520, 560, 600, 640, 680, 700, 760], False)],
)
def test_memory_is_flat_when_the_last_quarter_stays_within_ten_percent_of_the_first(
    totals: list[float], flat: bool
) -> None:
    sampler = MemorySampler({}, 1.0)
    sampler.samples = [{"t": float(second), "total": total} for second, total in enumerate(totals)]
    assert sampler.summary()["flat"] is flat
