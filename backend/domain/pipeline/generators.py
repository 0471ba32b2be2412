"""The generators behind the `Generator` contract (translation.py): the built-in engine, the LLM, and
the built-in engine with the LLM for the questions it cannot read.

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
from backend.domain.language.translation import GenerationRequest, OnFailure, SchemaContext, Translation


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


class FallbackGenerator:
    """The built-in engine first; a question it cannot read (words left over, no reading) goes to the
    LLM generator, and so does guidance it has no other reading for.

    The answer says which engine wrote the SQL and, when it is the LLM, what the built-in engine
    could not read. When the LLM fails too (endpoint error, garbage, timeout, prompt over its
    budget), `on_failure` decides: `builtin` answers not_understood with the built-in engine's words
    and a line on the LLM's failure; `fail` answers error with both. Never a guess either way. A
    failure another LLM role asked to be final (its ON_FAILURE is `fail`) answers error too.
    """

    name = "builtin+llm"

    def __init__(self, builtin: BuiltinGenerator, llm: LlmGenerator, *, on_failure: OnFailure) -> None:
        self._builtin = builtin
        self._llm = llm
        self._on_failure = on_failure

    def generate(self, request: GenerationRequest) -> Translation:
        first = self._builtin.generate(request)
        if first.status != "not_understood":
            return first
        second = self._llm.generate(request)
        timings = {**first.timings_ms, **second.timings_ms}
        if second.status == "ok" and second.sql:
            note = f"the LLM generator wrote the SQL; the built-in engine: {first.message}"
            second.message = f"{note}. {second.message}" if second.message else note
            second.warnings.insert(0, note)
            second.timings_ms = timings
            return second
        failure = f"the LLM generator could not answer either: {second.message}"
        if self._on_failure == "fail" or second.final_failure:
            return Translation(
                request.question,
                "error",
                message=f"{failure} (the built-in engine: {first.message})",
                llm_calls=second.llm_calls,
                timings_ms=timings,
                engine=self._llm.name,
            )
        return Translation(
            request.question,
            "not_understood",
            qst=first.qst,
            message=f"{first.message}\n{failure}",
            llm_calls=second.llm_calls,
            timings_ms=timings,
            engine=self._builtin.name,
        )
