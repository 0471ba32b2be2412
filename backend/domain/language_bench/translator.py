"""The translator under test, reached only through the language engine's public contract."""

from __future__ import annotations

import importlib

from backend.domain.language.translation import Translation
from backend.domain.language_bench.runner import TranslateFn, VerifiedTranslation
from backend.domain.market.store import MarketStore


class TranslatorUnavailable(RuntimeError):
    """The language engine's public API cannot be imported (not built yet, or broken)."""


def contract_translator(store: MarketStore) -> TranslateFn:
    """`translate_question(question, LanguageContext.from_store(store))` as a one-argument function."""
    try:
        api = importlib.import_module("backend.domain.language.api")
        context_module = importlib.import_module("backend.domain.language.context")
    except ImportError as error:
        raise TranslatorUnavailable(f"the language engine API is not importable: {error}") from error
    context = context_module.LanguageContext.from_store(store)

    def translate(question: str) -> Translation:
        translation: Translation = api.translate_question(question, context)
        return translation

    return translate


def pipeline_translator(store: MarketStore, max_rounds: int = 3) -> TranslateFn:
    """Each question through the validation pipeline (probe, generate, checks, corrections) with the
    built-in engine; the translation is what the pipeline finally shows, with its status."""
    try:
        context_module = importlib.import_module("backend.domain.language.context")
        generators = importlib.import_module("backend.domain.pipeline.generators")
        run = importlib.import_module("backend.domain.pipeline.run")
        checklist = importlib.import_module("backend.domain.pipeline.validate.checklist")
    except ImportError as error:
        raise TranslatorUnavailable(f"the validation pipeline is not importable: {error}") from error
    context = context_module.LanguageContext.from_store(store)
    ports = run.Ports(
        store, generators.BuiltinGenerator(context), checklist.default_vocabulary(), store.database
    )
    settings = run.PipelineSettings(max_rounds=max_rounds)

    def translate(question: str) -> Translation:
        outcome = run.run_pipeline(question, ports, settings)
        answered = outcome.answer is not None and outcome.answer.result is not None
        first = outcome.translation
        return VerifiedTranslation(
            question=question,
            status="ok"
            if answered
            else ("not_understood" if outcome.status == "not_understood" else "error"),
            sql=outcome.answer.sql if answered else None,
            qst=first.qst if first is not None else None,
            message=outcome.message,
            warnings=list(outcome.warnings),
            engine=first.engine if first is not None else "builtin",
            verification=outcome.status,
        )

    return translate
