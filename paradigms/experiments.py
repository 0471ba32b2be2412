"""`manage.py paradigms experiments`: the τ-sensitivity table and the measured hit-rate experiment
(issue 10 "Show"). Logic in backend/domain/paradigms/experiments.py; this module drives the pipeline
and the database library. Everything it stores is rolled back: the library is left as it was."""

from __future__ import annotations

import random
import time
from typing import Any

from django.conf import settings
from django.db import transaction

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.llm.roles import ReverseQuestionWriterRole, SqlGeneratorRole
from backend.domain.language.llm.translator import LlmTranslator
from backend.domain.language_bench.compare import ResultTable
from backend.domain.language_bench.dataset import DevItem
from backend.domain.market.errors import MarketError
from backend.domain.market.store import MarketStore
from backend.domain.paradigms.experiments import (
    REPEAT_SHARES,
    GoldChatModel,
    GoldCheckWriter,
    GoldQuestion,
    stream,
    summarise_arm,
    tau_sensitivity,
)
from backend.domain.pipeline.generators import LlmGenerator
from backend.domain.pipeline.ports import NoParadigmLibrary, ParadigmLibrary
from backend.domain.pipeline.run import PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles
from paradigms import services
from paradigms.library import DatabaseParadigmLibrary


def gold_questions(items: list[DevItem], context: LanguageContext) -> list[GoldQuestion]:
    """Dev-set items with gold SQL that the built-in engine reads (the library's key needs a QST)."""
    translator = BuiltinTranslator()
    found = []
    for item in items:
        if not item.gold_sql:
            continue
        translation = translator.translate(item.question, context)
        if translation.status == "ok" and translation.qst is not None:
            found.append(GoldQuestion(item.question, translation.qst, item.gold_sql, item.order_matters))
    return found


def tau_table(gold: list[GoldQuestion], store: MarketStore, context: LanguageContext) -> dict[str, Any]:
    def run_sql(sql: str) -> ResultTable | None:
        try:
            result = store.query(sql)
        except MarketError:
            return None
        return ResultTable(columns=result.columns, rows=result.rows)

    return tau_sensitivity(gold, run_sql, market_day=context.latest_trade_date)


class _Arm:
    """One side of the experiment: the pipeline with its own stub LLM roles (the SQL generator and the
    reverse-question writer) and library."""

    def __init__(
        self,
        library: ParadigmLibrary,
        answers: dict[str, str],
        store: MarketStore,
        context: LanguageContext,
        latency_s: float,
    ) -> None:
        self.model = GoldChatModel(answers=answers, latency_s=latency_s)
        self.writer = GoldCheckWriter(answers=answers, latency_s=latency_s)
        generator = LlmGenerator(LlmTranslator(SqlGeneratorRole(self.model)), context)
        checks = LlmCheckRoles(
            writer=ReverseQuestionWriterRole(self.writer), context=context, writer_on_failure="fail"
        )
        self.ports = Ports(
            store, generator, default_vocabulary(), store.database, library=library, llm_checks=checks
        )
        self.settings = PipelineSettings(max_rounds=settings.PIPELINE_MAX_ROUNDS)
        self.runs: list[dict[str, Any]] = []

    def ask(self, question: str, repeat: bool) -> dict[str, Any]:
        calls, written, started = self.model.calls, self.writer.calls, time.perf_counter()
        outcome = run_pipeline(question, self.ports, self.settings)
        events = outcome.trace.to_list()
        run = {
            "question": question,
            "repeat": repeat,
            "status": outcome.status,
            "ms": round((time.perf_counter() - started) * 1000, 3),
            "llm_calls": self.model.calls - calls + self.writer.calls - written,
            "writer_calls": self.writer.calls - written,
            "adapted": any(
                e["type"] == "paradigm" and e["query"] == "question" and e["outcome"] == "adapted"
                for e in events
            ),
            "checks_reused": any(
                e["type"] == "paradigm" and str(e["query"]).startswith("llm-") and e["outcome"] == "adapted"
                for e in events
            ),
            "steps_ms": outcome.timings_ms,
        }
        self.runs.append(run)
        return run


def hit_rate_experiment(
    gold: list[GoldQuestion],
    store: MarketStore,
    context: LanguageContext,
    *,
    known: int,
    length: int,
    seed: int,
    latency_s: float = 0.0,
) -> dict[str, Any]:
    """Streams with 0–100% repeats of known questions, with the library (warmed on the known
    questions) and without one; the stub LLM roles answer from the gold SQL and count calls."""
    answers = {item.question: item.gold_sql for item in gold}
    order = [item.question for item in gold]
    random.Random(seed).shuffle(order)
    known_questions, unseen = order[:known], order[known:]
    report: dict[str, Any] = {
        "known": known,
        "length": length,
        "seed": seed,
        "llm_latency_s": latency_s,
        "streams": [],
    }
    with transaction.atomic():
        services.clear_library()
        warm = _Arm(DatabaseParadigmLibrary(context), answers, store, context, 0.0)  # untimed
        learned = [q for q in known_questions if warm.ask(q, False)["status"] in ("verified", "corrected")]
        report["warm_up"] = {"asked": len(known_questions), "learned": len(learned)}
        for percent in REPEAT_SHARES:
            questions = stream(learned, unseen, repeat_percent=percent, length=length, seed=seed)
            with transaction.atomic():
                library = _Arm(DatabaseParadigmLibrary(context), answers, store, context, latency_s)
                alone = _Arm(NoParadigmLibrary(), answers, store, context, latency_s)
                # Question by question, the two sides in alternating order, so that a changing
                # machine load and warm caches fall on both alike.
                for number, (question, repeat) in enumerate(questions):
                    for side in (library, alone) if number % 2 == 0 else (alone, library):
                        side.ask(question, repeat)
                transaction.set_rollback(True)  # each stream starts from the warmed library
            report["streams"].append(
                {
                    "repeat_percent": percent,
                    "with_library": summarise_arm(library.runs),
                    "without_library": summarise_arm(alone.runs),
                    "runs": {"with_library": library.runs, "without_library": alone.runs},
                }
            )
        transaction.set_rollback(True)  # the library is left as it was
    return report
