"""The built-in translator: question → QST → SQL with no language model (the default engine)."""

from __future__ import annotations

import time
from typing import Any

from backend.domain.language.compiler import CompileError, Compiler
from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import Screen
from backend.domain.language.lexicon import typo_readings
from backend.domain.language.limits import MAX_QUESTION_CHARS
from backend.domain.language.parser import NotUnderstood, Parser
from backend.domain.language.qst import QstError, screen_to_qst
from backend.domain.language.translation import Translation
from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import DIALECT


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


class BuiltinTranslator:
    """Lexicon + grammar parser and sqlglot compiler over the semantic model."""

    name = "builtin"

    def translate(self, question: str, context: Any) -> Translation:
        """The question's first reading (status not_understood, naming the words, if it has none)."""
        return self._guarded(question, context, every_reading=False)[0]

    def translate_readings(self, question: str, context: Any) -> list[Translation]:
        """Every reading of the question that compiles, best first, each with SQL of its own (where
        the words allow two nestings, 近30天 calendar or trading days, a P/E static or TTM…); a
        single not_understood (or error) translation when no reading compiles. The first is the
        answer `translate` gives whenever the first reading compiles."""
        return self._guarded(question, context, every_reading=True)

    def _guarded(self, question: str, context: Any, *, every_reading: bool) -> list[Translation]:
        if not isinstance(context, LanguageContext):
            raise TypeError("the built-in translator needs a LanguageContext")
        try:
            return self._translate(question, context, every_reading)
        except (
            Exception
        ) as error:  # a parser bug must not take the caller down; tests require status != error
            return [
                Translation(
                    question=str(question),
                    status="error",
                    message=f"internal error in the built-in engine ({type(error).__name__}: {error})",
                    engine=self.name,
                )
            ]

    def _translate(self, question: str, context: LanguageContext, every_reading: bool) -> list[Translation]:
        started = time.perf_counter()
        text = question if isinstance(question, str) else str(question)
        if not text.strip():
            return [self._refusal(text, "the question is empty")]
        if len(text) > MAX_QUESTION_CHARS:
            return [
                self._refusal(
                    text, f"the question is {len(text)} characters long; the limit is {MAX_QUESTION_CHARS}"
                )
            ]
        try:
            parser = Parser(context)
            screens = parser.parse_readings(text) if every_reading else [parser.parse(text)]
        except (NotUnderstood, RecursionError) as error:
            return [self._refusal(text, str(error), {"parse": _elapsed_ms(started)})]
        parsed_ms = _elapsed_ms(started)
        translations = [self._compile(text, screen, context, parsed_ms) for screen in screens]
        read_as = [
            f"read '{typed}' as '{known}'"
            for typed, known in typo_readings(text, context.lexicon, context.latest_trade_date)
        ]
        for translation in translations:
            translation.warnings[:0] = read_as  # a typo read as a known word is said with the answer
        compiled: list[Translation] = []
        for translation in translations:
            if translation.status == "ok" and all(other.sql != translation.sql for other in compiled):
                compiled.append(translation)
        return compiled or translations[:1]

    def _compile(self, text: str, screen: Screen, context: LanguageContext, parsed_ms: float) -> Translation:
        timings = {"parse": parsed_ms}
        qst = screen_to_qst(screen)
        started = time.perf_counter()
        try:
            query, warnings = Compiler(context).compile_qst(qst)
        except (CompileError, QstError) as error:
            timings["compile"] = _elapsed_ms(started)
            return self._refusal(text, str(error), timings, qst=qst)
        except QueryRejected as error:  # never expected: the compiler builds read-only SELECTs
            return Translation(question=text, status="error", qst=qst, message=str(error), engine=self.name)
        timings["compile"] = _elapsed_ms(started)
        sql = query.sql(dialect=DIALECT, pretty=True)
        if not context.has_data:
            warnings.append("the market store holds no daily bars: dates fall back to the calendar date")
        return Translation(
            question=text,
            status="ok",
            sql=sql,
            qst=qst,
            warnings=warnings,
            timings_ms=timings,
            engine=self.name,
        )

    def _refusal(
        self,
        text: str,
        message: str,
        timings: dict[str, float] | None = None,
        qst: dict[str, Any] | None = None,
    ) -> Translation:
        return Translation(
            question=text,
            status="not_understood",
            qst=qst,
            message=message,
            timings_ms=timings or {},
            engine=self.name,
        )
