"""The checklist's entry points: read constraints off a question, judge a candidate SQL in three
levels — syntax (one query sqlglot reads), execution (reported by the caller), constraints."""

from __future__ import annotations

from dataclasses import dataclass

from backend.domain.pipeline.validate.checklist.kinds import EXTRACTORS
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Level,
    Verdict,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import read_question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, SqlUnreadable, parse_sql
from backend.domain.pipeline.validate.checklist.vocabulary import Vocabulary


@dataclass(frozen=True)
class ExecutionOutcome:
    """What running the candidate gave: an error message, or the number of rows."""

    error: str | None
    row_count: int | None = None


def extract_constraints(question: str, vocabulary: Vocabulary) -> list[Constraint]:
    read = read_question(question, vocabulary)
    return [constraint for extractor in EXTRACTORS for constraint in extractor(read)]


def check_syntax(sql: str) -> tuple[Verdict, Sql | None]:
    try:
        parsed = parse_sql(sql)
    except SqlUnreadable as problem:
        return Verdict.of(Level.SYNTAX, failed(Attribution.INVALID_SQL, str(problem))), None
    return Verdict.of(Level.SYNTAX, passed("one query, read by sqlglot (ClickHouse)")), parsed


def check_execution(outcome: ExecutionOutcome) -> Verdict:
    if outcome.error is not None:
        return Verdict.of(
            Level.EXECUTION, failed(Attribution.INVALID_SQL, f"the SQL failed to run: {outcome.error}")
        )
    rows = "" if outcome.row_count is None else f" ({outcome.row_count} rows)"
    return Verdict.of(Level.EXECUTION, passed(f"the SQL ran{rows}"))


def check_constraint(constraint: Constraint, parsed: Sql | None) -> Verdict:
    """One constraint on a parsed candidate (from `check_syntax`); undecidable when it did not parse."""
    finding = constraint.detail.check(parsed) if parsed is not None else undecided("the SQL does not parse")
    return Verdict.of(Level.CONSTRAINT, finding, constraint)


def check_sql(constraints: list[Constraint], sql: str) -> list[Verdict]:
    """The syntax verdict, then one verdict per constraint."""
    syntax, parsed = check_syntax(sql)
    return [syntax, *(check_constraint(constraint, parsed) for constraint in constraints)]
