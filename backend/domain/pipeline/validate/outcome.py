"""One check's outcome, whichever stage made it (the checklist on the SQL tree, a reverse check on the
result): what the answer, the trace and the correction round read."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from backend.domain.market.errors import MarketError, StoreBusy
from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.trace import CheckStage, CheckVerdict, CheckVerdictValue

CheckLevel = Literal["syntax", "execution", "constraint", "result"]


@dataclass(frozen=True)
class CheckResult:
    check_id: str
    stage: CheckStage
    level: CheckLevel
    kind: str
    text: str  # readable, in the question's language
    sql: str | None  # the reverse SQL; None for a check that reads the candidate's SQL tree
    criterion: str
    verdict: CheckVerdictValue
    attribution: str | None  # what a failure blames (checklist Attribution values)
    reason: str
    ms: float
    point: str | None = None  # the question's point this check judges, when another check judges it too

    def __post_init__(self) -> None:
        # A failure without a culprit cannot guide a correction; a pass with one is a contradiction.
        if (self.verdict == "fail") != (self.attribution is not None):
            raise ValueError("a failure, and only a failure, carries an attribution")

    def event(self, round_number: int) -> CheckVerdict:
        return CheckVerdict(
            round=round_number,
            check_id=self.check_id,
            stage=self.stage,
            kind=self.kind,
            text=self.text,
            sql=self.sql,
            criterion=self.criterion,
            verdict=self.verdict,
            attribution=self.attribution,
            reason=self.reason,
            ms=self.ms,
        )

    def to_dict(self) -> dict[str, str | float | None]:
        return {
            "id": self.check_id,
            "stage": self.stage,
            "level": self.level,
            "kind": self.kind,
            "text": self.text,
            "sql": self.sql,
            "criterion": self.criterion,
            "verdict": self.verdict,
            "attribution": self.attribution,
            "reason": self.reason,
            "ms": self.ms,
            "point": self.point,
        }


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (a time.perf_counter() reading), as every check reports them."""
    return round((time.perf_counter() - started) * 1000, 3)


def constraint_check(
    *,
    check_id: str,
    kind: str,
    text: str,
    criterion: str,
    sql: str | None,
    verdict: CheckVerdictValue,
    blames: str,
    reason: str,
    started: float,
    point: str | None = None,
) -> CheckResult:
    """A checklist-stage check of one constraint, made with data or the candidate's tree: `sql` is the
    query it ran (None: none); only a failure blames `blames` (a checklist Attribution value)."""
    return CheckResult(
        check_id=check_id,
        stage="checklist",
        level="constraint",
        kind=kind,
        text=text,
        sql=sql,
        criterion=criterion,
        verdict=verdict,
        attribution=str(blames) if verdict == "fail" else None,
        reason=reason,
        ms=elapsed_ms(started),
        point=point,
    )


def tree_rule_check(
    check_id: str, *, text: str, criterion: str, blames: str, finding: Callable[[], str | None]
) -> CheckResult | None:
    """A rule judged on the candidate's SQL tree, of which only a failure becomes a check (its id is
    its kind): `finding` says why the SQL breaks the rule, None when it does not or the tree cannot
    tell (no check then). The check's time is the finding's."""
    started = time.perf_counter()
    reason = finding()
    if reason is None:
        return None
    return constraint_check(
        check_id=check_id,
        kind=check_id,
        text=text,
        criterion=criterion,
        sql=None,
        verdict="fail",
        blames=blames,
        reason=reason,
        started=started,
    )


def own_rows(reader: MarketReader, query: str) -> list[tuple[object, ...]] | str:
    """The rows of a check's own query, or why it could not run (the check then cannot decide). A busy
    store is not the check's to judge: StoreBusy propagates."""
    try:
        return [tuple(row) for row in reader.query(query).rows]
    except StoreBusy:
        raise
    except MarketError as error:
        return f"the check's query failed: {error}"
