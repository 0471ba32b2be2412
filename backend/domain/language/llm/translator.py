"""`LlmTranslator`: the Translator (translation.py) backed by the SQL-generator and QST-parser roles."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm.errors import LlmError, LlmPromptTooLarge
from backend.domain.language.llm.linking import link_schema
from backend.domain.language.llm.roles import (
    GeneratedSql,
    JudgeRole,
    ParadigmAdapterRole,
    QstParserRole,
    ReverseQuestionWriterRole,
    SqlGeneratorRole,
)
from backend.domain.language.llm.settings import LlmSettings
from backend.domain.language.translation import LlmCall, OnFailure, SchemaContext, Translation


class LlmTranslator:
    """Question → SQL by the SQL-generator model; the QST comes from the QST-parser role when one is set.

    The prompt carries only the schema the question needs (linking.py) and must fit the role's token
    budget: examples, then concept hints and conventions, are left out before the translation gives
    up with status "error" saying how large the prompt was. A failing endpoint also yields "error"
    with the reason, never an exception: the caller shows it like any answer.

    The generator never waits for the QST parser: the QST is not part of its prompt. On a server of
    their own the two run side by side; on one shared server (`parallel=False`) the requests would
    only queue behind each other there, so the QST is asked after the SQL, and only when there is
    SQL. A correction round reuses the question's QST, which guidance does not change.

    A failing QST parser (`qst_on_failure`, LLM_QST_PARSER_ON_FAILURE): `builtin` keeps the SQL
    without an LLM QST (the paradigm library keys on the built-in engine's reading anyway) and
    warns; `fail` makes the translation a final error naming the QST parser, and the SQL is dropped.
    """

    name = "llm"

    def __init__(
        self,
        sql_generator: SqlGeneratorRole,
        qst_parser: QstParserRole | None = None,
        *,
        parallel: bool = True,
        qst_on_failure: OnFailure = "builtin",
    ) -> None:
        self.sql_generator = sql_generator
        self.qst_parser = qst_parser
        self.parallel = parallel
        self.qst_on_failure = qst_on_failure
        self._qst_of: dict[str, dict[str, Any]] = {}  # question → QST, for its correction rounds

    def translate(
        self,
        question: str,
        context: SchemaContext,
        *,
        evidence: Sequence[str] = (),
        examples: Sequence[tuple[str, str]] = (),
        guidance: str | None = None,
    ) -> Translation:
        generation_calls: list[LlmCall] = []
        qst_calls: list[LlmCall] = []
        parser = self.qst_parser if guidance is None else None

        def generate() -> GeneratedSql:
            return self._generate(question, context, evidence, examples, guidance, generation_calls)

        def parse(role: QstParserRole) -> dict[str, Any]:
            schema_text = _schema_text(question, context, evidence, (), None, terse=True)
            return role.parse(question, schema_text, calls=qst_calls)

        timings: dict[str, float] = {}
        qst_error: LlmError | None = None
        qst = self._qst_of.get(question) if guidance is not None else None
        if parser is not None and self.parallel:
            with ThreadPoolExecutor(max_workers=2) as pool:
                # Each thread runs in a copy of this context: the job id in log lines, the query's requester.
                sql_job = pool.submit(contextvars.copy_context().run, _timed, generate)
                qst_job = pool.submit(contextvars.copy_context().run, _timed, partial(parse, parser))
                generated, sql_error, timings["generate"] = sql_job.result()
                qst, qst_error, timings["qst"] = qst_job.result()
        else:
            generated, sql_error, timings["generate"] = _timed(generate)
            if parser is not None and sql_error is None:
                qst, qst_error, timings["qst"] = _timed(partial(parse, parser))
        if qst is not None:
            self._qst_of = {question: qst}  # one question at a time: only its rounds reuse it

        translation = Translation(
            question=question,
            status="error",
            engine=self.name,
            llm_calls=generation_calls + qst_calls,
            timings_ms=timings,
        )
        if sql_error is not None:
            translation.message = str(sql_error)
            return translation
        if qst_error is not None:
            if self.qst_on_failure == "fail":
                translation.message = f"the QST parser failed: {qst_error}"
                translation.final_failure = True
                return translation
            translation.warnings.append(f"no QST: {qst_error}")
        translation.status = "ok"
        translation.sql = generated.sql
        translation.qst = qst
        translation.message = generated.explanation
        return translation

    def _generate(
        self,
        question: str,
        context: SchemaContext,
        evidence: Sequence[str],
        examples: Sequence[tuple[str, str]],
        guidance: str | None,
        calls: list[LlmCall],
    ) -> GeneratedSql:
        """The SQL, from the largest prompt that fits the budget (checked before anything is sent)."""

        def attempt(shown: Sequence[tuple[str, str]], terse: bool) -> GeneratedSql:
            schema_text = _schema_text(question, context, evidence, shown, guidance, terse=terse)
            database = context.database if isinstance(context, LanguageContext) else None
            return self.sql_generator.generate(
                question, schema_text, evidence, shown, guidance, database=database, calls=calls
            )

        larger = [(examples, False)] if examples else []
        for shown, terse in [*larger, ((), False)]:
            try:
                return attempt(shown, terse)
            except LlmPromptTooLarge:
                continue  # nothing was sent: try the next, smaller prompt
        return attempt((), True)


def _schema_text(
    question: str,
    context: SchemaContext,
    evidence: Sequence[str],
    examples: Sequence[tuple[str, str]],
    guidance: str | None,
    *,
    terse: bool,
) -> str:
    """The linked schema for a LanguageContext; any other context can only give its whole schema."""
    if isinstance(context, LanguageContext):
        linked = link_schema(question, context, evidence=evidence, examples=examples, guidance=guidance)
        return linked.text(terse=terse)
    schema_text = context.schema_prompt()
    latest = f"{context.latest_trade_date:%Y-%m-%d}"
    if latest not in schema_text:  # "today" must mean the data's latest trading day
        schema_text += f"\n\nLatest trading day in the data: {latest}"
    return schema_text


def _timed(work: Callable[[], Any]) -> tuple[Any, LlmError | None, float]:
    started = time.perf_counter()
    try:
        result, error = work(), None
    except LlmError as failure:
        result, error = None, failure
    return result, error, round((time.perf_counter() - started) * 1000, 3)


@dataclass(frozen=True)
class LlmRoles:
    """All five roles built from settings, for the pipeline stages that use them."""

    sql_generator: SqlGeneratorRole
    qst_parser: QstParserRole
    paradigm_adapter: ParadigmAdapterRole
    reverse_question_writer: ReverseQuestionWriterRole
    judge: JudgeRole


def build_roles(settings: LlmSettings) -> LlmRoles:
    return LlmRoles(
        sql_generator=SqlGeneratorRole.from_settings(settings.role("sql_generator")),
        qst_parser=QstParserRole.from_settings(settings.role("qst_parser")),
        paradigm_adapter=ParadigmAdapterRole.from_settings(settings.role("paradigm_adapter")),
        reverse_question_writer=ReverseQuestionWriterRole.from_settings(
            settings.role("reverse_question_writer")
        ),
        judge=JudgeRole.from_settings(settings.role("judge")),
    )


def build_translator(settings: LlmSettings) -> LlmTranslator:
    """The LLM translator; the QST parser joins when it has its own settings (LLM_QST_PARSER_*), and
    runs beside the generator only when it has its own server too."""
    generator_settings, qst_settings = settings.role("sql_generator"), settings.role("qst_parser")
    return LlmTranslator(
        SqlGeneratorRole.from_settings(generator_settings),
        QstParserRole.from_settings(qst_settings) if qst_settings.dedicated else None,
        parallel=qst_settings.base_url != generator_settings.base_url,
        qst_on_failure=qst_settings.on_failure,
    )
