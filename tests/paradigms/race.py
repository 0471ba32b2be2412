"""Run inside `manage.py shell` by test_concurrency_postgres.py: fill the library, race inserts at
capacity from several processes, and report the outcome, all against the DATABASE_URL database."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

from backend.domain.language.qst import Node
from paradigms import selectors, services
from paradigms.models import LibraryDay, Origin, Paradigm, ValidationStatus


def ranking(limit: int) -> tuple[Node, str]:
    """A distinct valid paradigm per limit: 'the <limit> stocks with the highest close today'."""
    number: Node = {"label": "value:number", "value": limit, "children": []}
    qst: Node = {
        "label": "select",
        "children": [
            {"label": "return", "children": [{"label": "entity:stock", "children": []}]},
            {"label": "time:latest", "children": []},
            {"label": "order:desc", "children": [{"label": "attribute:close", "children": []}]},
            {"label": "limit", "children": [number]},
        ],
    }
    return qst, f"SELECT ts_code, close FROM market.daily ORDER BY close DESC, ts_code LIMIT {limit}"


def insert(limit: int, capacity: int) -> list[int]:
    qst, sql = ranking(limit)
    outcome = services.insert_paradigm(
        question=f"top {limit} by close",
        qst=qst,
        sql=sql,
        origin=Origin.LEARNED,
        validation_status=ValidationStatus.VERIFIED,
        resolved_on=None,
        capacity=capacity,
    )
    assert outcome.created
    return outcome.evicted_ids


def fill(capacity: int) -> None:
    for limit in range(1, capacity + 1):
        insert(limit, capacity)


def race(worker: int, inserts: int, capacity: int, barrier: Path) -> None:
    """Wait for the go signal, then insert `inserts` new paradigms at capacity, counting a use of a
    random paradigm after each (uses and evictions lock the same rows)."""
    (barrier / f"ready-{worker}").touch()
    while not (barrier / "go").exists():
        time.sleep(0.01)
    rng = random.Random(worker)
    evicted: list[int] = []
    for number in range(inserts):
        evicted.extend(insert(1000 * worker + number, capacity))
        services.record_use(rng.choice(list(Paradigm.objects.values_list("pk", flat=True))))
    print(json.dumps({"worker": worker, "evicted": evicted}))


def report() -> None:
    days = LibraryDay.objects.all()
    print(
        json.dumps(
            {
                "size": Paradigm.objects.count(),
                "ids": sorted(Paradigm.objects.values_list("pk", flat=True)),
                "insertions": sum(day.insertions for day in days),
                "evictions": sum(day.evictions for day in days),
                "stats_size": selectors.library_stats()["size"],
            }
        )
    )


def main() -> None:
    action = os.environ["RACE_ACTION"]
    capacity = int(os.environ["RACE_CAPACITY"])
    if action == "fill":
        fill(capacity)
    elif action == "race":
        race(
            int(os.environ["RACE_WORKER"]),
            int(os.environ["RACE_INSERTS"]),
            capacity,
            Path(os.environ["RACE_DIR"]),
        )
    else:
        report()
