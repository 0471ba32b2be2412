"""Answer one question: translate it to SQL, run the SQL through the guard, report every step.

This is the one place that does it: the ask API and the `ask` management command both call
`answer_question`, so the browser and the terminal always give the same answer.
"""

from __future__ import annotations

import time

from django.conf import settings

from backend.apps.marketdata.selectors import json_cell, json_rows
from backend.apps.marketdata.store import get_market_store
from backend.apps.screening.answers import AskAnswer, clean_question
from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.language.llm.translator import build_translator
from backend.domain.language.translation import Translation, Translator
from backend.domain.market.errors import MarketError, StoreBusy


def configured_translator() -> Translator | None:
    """The LLM translator when LLM_PROVIDER asks for one; None means the built-in engine."""
    if settings.LLM_PROVIDER == "builtin":
        return None
    return build_translator(settings.LLM_SETTINGS)


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _from_translation(translation: Translation) -> AskAnswer:
    return AskAnswer(
        question=translation.question,
        status=translation.status,
        message=translation.message,
        sql=translation.sql,
        qst=json_cell(translation.qst) if translation.qst is not None else None,
        warnings=list(translation.warnings),
        timings_ms=dict(translation.timings_ms),
        llm_calls=[call.to_dict() for call in translation.llm_calls],
        engine=translation.engine,
    )


def answer_question(question: str, translator: Translator | None = None) -> AskAnswer:
    """Translate and run one question. Raises InvalidQuestion, and StoreBusy when the store's queue is
    full (the caller should retry later); every other failure is an answer."""
    text = clean_question(question)
    started = time.perf_counter()
    store = get_market_store()
    chosen = translator or configured_translator()
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
            engine=chosen.name if chosen else "builtin",
        )
    context_ms = _elapsed_ms(started)

    answer = _from_translation(translate_question(text, context, chosen))
    answer.timings_ms = {"context": context_ms, **answer.timings_ms}
    if answer.status == "ok" and answer.sql:
        execute_started = time.perf_counter()
        try:
            result = store.query(answer.sql)
        except StoreBusy:
            raise
        except MarketError as error:
            answer.status = error.code
            answer.message = str(error)
        else:
            answer.columns = result.columns
            answer.column_types = result.column_types
            answer.rows = json_rows(result.rows)
        answer.timings_ms["execute"] = _elapsed_ms(execute_started)
    answer.timings_ms["total"] = _elapsed_ms(started)
    return answer
