"""Answer one question: a thin shell around the validation pipeline (backend/domain/pipeline/run.py).

It builds the ports — the guarded market store, the generator (built-in engine or LLM), the
checklist's vocabulary — runs the pipeline, turns its outcome into an AskAnswer and persists the run
with its events. The ask API, `manage.py ask` and `manage.py validate` all come here, so the browser
and the terminal always give the same answer.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import DatabaseError, transaction

from backend.apps.marketdata.selectors import json_cell, json_rows
from backend.apps.marketdata.store import get_market_store
from backend.apps.screening.answers import AskAnswer, clean_question
from backend.apps.screening.models import PipelineEvent, PipelineRun
from backend.apps.web import metrics
from backend.domain.language.context import LanguageContext
from backend.domain.language.llm.roles import JudgeRole, ReverseQuestionWriterRole
from backend.domain.language.llm.translator import LlmTranslator, build_translator
from backend.domain.language.translation import Generator
from backend.domain.market.errors import MarketError, StoreBusy
from backend.domain.pipeline.generators import BuiltinGenerator, FallbackGenerator, LlmGenerator
from backend.domain.pipeline.ports import EventSink
from backend.domain.pipeline.run import PipelineOutcome, PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.trace import RecordedEvent
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles
from paradigms.library import paradigm_library

logger = logging.getLogger(__name__)

# a paradigm event, for `paradigms`: `query` is `question` or a reverse check's id
PARADIGM_FIELDS = ("query", "round", "outcome", "paradigm_id", "distance", "detail")


def configured_translator() -> LlmTranslator | None:
    """The LLM translator when LLM_PROVIDER asks for one; None means the built-in engine."""
    if settings.LLM_PROVIDER == "builtin":
        return None
    return build_translator(settings.LLM_SETTINGS)


def configured_check_roles(context: LanguageContext) -> LlmCheckRoles | None:
    """The LLM's reverse-question writer (and judge) when LLM_PROVIDER asks for the LLM and the role has
    settings of its own (any LLM_REVERSE_QUESTION_WRITER_* / LLM_JUDGE_* but ON_FAILURE): each adds
    model calls to every answer, so they are asked for explicitly."""
    llm = settings.LLM_SETTINGS
    writer = llm.role("reverse_question_writer")
    if settings.LLM_PROVIDER == "builtin" or not writer.dedicated:
        return None
    judge = llm.role("judge")
    return LlmCheckRoles(
        writer=ReverseQuestionWriterRole.from_settings(writer),
        context=context,
        writer_on_failure=writer.on_failure,
        judge=JudgeRole.from_settings(judge) if judge.dedicated else None,
        judge_on_failure=judge.on_failure,
    )


class ObservedSink:
    """Every pipeline event of every run (jobs, the ask API, the terminal) is counted here, as it
    happens, and then handed to the caller's sink if there is one."""

    def __init__(self, inner: EventSink | None) -> None:
        self._inner = inner

    def emit(self, event: RecordedEvent) -> None:
        metrics.observe_event(event.to_dict())
        if self._inner is not None:
            self._inner.emit(event)


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _status(outcome: PipelineOutcome) -> str:
    # A run left without any result names the market error (query_failed, store_unavailable, …) as
    # the ask API always has; every answered run carries one of the pipeline's statuses.
    return outcome.error_code if outcome.status == "error" and outcome.error_code else outcome.status


