"""What asking a question gives back, and what may be asked.

Kept apart from services.py (which loads the language engine) so that `manage.py ask` can check a
question and print a forwarded answer without importing the engine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from backend.domain.language.limits import MAX_QUESTION_CHARS

ANSWERED = ("verified", "corrected", "unverified")


class InvalidQuestion(ValueError):
    """The question cannot be asked at all (empty or too long); the message says why."""


@dataclass
class AskAnswer:
    """Everything about one answered question.

    `status` is a pipeline status — `verified`, `corrected` (`correction_round` says which round),
    `unverified` (the first SQL's result with `warnings` naming the failed checks), `not_understood`,
    `error` — or, when no SQL could run at all, the code of the market error that stopped it
    (`query_failed`, `query_rejected`, `query_timeout`, `result_too_large`, `store_unavailable`, …).
    `checks` are the returned answer's checks, `rounds` every candidate tried, `trace` the run's events.
    `paradigms` is what the paradigm library did for the question and for each reverse query: its
    trace's paradigm events (`query` is `question` or the reverse check's id; hit with id and distance,
    adapted, miss, learned with the new id).
    """

    question: str
    status: str
    message: str = ""
    sql: str | None = None
    qst: dict[str, Any] | None = None
    columns: list[str] = field(default_factory=list)
    column_types: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)
    engine: str = ""
    initial_sql: str | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    correction_round: int | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    run_id: int | None = None
    paradigms: list[dict[str, Any]] = field(default_factory=list)

    @property
    def answered(self) -> bool:
        """A result is shown (verified, corrected, or unverified with its warning)."""
        return self.status in ANSWERED

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["row_count"] = self.row_count
        return data


def clean_question(question: str) -> str:
    text = question.strip()
    if not text:
        raise InvalidQuestion("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidQuestion(
            f"the question is {len(text)} characters long; the limit is {MAX_QUESTION_CHARS}"
        )
    return text
