"""Reverse checks and the paradigm library (issue 10 item 5): what is looked up, and what is recorded.

Rule-written checks are never looked up on the answer's path. Their rules are deterministic, so a
stored paradigm could only give back the SQL the rule writes anyway: a lookup would change nothing and
cost matching, filling and a transaction (238 ms against 110 ms for five checks, measured). Each such
check is described as a tree (description.py) and run with its rule's SQL; after the final status the
library records, in one call, which stored paradigm holds each check (a use, for the LFU window) or
that none does (a miss), and learns the checks that passed when the answer ended verified or corrected.

LLM-written checks are looked up before the writer is asked, because there a hit saves a model call
(llm_checks.py); what they used, missed and wrote goes into the same record.

Only the SQL can come from the library. A check's criterion is its rule's, or the one stored with an
LLM check, and reads only r0 and the check's own result, so the independence of the checks holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import cast

from backend.domain.labelled_tree import Node
from backend.domain.pipeline.ports import ParadigmHit, ParadigmLibrary, ReverseRun
from backend.domain.pipeline.trace import ParadigmEvent, ParadigmOutcome
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.reverse.description import describe
from backend.domain.pipeline.validate.reverse.model import ReverseCheck
from backend.domain.pipeline.validate.reverse.subject import Subject


@dataclass(frozen=True)
class DescribedCheck:
    check: ReverseCheck
    tree: Node | None  # None: the rule is not described, the library never hears of the check


@dataclass
class LlmLibraryUse:
    """What the library did for one attempt's LLM checks: the stored checks used in place of the
    writer (with the check id each ran under), or a miss, and the checks the writer wrote then."""

    used: list[tuple[ParadigmHit, str]] = field(default_factory=list)
    missed: bool = False
    written: list[tuple[ReverseRun, CheckResult]] = field(default_factory=list)


@dataclass(frozen=True)
class AttemptChecks:
    """One attempt's reverse checks as the record reads them."""

    round: int
    learn: bool  # the attempt whose result is the answer of a verified or corrected run
    ruled: Sequence[tuple[DescribedCheck, CheckResult]]
    llm: LlmLibraryUse | None


def describe_all(checks: Sequence[ReverseCheck], subject: Subject) -> list[DescribedCheck]:
    """Every check, in order, with its tree (the n-th check of a rule is told apart by `check:<n>`)."""
    written: Counter[str] = Counter()
    described = []
    for check in checks:
        described.append(DescribedCheck(check, describe(check, written[check.rule], subject)))
        written[check.rule] += 1
    return described


def record(
    attempts: Sequence[AttemptChecks], library: ParadigmLibrary, *, status: str
) -> tuple[list[ParadigmEvent], str]:
    """The library's record of every attempt's reverse checks (one call); its events and a summary."""
    runs: list[ReverseRun] = []
    owners: list[tuple[str, int]] = []  # (check id, round) of each run
    used: list[str] = []
    misses = 0
    adapted: list[ParadigmEvent] = []
    for attempt in attempts:
        for described, result in attempt.ruled:
            if described.tree is None:
                continue
            check = described.check
            learn = attempt.learn and result.verdict == "pass"
            runs.append(ReverseRun(check.text, described.tree, check.sql, learn=learn))
            owners.append((result.check_id, attempt.round))
        llm = attempt.llm
        if llm is None:
            continue
        for hit, check_id in llm.used:
            used.append(hit.paradigm_id)
            for kind, detail in (("hit", hit.question), ("adapted", hit.how)):
                adapted.append(
                    ParadigmEvent(
                        cast(ParadigmOutcome, kind),
                        hit.paradigm_id,
                        hit.distance,
                        detail,
                        query=check_id,
                        round=attempt.round,
                    )
                )
        if llm.missed:
            misses += 1
            adapted.append(
                ParadigmEvent(
                    "miss", None, None, "", query=f"llm-writer-r{attempt.round}", round=attempt.round
                )
            )
        for run, result in llm.written:
            runs.append(replace(run, learn=attempt.learn and result.verdict == "pass"))
            owners.append((result.check_id, attempt.round))
    if not runs and not used and not misses:
        return [], ""
    recorded = library.record_reverse(runs, used=used, misses=misses, status=status)
    events = list(adapted)
    hits, missed = len(used), misses
    for run, (check_id, round_number), outcome in zip(runs, owners, recorded, strict=True):
        if run.matched and outcome.holder is not None:
            hits += 1
            paradigm_id, distance = outcome.holder
            events.append(
                ParadigmEvent(
                    "hit", paradigm_id, distance, "the rule's SQL ran", query=check_id, round=round_number
                )
            )
        elif run.matched:
            missed += 1
            events.append(ParadigmEvent("miss", None, None, "", query=check_id, round=round_number))
        if outcome.learned is not None:
            events.append(
                ParadigmEvent("learned", outcome.learned, None, "", query=check_id, round=round_number)
            )
    learned = sum(outcome.learned is not None for outcome in recorded)
    return events, f"reverse checks: {hits} hits, {missed} misses, {learned} learned"