def to_answer(outcome: PipelineOutcome, engine: str) -> AskAnswer:
    translation = outcome.translation
    attempt = outcome.answer
    result = attempt.result if attempt is not None else None
    return AskAnswer(
        question=outcome.question,
        status=_status(outcome),
        message=outcome.message,
        sql=attempt.sql if attempt is not None else (translation.sql if translation else None),
        qst=json_cell(translation.qst) if translation is not None and translation.qst is not None else None,
        columns=list(result.columns) if result is not None else [],
        column_types=list(result.column_types) if result is not None else [],
        rows=json_rows(result.rows) if result is not None else [],
        warnings=list(outcome.warnings),
        timings_ms={**(translation.timings_ms if translation else {}), **outcome.timings_ms},
        llm_calls=[
            *(call.to_dict() for generation in outcome.generations for call in generation.llm_calls),
            *(call.to_dict() for call in outcome.check_llm_calls),
        ],
        engine=translation.engine if translation is not None else engine,
        initial_sql=outcome.initial_sql,
        checks=[check.to_dict() for check in (attempt.checks if attempt is not None else [])],
        rounds=[json_cell(item.summary()) for item in outcome.attempts],
        correction_round=outcome.correction_round,
        trace=[json_cell(event) for event in outcome.trace.to_list()],
        paradigms=[
            {key: event[key] for key in PARADIGM_FIELDS}
            for event in outcome.trace.to_list()
            if event["type"] == "paradigm"
        ],
    )


def record_run(outcome: PipelineOutcome, answer: AskAnswer, candidate_sql: str | None) -> int | None:
    """Persist the run and its events; the answer stands even when the database cannot take it."""
    try:
        with transaction.atomic():
            run = PipelineRun.objects.create(
                question=outcome.question,
                status=outcome.status,
                error_code=outcome.error_code or "",
                engine=answer.engine,
                lang=outcome.lang,
                candidate_sql=candidate_sql or "",
                initial_sql=outcome.initial_sql or "",
                final_sql=answer.sql or "",
                correction_round=outcome.correction_round,
                row_count=answer.row_count,
                warnings=answer.warnings,
                total_ms=outcome.timings_ms.get("total", 0.0),
            )
            PipelineEvent.objects.bulk_create(
                PipelineEvent(
                    run=run, seq=event["seq"], type=event["type"], at_ms=event["at_ms"], payload=event
                )
                for event in answer.trace
            )
    except DatabaseError as error:
        logger.info("pipeline run not recorded: %s", error)  # e.g. a terminal on an unmigrated database
        return None
    return run.id


def answer_question(
    question: str, *, candidate_sql: str | None = None, correct: bool = True, sink: EventSink | None = None
) -> AskAnswer:
    """Answer (or, with `candidate_sql`, validate a given SQL for) one question. Raises
    InvalidQuestion, and StoreBusy when the store's queue is full (the caller should retry later);
    every other failure is an answer. `sink` receives every pipeline event as it happens (jobs)."""
    text = clean_question(question)
    started = time.perf_counter()
    store = get_market_store()
    chosen = configured_translator()
    engine = "builtin"
    try:
        context = LanguageContext.from_store(store)
    except StoreBusy:
        raise
    except MarketError as error:
        return AskAnswer(
            question=text,
            status=error.code,
            message=f"the market data cannot be read: {error}",
            timings_ms={"total": _elapsed_ms(started)},
            engine=engine,
        )
    context_ms = _elapsed_ms(started)
    generator: Generator = BuiltinGenerator(context)
    if chosen is not None:  # the LLM writes what the built-in engine cannot read
        on_failure = settings.LLM_SETTINGS.role("sql_generator").on_failure
        generator = FallbackGenerator(
            BuiltinGenerator(context), LlmGenerator(chosen, context), on_failure=on_failure
        )
    library = paradigm_library(context)
    ports = Ports(
        store,
        generator,
        default_vocabulary(),
        store.database,
        library=library,
        sink=ObservedSink(sink),
        llm_checks=configured_check_roles(context),
    )
    pipeline_settings = PipelineSettings(max_rounds=settings.PIPELINE_MAX_ROUNDS if correct else 0)
    outcome = run_pipeline(text, ports, pipeline_settings, candidate_sql=candidate_sql)
    answer = to_answer(outcome, engine)
    metrics.observe_llm_calls(answer.llm_calls)
    answer.timings_ms = {"context": context_ms, **answer.timings_ms, "total": _elapsed_ms(started)}
    answer.run_id = record_run(outcome, answer, candidate_sql)
    return answer
