"""The contract between question translators (built-in engine, LLM roles) and their callers.

A Translator turns one question into SQL (and a QST when it has one). Callers — the `ask` command, the
dev benchmark, later the validation pipeline — depend only on this module, never on a translator's
internals, so the built-in engine and the LLM generator are interchangeable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any, Literal, Protocol

TranslationStatus = Literal["ok", "not_understood", "error"]


@dataclass(frozen=True)
class LlmCall:
    """One recorded call to a language model (DESIGN.md: every call is part of the trace)."""

    role: str
    model: str
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    attempt: int = 1
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Translation:
    """Result of translating one question.

    `status` is `ok` only when `sql` is set. `not_understood` names, in `message`, the part of the
    question that could not be mapped; it is never accompanied by a guessed SQL.
    """

    question: str
    status: TranslationStatus
    sql: str | None = None
    qst: dict[str, Any] | None = None
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    llm_calls: list[LlmCall] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    engine: str = "builtin"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["llm_calls"] = [call.to_dict() for call in self.llm_calls]
        return data


class SchemaContext(Protocol):
    """What any translator may know about the data: schema text, units, entities, the calendar."""

    @property
    def latest_trade_date(self) -> date: ...

    def schema_prompt(self) -> str:
        """Tables, columns, meanings and units, as text for a language model prompt."""
        ...


class Translator(Protocol):
    name: str

    def translate(self, question: str, context: Any) -> Translation: ...
