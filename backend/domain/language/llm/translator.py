"""`LlmTranslator`: the Translator (translation.py) backed by the SQL-generator and QST-parser roles."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from backend.domain.language.llm.errors import LlmError
from backend.domain.language.llm.roles import (
    JudgeRole,
    ParadigmAdapterRole,
    QstParserRole,
    ReverseQuestionWriterRole,
    SqlGeneratorRole,
)
from backend.domain.language.llm.settings import LlmSettings
from backend.domain.language.translation import LlmCall, SchemaContext, Translation


class LlmTranslator:
    """Question → SQL by the SQL-generator model; the QST comes from the QST-parser role when one is set.

    SQL generation and QST parsing are independent, so they run side by side. A failing endpoint
    yields status "error" with the reason, never an exception: the caller shows it like any answer.
    """

    name = "llm"

    def __init__(self, sql_generator: SqlGeneratorRole, qst_parser: QstParserRole | None = None) -> None:
        self.sql_generator = sql_generator
        self.qst_parser = qst_parser

    def translate(
        self,
        question: str,
        context: SchemaContext,
        *,
        evidence: Sequence[str] = (),
        examples: Sequence[tuple[str, str]] = (),
        guidance: str | None = None,
    ) -> Translation:
        schema_text = context.schema_prompt()
        latest = f"{context.latest_trade_date:%Y-%m-%d}"
        if latest not in schema_text:  # "today" must mean the data's latest trading day
            schema_text += f"\n\nLatest trading day in the data: {latest}"
        generation_calls: list[LlmCall] = []
        qst_calls: list[LlmCall] = []
        parser = self.qst_parser
        with ThreadPoolExecutor(max_workers=2) as pool:
            sql_job = pool.submit(
                _timed,
                lambda: self.sql_generator.generate(
                    question, schema_text, evidence, examples, guidance, calls=generation_calls
                ),
            )
            qst_job = (
                pool.submit(_timed, lambda: parser.parse(question, schema_text, calls=qst_calls))
                if parser is not None
                else None
            )
            generated, sql_error, sql_ms = sql_job.result()
            qst, qst_error, qst_ms = qst_job.result() if qst_job is not None else (None, None, 0.0)

        translation = Translation(
            question=question,
            status="error",
            engine=self.name,
            llm_calls=generation_calls + qst_calls,
            timings_ms={"generate": sql_ms} | ({"qst": qst_ms} if qst_job is not None else {}),
        )
        if qst_error is not None:
            translation.warnings.append(f"no QST: {qst_error}")
        if sql_error is not None:
            translation.message = str(sql_error)
            return translation
        translation.status = "ok"
        translation.sql = generated.sql
        translation.qst = qst
        translation.message = generated.explanation
        return translation


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
    """The LLM translator; the QST parser joins when it has its own settings (LLM_QST_PARSER_*)."""
    qst_settings = settings.role("qst_parser")
    return LlmTranslator(
        SqlGeneratorRole.from_settings(settings.role("sql_generator")),
        QstParserRole.from_settings(qst_settings) if qst_settings.dedicated else None,
    )
