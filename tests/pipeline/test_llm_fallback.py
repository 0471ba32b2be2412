"""The LLM generator behind the built-in engine: it gets the questions the engine cannot read, with the
linked schema and the probe's evidence; its SQL is validated like any other; when it fails, the
engine's refusal stands with a line on the failure (or, with on_failure=fail, a clear error).

LangChain fake chat models stand in for the model here; tests/pipeline/test_llm_faults.py runs the
same paths through the real client against a loopback OpenAI-compatible server.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import LlmTranslator, SqlGeneratorRole
from backend.domain.language.translation import OnFailure, Translation
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.generators import BuiltinGenerator, FallbackGenerator, LlmGenerator
from backend.domain.pipeline.run import PipelineOutcome, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from tests.pipeline.test_run import GOLD, QUESTION, WRONG

# The built-in engine reads the bank stocks and the P/E but not the chairman.
UNREADABLE = "银行股中市盈率低于10的股票和它们的董事长"
LEFTOVER = "could not map: '董事长'"
READABLE = "总市值超过1000亿的股票"
LLM_SQL = (
    "SELECT b.ts_code, b.name FROM market.stock_basic AS b JOIN market.daily_basic AS d "
    "ON d.ts_code = b.ts_code WHERE d.trade_date = (SELECT max(trade_date) FROM market.daily) "
    "AND b.industry = '银行' AND d.pe < 10"
)


class PromptRecorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.prompts.append("\n".join(message.text for message in messages[0]))


def sql_answer(sql: str) -> AIMessage:
    return AIMessage(content=json.dumps({"sql": sql, "explanation": "banks under PE 10"}))


@pytest.fixture
def context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store, today=date(2026, 11, 30))


def ask(
    store: MarketStore,
    context: LanguageContext,
    question: str,
    *answers: str | AIMessage,
    on_failure: OnFailure = "builtin",
    budget: int = 3000,
) -> tuple[PipelineOutcome, PromptRecorder]:
    recorder = PromptRecorder()
    model = GenericFakeChatModel(messages=iter(answers), callbacks=[recorder])
    role = SqlGeneratorRole(model, max_retries=0, prompt_token_budget=budget)
    llm = LlmGenerator(LlmTranslator(role), context)
    generator = FallbackGenerator(BuiltinGenerator(context), llm, on_failure=on_failure)
    ports = Ports(store, generator, default_vocabulary(), store.database)
    return run_pipeline(question, ports), recorder


def test_a_question_the_engine_cannot_read_goes_to_the_llm_with_linked_schema_and_evidence(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    outcome, recorder = ask(demo_store, context, UNREADABLE, sql_answer(LLM_SQL))

    [prompt] = recorder.prompts
    assert UNREADABLE in prompt
    assert outcome.evidence and all(item.as_text() in prompt for item in outcome.evidence)
    assert "daily_basic" in prompt and "income" not in prompt  # linked, not the whole schema
    assert outcome.translation is not None and outcome.translation.engine == "llm"
    assert outcome.answer is not None and outcome.answer.sql == LLM_SQL
    assert outcome.answer.result is not None
    assert {"syntax", "execution"} <= {check.kind for check in outcome.answer.checks}  # validated
    assert outcome.status in {"verified", "unverified"}
    [note] = [warning for warning in outcome.warnings if "LLM generator wrote the SQL" in warning]
    assert LEFTOVER in note
    events = outcome.trace.to_list()
    assert events[0]["engine"] == "builtin+llm"
    [generate] = [e for e in events if e["type"] == "step_finished" and e["step"] == "generate"]
    assert LEFTOVER in str(generate["summary"]) and generate["sql"] == LLM_SQL


def test_a_question_the_engine_reads_never_reaches_the_llm(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    outcome, recorder = ask(demo_store, context, READABLE, sql_answer(LLM_SQL))
    assert recorder.prompts == []
    assert outcome.translation is not None and outcome.translation.engine == "builtin"
    assert outcome.status == "verified"


def test_without_an_llm_the_refusal_names_the_leftover_words(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    ports = Ports(demo_store, BuiltinGenerator(context), default_vocabulary(), demo_store.database)
    outcome = run_pipeline(UNREADABLE, ports)
    assert (outcome.status, outcome.message) == ("not_understood", LEFTOVER)


@pytest.mark.parametrize(
    ("answers", "budget", "failure"),
    [
        (("this is not JSON at all",), 3000, "not a JSON object"),
        ((sql_answer("DROP TABLE market.daily"),), 3000, "the SQL is refused"),
        ((sql_answer("SELECT * FROM other_db.accounts"),), 3000, "not a market table"),
        ((), 300, "does not fit its token budget"),
    ],
    ids=["garbage", "ddl", "other-database", "prompt-over-budget"],
)
def test_a_failing_llm_leaves_the_refusal_and_says_why(
    demo_store: MarketStore,
    context: LanguageContext,
    answers: tuple[str | AIMessage, ...],
    budget: int,
    failure: str,
) -> None:
    outcome, _ = ask(demo_store, context, UNREADABLE, *answers, budget=budget)
    assert outcome.status == "not_understood" and outcome.answer is None
    first, second = outcome.message.split("\n")
    assert first == LEFTOVER
    assert second.startswith("the LLM generator could not answer either:") and failure in second


def test_on_failure_fail_is_a_clear_error(demo_store: MarketStore, context: LanguageContext) -> None:
    outcome, _ = ask(demo_store, context, UNREADABLE, "garbage", on_failure="fail")
    assert outcome.status == "error" and outcome.answer is None
    assert outcome.message.startswith("the LLM generator could not answer either:")
    assert LEFTOVER in outcome.message


class OneWrongReading:
    """A built-in translator with one reading, and that one wrong: guidance finds nothing else."""

    name = "builtin"

    def translate(self, question: str, context: LanguageContext) -> Translation:
        return Translation(question, "ok", sql=WRONG[0], engine=self.name)


def test_guidance_the_engine_has_no_other_reading_for_goes_to_the_llm(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    recorder = PromptRecorder()
    model = GenericFakeChatModel(messages=iter([sql_answer(GOLD)]), callbacks=[recorder])
    llm = LlmGenerator(LlmTranslator(SqlGeneratorRole(model, max_retries=0)), context)
    builtin = BuiltinGenerator(context, OneWrongReading())  # type: ignore[arg-type]
    generator = FallbackGenerator(builtin, llm, on_failure="builtin")
    outcome = run_pipeline(QUESTION, Ports(demo_store, generator, default_vocabulary(), demo_store.database))
    assert (outcome.status, outcome.correction_round) == ("corrected", 1)
    assert outcome.initial_sql == WRONG[0] and outcome.answer is not None and outcome.answer.sql == GOLD
    [prompt] = recorder.prompts
    assert "failed validation" in prompt and WRONG[0] in prompt  # the guidance and the refused SQL
