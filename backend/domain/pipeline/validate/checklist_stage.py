"""The checklist as a pipeline stage: its three levels (syntax → execution → constraints) as checks.

The checklist package reads the question and judges a SQL tree; this module only times each verdict
and gives it the pipeline's shape. Constraints are read once per question and reused for every
candidate of the correction rounds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import (
    Constraint,
    ExecutionOutcome,
    Level,
    Outcome,
    Verdict,
    check_execution,
    check_syntax,
)
from backend.domain.pipeline.validate.checklist.model import undecided
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.grounded import point_id
from backend.domain.pipeline.validate.outcome import CheckLevel, CheckResult

_VERDICTS: dict[Outcome, CheckVerdictValue] = {
    Outcome.PASS: "pass",
    Outcome.FAIL: "fail",
    Outcome.UNDECIDABLE: "undecidable",
}
_LEVELS: dict[Level, CheckLevel] = {
    Level.SYNTAX: "syntax",
    Level.EXECUTION: "execution",
    Level.CONSTRAINT: "constraint",
}


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _result(check_id: str, kind: str, text: str, criterion: str, verdict: Verdict, ms: float) -> CheckResult:
    return CheckResult(
        check_id=check_id,
        stage="checklist",
        level=_LEVELS[verdict.level],
        kind=kind,
        text=text,
        sql=None,
        criterion=criterion,
        verdict=_VERDICTS[verdict.outcome],
        attribution=verdict.attribution.value if verdict.attribution is not None else None,
        reason=verdict.reason,
        ms=ms,
    )


def check_candidate_syntax(sql: str, lang: Lang) -> tuple[CheckResult, Sql | None]:
    started = time.perf_counter()
    verdict, parsed = check_syntax(sql)
    text = says(lang, "SQL 是一条可解析的查询", "the SQL is one query that parses")
    criterion = says(
        lang, "sqlglot（ClickHouse 方言）读出恰好一条查询", "sqlglot reads exactly one ClickHouse query"
    )
    return _result("syntax", "syntax", text, criterion, verdict, _elapsed_ms(started)), parsed


def check_candidate_execution(error: str | None, row_count: int | None, lang: Lang) -> CheckResult:
    started = time.perf_counter()
    verdict = check_execution(ExecutionOutcome(error=error, row_count=row_count))
    text = says(lang, "SQL 能在只读防护下执行", "the SQL runs under the read-only guard")
    criterion = says(lang, "执行不报错", "the execution raises no error")
    return _result("execution", "execution", text, criterion, verdict, _elapsed_ms(started))


def check_candidate_constraints(
    constraints: Sequence[Constraint], parsed: Sql | None, lang: Lang
) -> list[CheckResult]:
    results = []
    for number, constraint in enumerate(constraints, start=1):
        started = time.perf_counter()
        finding = (
            constraint.detail.check(parsed) if parsed is not None else undecided("the SQL does not parse")
        )
        verdict = Verdict.of(Level.CONSTRAINT, finding, constraint)
        criterion = says(lang, "候选 SQL 的语法树满足此条件", "the candidate's SQL tree meets it")
        results.append(
            _result(
                point_id(number, constraint),
                constraint.kind.value,
                constraint.text,
                criterion,
                verdict,
                _elapsed_ms(started),
            )
        )
    return results
