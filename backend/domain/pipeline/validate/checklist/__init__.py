"""A second reading of the question (issue 9 item 3): constraints read from the question text,
independently of the built-in parser, checked on the sqlglot tree of a candidate SQL. See README.md."""

from backend.domain.pipeline.validate.checklist.checker import (
    ExecutionOutcome,
    check_constraint,
    check_execution,
    check_sql,
    check_syntax,
    extract_constraints,
)
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Kind,
    Lang,
    Level,
    Outcome,
    Span,
    Verdict,
)
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.checklist.vocabulary import Vocabulary, default_vocabulary

__all__ = [
    "Attribution",
    "Constraint",
    "ExecutionOutcome",
    "Kind",
    "Lang",
    "Level",
    "Outcome",
    "Span",
    "Sql",
    "Verdict",
    "Vocabulary",
    "check_constraint",
    "check_execution",
    "check_sql",
    "check_syntax",
    "default_vocabulary",
    "extract_constraints",
]
