"""A reverse check: one reverse question about one error-prone point, its own SQL, and a criterion that
reads only the answer under test (r0) and this check's own result — never another check's verdict.

`decide(r0, own)` is a pure function of those two results; the runner calls it once per check, in any
order, on any thread, so no check can see another's outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution


@dataclass(frozen=True)
class Judgement:
    verdict: CheckVerdictValue
    reason: str


def holds(reason: str) -> Judgement:
    return Judgement("pass", reason)


def broken(reason: str) -> Judgement:
    return Judgement("fail", reason)


def unknown(reason: str) -> Judgement:
    return Judgement("undecidable", reason)


Decide = Callable[[ResultRows, ResultRows], Judgement]


@dataclass(frozen=True)
class ReverseCheck:
    rule: str  # the module that wrote it: scope, filter_violation, missing, …
    text: str  # the reverse question, in the question's language
    sql: str
    criterion: str  # when it passes, in the question's language
    attribution: Attribution  # what a failure blames
    decide: Decide
    point: str | None = None  # the question's point it judges, when another check judges it too
