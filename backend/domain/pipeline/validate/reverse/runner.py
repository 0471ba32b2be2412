"""Write the reverse checks for one answer and run them in parallel through the guarded store.

The checks are independent (model.py), so they run side by side on a thread pool and the stage
takes as long as the slowest one. Each task is submitted through `contextvars.copy_context().run` so
the store sees the caller's execution context (requester, deadline, cancellation) on every thread.

chdb releases the GIL while a query runs; the guard's parse is pure Python and holds it. Parsed in the
workers, the guards only take turns with each other and every query waits for the slowest of them; so
the calling thread guards the checks one after another and submits each as soon as it passes, and the
queries already submitted run meanwhile. The store remembers the texts its guard passed, so a query's
own guard does not parse it again.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from backend.domain.market.errors import MarketError, QueryRejected, StoreBusy
from backend.domain.market.guard import require_read_only
from backend.domain.pipeline.ports import MarketReader, ResultRows
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
    )


def run_checks(
    checks: Sequence[ReverseCheck], reader: MarketReader, r0: ResultRows, *, workers: int
) -> list[CheckResult]:
    """Every check's result, in the order of `checks` (so a run's trace does not depend on which
    query finished first). `workers` 1 runs them one after another (the benchmark's baseline)."""
    if workers <= 1 or len(checks) <= 1:
        return [_run_one(check, number, reader, r0) for number, check in enumerate(checks, start=1)]
    with ThreadPoolExecutor(max_workers=min(workers, len(checks))) as pool:
        futures = []
        for number, check in enumerate(checks, start=1):
            # A refusal is judged again by the check's query and reported by the check, as it always was.
            with contextlib.suppress(QueryRejected):
                require_read_only(check.sql)
            futures.append(pool.submit(contextvars.copy_context().run, _run_one, check, number, reader, r0))
        return [future.result() for future in futures]  # StoreBusy propagates
