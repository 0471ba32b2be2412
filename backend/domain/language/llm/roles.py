"""The five LLM roles of the pipeline (DESIGN.md §1, main seed §2.3).

Each role takes a LangChain `BaseChatModel` (a real ChatOpenAI, or a fake one in tests), renders its
prompt from `prompts/`, and returns validated output. Every attempt is appended, as an `LlmCall`, to
the `calls` list the caller passes — also when the role finally raises — so the trace is complete.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal, Self

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field, field_validator

from backend.domain.language.llm import prompts
from backend.domain.language.llm.calling import StructuredCaller, UnusableOutput, strip_fences
from backend.domain.language.llm.client import build_chat_model
from backend.domain.language.llm.qst_format import describe_qst_format
from backend.domain.language.llm.settings import (
    DEFAULT_PROMPT_TOKEN_BUDGET,
    RoleSettings,
    StructuredOutputMethod,
)
from backend.domain.language.llm.tables import foreign_tables
from backend.domain.language.qst import validate_qst
from backend.domain.language.translation import LlmCall
from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import check_read_only

QstValidator = Callable[[dict[str, Any]], dict[str, Any]]


# --- Output schemas (also the tool / JSON-schema definitions sent to the model) -------------------


class GeneratedSql(BaseModel):
    """A ClickHouse query answering the question."""

    sql: str = Field(description="exactly one ClickHouse SELECT (or WITH … SELECT) statement")
    explanation: str = Field(
        default="", description="one or two sentences on how the SQL answers the question"
    )


class ParsedQst(BaseModel):
    """The Query Structure Tree of the question."""

    qst: dict[str, Any] = Field(description='the root node {"label": "select", "children": [...]}, nested')


class AdaptedSql(BaseModel):
    """The paradigm SQL adapted to the new question."""

    sql: str = Field(description="exactly one ClickHouse SELECT (or WITH … SELECT) statement")


# What a failed reverse check blames (the values of the checklist's Attribution, but invalid_sql).
CheckPoint = Literal[
    "intent", "entity_mapping", "condition", "aggregation", "grouping", "time_scope", "unit", "top_k"
]
# How a reverse check is decided, from the answer's rows (r0) and its own rows only:
# no_rows — its query returns no row (e.g. the answer's rows that break a filter);
# row_count — its query returns one number, the answer's row count;
# same_value — its query returns one value, the answer's only value (a recomputed aggregate);
# same_stocks — its query returns the answer's stocks (ts_code), no more, no fewer;
# stocks_in_answer — every stock (ts_code) its query returns is in the answer (none missing);
# judge — the judge role reads the answer's rows and its rows and decides.
CheckCriterion = Literal["no_rows", "row_count", "same_value", "same_stocks", "stocks_in_answer", "judge"]
MECHANICAL_CRITERIA: tuple[CheckCriterion, ...] = (
    "no_rows",
    "row_count",
    "same_value",
    "same_stocks",
    "stocks_in_answer",
)


class ReverseQuestion(BaseModel):
    question: str = Field(description="the reverse question, in the language of the original question")
    point: CheckPoint = Field(description="what a failure of this check blames")
    sql: str = Field(description="one ClickHouse SELECT answering the reverse question on the database")
    criterion: CheckCriterion = Field(description="how the check is decided (see the instructions)")

    @field_validator("question", "sql")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()


MAX_REVERSE_QUESTIONS = 6  # the most checks one writer call adds


class ReverseQuestions(BaseModel):
    """One reverse question per error-prone point of the original question."""

    questions: list[ReverseQuestion] = Field(min_length=1, max_length=MAX_REVERSE_QUESTIONS)

    @field_validator("questions")
    @classmethod
    def _distinct(cls, questions: list[ReverseQuestion]) -> list[ReverseQuestion]:
        texts = [item.question for item in questions]
        if len(set(texts)) != len(texts):
            raise ValueError("the same reverse question appears twice; write one per error-prone point")
        return questions


class Verdict(BaseModel):
    """Whether the reverse query's rows confirm the answer on the point it checks."""

    ok: bool
    reason: str = Field(description="why; for ok=false the concrete problem")

    @field_validator("reason")
    @classmethod
    def _reason_given(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a reason is required")
        return value.strip()


# --- Output checks -------------------------------------------------------------------------------


def accept_sql(text: str, database: str | None = None) -> str:
    """Fence-free SQL that passes the read-only guard and, given the store's `database`, reads only
    its market tables — or UnusableOutput saying why not."""
    sql = strip_fences(text).strip().rstrip(";").rstrip()
    try:
        query = check_read_only(sql)
    except QueryRejected as error:
        raise UnusableOutput(f"the SQL is refused: {error}") from error
    foreign = foreign_tables(query, database) if database is not None else []
    if foreign:
        raise UnusableOutput(
            f"the SQL is refused: it reads {', '.join(foreign)}, which is not a market table of "
            f"{database}; read only the tables of the schema given"
        )
    return sql


# --- Roles ---------------------------------------------------------------------------------------


class _Role:
    name: ClassVar[str]

    def __init__(
        self,
        model: BaseChatModel,
        *,
        method: StructuredOutputMethod = "function_calling",
        max_retries: int = 2,
        prompt_token_budget: int = DEFAULT_PROMPT_TOKEN_BUDGET,
    ) -> None:
        self._caller = StructuredCaller(
            self.name, model, method=method, max_retries=max_retries, prompt_token_budget=prompt_token_budget
        )

    @classmethod
    def from_settings(cls, settings: RoleSettings) -> Self:
        return cls(
            build_chat_model(settings),
            method=settings.structured_output,
            max_retries=settings.max_retries,
            prompt_token_budget=settings.prompt_token_budget,
        )


class SqlGeneratorRole(_Role):
    """Question → SQL; `guidance` is the correction message of a failed validation round."""

    name = "sql_generator"

    def generate(
        self,
        question: str,
        schema_text: str,
        evidence: Sequence[str] = (),
        examples: Sequence[tuple[str, str]] = (),
        guidance: str | None = None,
        *,
        database: str | None = None,
        calls: list[LlmCall] | None = None,
    ) -> GeneratedSql:
        system, user = prompts.render(
            self.name,
            schema=schema_text,
            question=question,
            examples_block=prompts.examples_block("Verified examples of similar questions:", examples, "SQL"),
            evidence_block=prompts.block("Evidence found in the database:", (f"- {e}" for e in evidence)),
            guidance_block=prompts.block(
                "A previous SQL for this question failed validation. Correct it as follows:", [guidance or ""]
            ),
        )

        def accept(output: GeneratedSql) -> GeneratedSql:
            return GeneratedSql(sql=accept_sql(output.sql, database), explanation=output.explanation.strip())

        return self._caller.call(system, user, GeneratedSql, accept, calls)


class QstParserRole(_Role):
    """Question → QST (nested JSON) in the format of `backend.domain.language.qst`, validated by it."""

    name = "qst_parser"

    def __init__(
        self,
        model: BaseChatModel,
        *,
        method: StructuredOutputMethod = "function_calling",
        max_retries: int = 2,
        prompt_token_budget: int = DEFAULT_PROMPT_TOKEN_BUDGET,
        validate: QstValidator = validate_qst,
        format_description: str | None = None,
    ) -> None:
        super().__init__(
            model, method=method, max_retries=max_retries, prompt_token_budget=prompt_token_budget
        )
        self._validate = validate
        self._format_description = describe_qst_format() if format_description is None else format_description

    def parse(
        self,
        question: str,
        schema_text: str,
        examples: Sequence[tuple[str, dict[str, Any]]] = (),
        *,
        calls: list[LlmCall] | None = None,
    ) -> dict[str, Any]:
        shown = [(q, json.dumps(tree, ensure_ascii=False)) for q, tree in examples]
        system, user = prompts.render(
            self.name,
            schema=schema_text,
            question=question,
            format_block=prompts.block("QST format:", [self._format_description]),
            examples_block=prompts.examples_block("Examples:", shown, "QST"),
        )

        def accept(output: ParsedQst) -> dict[str, Any]:
            try:
                return self._validate(output.qst)
            except ValueError as error:
                raise UnusableOutput(f"the QST is invalid: {error}") from error

        return self._caller.call(system, user, ParsedQst, accept, calls)


class ParadigmAdapterRole(_Role):
    """Paradigm (question, SQL) + differences → SQL for the new question."""

    name = "paradigm_adapter"

    def adapt(
        self,
        question: str,
        paradigm_question: str,
        paradigm_sql: str,
        differences: Sequence[str] | str,
        schema_text: str = "",
        *,
        database: str | None = None,
        calls: list[LlmCall] | None = None,
    ) -> str:
        listed = [differences] if isinstance(differences, str) else list(differences)
        system, user = prompts.render(
            self.name,
            question=question,
            paradigm_question=paradigm_question,
            paradigm_sql=paradigm_sql,
            differences=prompts.bullet_list(listed),
            schema_block=prompts.block("Database schema:", [schema_text]),
        )
        return self._caller.call(
            system, user, AdaptedSql, lambda output: accept_sql(output.sql, database), calls
        )


class ReverseQuestionWriterRole(_Role):
    """(question, SQL, result preview, constraints) → reverse questions, each with its own SQL (held to
    the guard and the market tables) and a criterion from `criteria`."""

    name = "reverse_question_writer"

    def write(
        self,
        question: str,
        sql: str,
        result_preview: str,
        constraints: Sequence[str],
        schema_text: str = "",
        *,
        database: str | None = None,
        criteria: Sequence[CheckCriterion] = MECHANICAL_CRITERIA,
        calls: list[LlmCall] | None = None,
    ) -> list[ReverseQuestion]:
        system, user = prompts.render(
            self.name,
            question=question,
            sql=sql,
            result_preview=result_preview,
            constraints=prompts.bullet_list(constraints),
            criteria=", ".join(criteria),
            schema_block=prompts.block("Database schema:", [schema_text]),
        )

        def accept(output: ReverseQuestions) -> list[ReverseQuestion]:
            checks = []
            for number, item in enumerate(output.questions, start=1):
                if item.criterion not in criteria:
                    raise UnusableOutput(
                        f"question {number}: criterion {item.criterion!r} is not one of {', '.join(criteria)}"
                    )
                try:
                    checked = accept_sql(item.sql, database)
                except UnusableOutput as problem:
                    raise UnusableOutput(f"question {number}: {problem}") from problem
                checks.append(item.model_copy(update={"sql": checked}))
            return checks

        return self._caller.call(system, user, ReverseQuestions, accept, calls)


class JudgeRole(_Role):
    """Decides one reverse check from the answer's rows and that check's own rows — nothing else: it
    never sees another check, its SQL or its verdict."""

    name = "judge"

    def judge(
        self,
        question: str,
        check_question: str,
        check_sql: str,
        answer_preview: str,
        check_preview: str,
        *,
        calls: list[LlmCall] | None = None,
    ) -> Verdict:
        system, user = prompts.render(
            self.name,
            question=question,
            check_question=check_question,
            check_sql=check_sql,
            answer_preview=answer_preview,
            check_preview=check_preview,
        )
        return self._caller.call(system, user, Verdict, lambda output: output, calls)


def format_result_preview(columns: Sequence[str], rows: Sequence[Sequence[Any]], limit: int = 20) -> str:
    """A compact text table of the first rows, for the prompts that look at a result."""
    lines = [" | ".join(columns)]
    lines += [" | ".join("NULL" if value is None else str(value) for value in row) for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"… {len(rows) - limit} more row(s), {len(rows)} in total")
    if not rows:
        lines.append("(no rows)")
    return "\n".join(lines)
