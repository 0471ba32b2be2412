"""The two generators behind the `Generator` contract (translation.py).

The built-in engine answers guidance by choosing among its alternative readings of the question
(`translate_readings`, ranked, best first): the first reading whose SQL was not already refused. An
engine without ranked readings has one reading, so a correction round finds nothing new. The LLM
generator gets the evidence, the examples and the guidance in its prompt.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.llm.translator import LlmTranslator
from backend.domain.language.translation import GenerationRequest, SchemaContext, Translation


def same_sql(left: str, right: str) -> bool:
    """Equal up to whitespace and letter case (a candidate re-rendered is still the same candidate)."""
    return " ".join(left.split()).lower() == " ".join(right.split()).lower()


@runtime_checkable
class RankedReadings(Protocol):
    def translate_readings(self, question: str, context: LanguageContext) -> list[Translation]: ...


class BuiltinGenerator:
    name = "builtin"

    def __init__(self, context: LanguageContext, translator: BuiltinTranslator | None = None) -> None:
        self._context = context
        self._translator = translator or BuiltinTranslator()

    def generate(self, request: GenerationRequest) -> Translation:
        if request.guidance is None:
            return self._translator.translate(request.question, self._context)
        rejected = request.guidance.rejected_sql
        for reading in self._readings(request.question):
            if reading.status == "ok" and reading.sql and not any(same_sql(reading.sql, r) for r in rejected):
                return reading
        return Translation(
            question=request.question,
            status="not_understood",
            message="the built-in engine has no other reading of the question",
            engine=self.name,
        )

    def _readings(self, question: str) -> list[Translation]:
        if isinstance(self._translator, RankedReadings):
            return self._translator.translate_readings(question, self._context)
        return [self._translator.translate(question, self._context)]


class LlmGenerator:
    name = "llm"

    def __init__(self, translator: LlmTranslator, context: SchemaContext) -> None:
        self._translator = translator
        self._context = context

    def generate(self, request: GenerationRequest) -> Translation:
        guidance = None
        if request.guidance is not None:
            refused = "\n\n".join(request.guidance.rejected_sql)
            guidance = f"{request.guidance.message}\n\nSQL already refused (do not repeat it):\n{refused}"
        return self._translator.translate(
            request.question,
            self._context,
            evidence=[item.as_text() for item in request.evidence],
            examples=[(example.question, example.sql) for example in request.examples],
            guidance=guidance,
        )
