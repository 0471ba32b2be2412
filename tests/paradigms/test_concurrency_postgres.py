"""Two worker processes inserting at capacity on the real PostgreSQL never exceed the capacity and
never evict a paradigm twice (the insert transaction locks the library row with SELECT … FOR UPDATE).

Each process is `manage.py shell` configured only by DATABASE_URL, as production is; tests/paradigms/
race.py is what they run."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.production.services import ROOT, fresh_postgres_database, subprocess_environment

pytestmark = pytest.mark.production

CAPACITY = 8
INSERTS_PER_WORKER = 25
WORKERS = (1, 2)
RUN_RACE = "from tests.paradigms.race import main; main()"


def _shell(database_url: str, **race: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", RUN_RACE],
        cwd=ROOT,
        env=subprocess_environment(DATABASE_URL=database_url, RACE_CAPACITY=str(CAPACITY), **race),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _last_json(output: str) -> dict[str, Any]:
    return json.loads(output.strip().splitlines()[-1])


def test_two_workers_at_capacity_neither_exceed_it_nor_evict_twice(tmp_path: Path) -> None:
    with fresh_postgres_database() as database_url:
        migrated = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=subprocess_environment(DATABASE_URL=database_url),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert migrated.returncode == 0, migrated.stderr
        filled = _shell(database_url, RACE_ACTION="fill")
        assert filled.returncode == 0, filled.stderr

        racers = [
            subprocess.Popen(
                [sys.executable, "manage.py", "shell", "-c", RUN_RACE],
                cwd=ROOT,
                env=subprocess_environment(
                    DATABASE_URL=database_url,
                    RACE_CAPACITY=str(CAPACITY),
                    RACE_ACTION="race",
                    RACE_WORKER=str(worker),
                    RACE_INSERTS=str(INSERTS_PER_WORKER),
                    RACE_DIR=str(tmp_path),
                ),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for worker in WORKERS
        ]
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"ready-{worker}").exists() for worker in WORKERS):
            assert time.monotonic() < deadline, "the racers did not start"
            assert all(racer.poll() is None for racer in racers), [racer.communicate() for racer in racers]
            time.sleep(0.05)
        (tmp_path / "go").touch()  # both are waiting: they start inserting together
        outputs = [racer.communicate(timeout=300) for racer in racers]
        for racer, (_stdout, stderr) in zip(racers, outputs, strict=True):
            assert racer.returncode == 0, stderr

        evicted = [
            paradigm_id for stdout, _stderr in outputs for paradigm_id in _last_json(stdout)["evicted"]
        ]
        final = _shell(database_url, RACE_ACTION="report")
        assert final.returncode == 0, final.stderr
        state = _last_json(final.stdout)

    inserted = len(WORKERS) * INSERTS_PER_WORKER
    assert state["size"] == state["stats_size"] == CAPACITY
    assert len(evicted) == inserted  # every insert at capacity evicted exactly one paradigm…
    assert len(set(evicted)) == inserted  # …and no paradigm was evicted twice
    assert not set(evicted) & set(state["ids"])
    assert state["insertions"] == CAPACITY + inserted
    assert state["evictions"] == inserted
