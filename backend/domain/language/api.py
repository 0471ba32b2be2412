"""Convenience entry point: translate one question with the built-in engine unless told otherwise."""

from __future__ import annotations

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.translation import Translation, Translator


def translate_question(
    question: str, context: LanguageContext, translator: Translator | None = None
) -> Translation:
    return (translator or BuiltinTranslator()).translate(question, context)


__all__ = ["BuiltinTranslator", "LanguageContext", "translate_question"]
