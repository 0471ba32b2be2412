"""The translator under test, reached only through the language engine's public contract."""

from __future__ import annotations

import importlib

from backend.domain.language.translation import Translation
from backend.domain.language_bench.runner import TranslateFn
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
