"""Probe (PV-SQL): ground what the question names in the stored data before generation, in at most
`rounds` rounds of independent probes run side by side; every finding is evidence for the generator
and an event of the trace."""

from __future__ import annotations

import time
from functools import partial

from backend.domain.language.translation import Evidence
from backend.domain.market.errors import MarketError, StoreBusy
from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.probe.mentions import find_mentions
from backend.domain.pipeline.probe.probes import Probe, first_round, second_round
from backend.domain.pipeline.side_by_side import side_by_side
from backend.domain.pipeline.trace import ProbeFinding, Trace
from backend.domain.pipeline.validate.checklist import Constraint
from backend.domain.pipeline.validate.checklist.question import Question

MAX_ROUNDS = 5
WORKERS = 3


def _run(probe: Probe, reader: MarketReader) -> tuple[list[Evidence], float]:
    started = time.perf_counter()
    try:
        found = probe.read(reader.query(probe.sql))
    except StoreBusy:
        raise
    except MarketError:
        found = []  # a probe that cannot run grounds nothing; generation goes on without it
    return found, round((time.perf_counter() - started) * 1000, 3)


def probe_question(
    question: Question,
    constraints: list[Constraint],
    reader: MarketReader,
    database: str,
    trace: Trace,
    rounds: int = MAX_ROUNDS,
) -> tuple[Evidence, ...]:
    mentions = find_mentions(question, constraints)
    evidence: list[Evidence] = []
    probes = first_round(database, mentions)
    number = 1
    while probes and number <= min(rounds, MAX_ROUNDS):
        outcomes = side_by_side([partial(_run, probe, reader) for probe in probes], WORKERS)
        found_now: list[Evidence] = []
        for probe, (found, ms) in zip(probes, outcomes, strict=True):
            for item in found:
                trace.record(
                    ProbeFinding(
                        probe_round=number,
                        mention=item.mention,
                        kind=item.kind,
                        value=item.value,
                        sql=probe.sql,
                        ms=ms,
                    )
                )
            found_now.extend(found)
        evidence.extend(found_now)
        # Each round probes what the previous one found; today that is one more round (the bars of
        # the stocks grounded), and the loop stops as soon as a round has nothing left to ask.
        probes = second_round(database, found_now) if number == 1 else []
        number += 1
    return tuple(evidence)
