"""The contract between question translators (built-in engine, LLM roles) and their callers.

A Translator turns one question into SQL (and a QST when it has one). Callers — the `ask` command, the
dev benchmark, the validation pipeline — depend only on this module, never on a translator's
internals, so the built-in engine and the LLM generator are interchangeable.

The pipeline generates through a `Generator`: a translator bound to its context that takes a typed
`GenerationRequest` — the question, what the probe found in the data (`Evidence`), verified examples
and, in a correction round, the `Guidance` merged from the failed checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any, Literal, Protocol

TranslationStatus = Literal["ok", "not_understood", "error"]
# What an LLM role's failure (endpoint error, garbage, timeout, prompt over budget) leaves in the answer:
# `builtin` — the built-in engine does that role's work alone and the answer says the LLM failed;
# `fail` — the failure stays in the answer (the generator, the QST parser, the paradigm adapter:
# status error; a check role: an undecided check, so the answer cannot be verified). It lives here,
# in the contract between engine and pipeline, so the pipeline can name it without the LLM package.
OnFailure = Literal["builtin", "fail"]


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
    # An LLM role failed and its LLM_<ROLE>_ON_FAILURE is `fail`: no other engine answers instead.
    final_failure: bool = False

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

    def translate(self, question: str, context: SchemaContext) -> Translation: ...


@dataclass(frozen=True)
class Evidence:
    """One thing the question names, grounded in the stored data by a probe.

    `mention` is the question's words ("茅台"), `kind` what it was found as (stock, industry, index,
    exchange, board, year, date, report_period), `value` what the data holds ("贵州茅台 600519.SH").
    """

    mention: str
    kind: str
    value: str

    def as_text(self) -> str:
        return f"'{self.mention}' is the {self.kind} {self.value}"


@dataclass(frozen=True)
class Example:
    """A verified (question, SQL) pair of a similar question (from the paradigm library)."""

    question: str
    sql: str


@dataclass(frozen=True)
class Guidance:
    """What a correction round asks of the generator: one merged message and the SQL already refused
    (a generator must not propose those again)."""

    round: int
    message: str
    rejected_sql: tuple[str, ...]


@dataclass(frozen=True)
class GenerationRequest:
    question: str
    evidence: tuple[Evidence, ...] = ()
    examples: tuple[Example, ...] = ()
    guidance: Guidance | None = None


class Generator(Protocol):
    """A translator bound to its context, as the pipeline calls it.

    With guidance, a generator answers with another candidate for the same question, or with status
    `not_understood` when it has none left; it never returns a rejected SQL again.
    """

    name: str

    def generate(self, request: GenerationRequest) -> Translation: ...
