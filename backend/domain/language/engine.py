"""The built-in translator: question → QST → SQL with no language model (the default engine)."""

from __future__ import annotations

import time
from typing import Any

from backend.domain.language.compiler import CompileError, Compiler
from backend.domain.language.context import LanguageContext
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
        if not isinstance(context, LanguageContext):
            raise TypeError("the built-in translator needs a LanguageContext")
        try:
            return self._translate(question, context)
        except (
            Exception
        ) as error:  # a parser bug must not take the caller down; tests require status != error
            return Translation(
                question=str(question),
                status="error",
                message=f"internal error in the built-in engine ({type(error).__name__}: {error})",
                engine=self.name,
            )

    def _translate(self, question: str, context: LanguageContext) -> Translation:
        started = time.perf_counter()
        text = question if isinstance(question, str) else str(question)
        if not text.strip():
            return Translation(
                question=text, status="not_understood", message="the question is empty", engine=self.name
            )
        if len(text) > MAX_QUESTION_CHARS:
            return Translation(
                question=text,
                status="not_understood",
                message=f"the question is {len(text)} characters long; the limit is {MAX_QUESTION_CHARS}",
                engine=self.name,
            )
        timings: dict[str, float] = {}
        try:
            screen = Parser(context).parse(text)
            qst = screen_to_qst(screen)
        except (NotUnderstood, RecursionError) as error:
            timings["parse"] = _elapsed_ms(started)
            return Translation(
                question=text,
                status="not_understood",
                message=str(error),
                timings_ms=timings,
                engine=self.name,
            )
        timings["parse"] = _elapsed_ms(started)
        compile_started = time.perf_counter()
        try:
            query, warnings = Compiler(context).compile_qst(qst)
        except (CompileError, QstError) as error:
            timings["compile"] = _elapsed_ms(compile_started)
            return Translation(
                question=text, status="not_understood", qst=qst, message=str(error), timings_ms=timings,
                engine=self.name,
            )  # fmt: skip
        except QueryRejected as error:  # never expected: the compiler builds read-only SELECTs
            return Translation(question=text, status="error", qst=qst, message=str(error), engine=self.name)
        timings["compile"] = _elapsed_ms(compile_started)
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
