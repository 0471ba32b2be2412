"""Write the reverse checks for one answer and run them in parallel through the guarded store.

The checks are independent (model.py), so they run side by side (side_by_side.py: threads the process
keeps, the calling thread one of the workers, the caller's context on every thread) and the stage
takes as long as the slowest one.

chdb releases the GIL while a query runs; the guard's parse (about 1 ms a check) and the driver's
Python hold it. Each worker guards its own check (the store's query does) and releases the GIL as its
query enters chdb, so the next worker's Python runs while the first query does. All guarded in the
calling thread first, a worker waited for the GIL until the caller's loop of guards was forced to
switch (the interpreter's 5 ms switch interval) or blocked on the results: the queries started only
after every check was guarded (side by side over one by one: 0.81-0.90 that way, 0.70-0.81 this way,
the same checks in turns on one machine; benchmarks/validation/results/README.md).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial

from backend.domain.market.errors import MarketError, StoreBusy
from backend.domain.pipeline.ports import MarketReader, ResultRows
from backend.domain.pipeline.side_by_side import side_by_side
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.reverse.model import Judgement, ReverseCheck, unknown
from backend.domain.pipeline.validate.reverse.rules import RULES
from backend.domain.pipeline.validate.reverse.subject import Subject

MAX_CHECKS = 12  # bounded, so one question never floods the store's queue


def write_checks(subject: Subject) -> list[ReverseCheck]:
    return [check for rule in RULES for check in rule(subject)][:MAX_CHECKS]


def _run_one(check: ReverseCheck, number: int, reader: MarketReader, r0: ResultRows) -> CheckResult:
    started = time.perf_counter()
    judgement: Judgement
    try:
        own = reader.query(check.sql)
    except StoreBusy:
        raise
    except MarketError as error:
        judgement = unknown(f"the reverse query failed: {error}")
    else:
        judgement = check.decide(r0, own)
    return CheckResult(
        check_id=f"reverse-{number}-{check.rule}",
        stage="reverse",
        level="result",
        kind=check.rule,
        text=check.text,
        sql=check.sql,
        criterion=check.criterion,
        verdict=judgement.verdict,
        attribution=check.attribution.value if judgement.verdict == "fail" else None,
        reason=judgement.reason,
        ms=round((time.perf_counter() - started) * 1000, 3),
        point=check.point,
    )


def run_checks(
    checks: Sequence[ReverseCheck], reader: MarketReader, r0: ResultRows, *, workers: int
) -> list[CheckResult]:
    """Every check's result, in the order of `checks` (so a run's trace does not depend on which
    query finished first). `workers` 1 runs them one after another (the benchmark's baseline)."""
    calls = [partial(_run_one, check, number, reader, r0) for number, check in enumerate(checks, start=1)]
    return side_by_side(calls, workers)  # StoreBusy propagates
