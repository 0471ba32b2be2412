"""Each LLM role's endpoint failing — HTTP 500, malformed JSON, a 200 that is no chat completion, a
server hanging past the timeout, a closed port — through the real ChatOpenAI client against the
loopback OpenAI-compatible stub, under both settings of LLM_<ROLE>_ON_FAILURE.

What the user sees: never an exception, never a guess. The generator leaves the built-in engine's
refusal with a line on the failure (`builtin`) or a clear error (`fail`); a check role leaves the
built-in checks to decide alone with a warning (`builtin`) or an undecided check (`fail`), so that its
failure never makes an answer verified.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import date

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import (
    JudgeRole,
    LlmSettings,
    ReverseQuestionWriterRole,
    SqlGeneratorRole,
    build_translator,
)
from backend.domain.language.llm.settings import OnFailure
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.generators import BuiltinGenerator, FallbackGenerator, LlmGenerator
from backend.domain.pipeline.run import PipelineOutcome, PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles
from backend.domain.pipeline.validate.outcome import CheckResult
from tests.language.llm.openai_stub import OpenAiStub, Reply
from tests.pipeline.test_llm_fallback import LEFTOVER, UNREADABLE
from tests.pipeline.test_run import GOLD, QUESTION, ScriptedGenerator

TIMEOUT_S = 0.5


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


# fault → (stub replies, what the answer must say about it)
FAULTS: dict[str, tuple[list[Reply], str]] = {
    "http-500": (
        [Reply(status=500, error={"message": "CUDA out of memory", "type": "server_error"})],
        "HTTP 500",
    ),
    "malformed-json": ([Reply(raw_arguments='{"sql": "SELECT 1')], "did not answer with the JSON asked for"),
    "not-a-completion": ([Reply(body="<html>502 Bad Gateway</html>")], "not a chat completion"),
    "hang": ([Reply(hang_s=5)], f"did not answer within {TIMEOUT_S:g} s"),
    "closed-port": ([], "could not be reached"),
}


def llm_settings(base_url: str, **extra: str) -> LlmSettings:
    return LlmSettings.from_mapping(
        {
            "LLM_PROVIDER": "openai",
            "LLM_BASE_URL": base_url,
            "LLM_MODEL": "loopback-model",
            "LLM_API_KEY": "none",
            "LLM_TIMEOUT": str(TIMEOUT_S),
            "LLM_MAX_RETRIES": "0",
            **extra,
        }
    )


def fault_url(stub: OpenAiStub, fault: str) -> str:
    replies, _ = FAULTS[fault]
    stub.replies = list(replies)
    return closed_port_url() if fault == "closed-port" else stub.base_url


@pytest.fixture
def openai_stub() -> Iterator[OpenAiStub]:
    stub = OpenAiStub().start()
    yield stub
    stub.stop()


@pytest.fixture
def context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store, today=date(2026, 11, 30))


@pytest.mark.parametrize("on_failure", ["builtin", "fail"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_sql_generator_fault(
    openai_stub: OpenAiStub,
    demo_store: MarketStore,
    context: LanguageContext,
    fault: str,
    on_failure: OnFailure,
) -> None:
    settings = llm_settings(fault_url(openai_stub, fault), LLM_SQL_GENERATOR_ON_FAILURE=on_failure)
    assert settings.role("sql_generator").on_failure == on_failure
    generator = FallbackGenerator(
        BuiltinGenerator(context), LlmGenerator(build_translator(settings), context), on_failure=on_failure
    )
    outcome = run_pipeline(
        UNREADABLE, Ports(demo_store, generator, default_vocabulary(), demo_store.database)
    )

    assert outcome.answer is None and outcome.attempts == []  # nothing ran on the store
    assert LEFTOVER in outcome.message and FAULTS[fault][1] in outcome.message
    assert "the LLM generator could not answer either" in outcome.message
    assert outcome.status == ("not_understood" if on_failure == "builtin" else "error")
    [generation] = outcome.generations
    assert [call.error is not None for call in generation.llm_calls] == [True]


def test_the_role_reads_its_timeout_and_retries_from_the_settings(openai_stub: OpenAiStub) -> None:
    role = SqlGeneratorRole.from_settings(llm_settings(openai_stub.base_url).role("sql_generator"))
    openai_stub.replies = [Reply(hang_s=5)]
    with pytest.raises(Exception, match=f"did not answer within {TIMEOUT_S:g} s"):
        role.generate(UNREADABLE, "TABLE market.daily")
    assert len(openai_stub.requests) == 1  # no retry after a timeout


def check_roles(settings: LlmSettings, context: LanguageContext, *, judge: bool = False) -> LlmCheckRoles:
    writer, judge_settings = settings.role("reverse_question_writer"), settings.role("judge")
    return LlmCheckRoles(
        writer=ReverseQuestionWriterRole.from_settings(writer),
        context=context,
        writer_on_failure=writer.on_failure,
        judge=JudgeRole.from_settings(judge_settings) if judge else None,
        judge_on_failure=judge_settings.on_failure,
    )


def validated(store: MarketStore, roles: LlmCheckRoles) -> PipelineOutcome:
    ports = Ports(store, ScriptedGenerator([GOLD]), default_vocabulary(), store.database, llm_checks=roles)
    return run_pipeline(QUESTION, ports, PipelineSettings(max_rounds=0))


def llm_checks_of(outcome: PipelineOutcome) -> list[CheckResult]:
    assert outcome.answer is not None
    return [check for check in outcome.answer.checks if check.check_id.startswith("llm-")]


@pytest.mark.parametrize("on_failure", ["builtin", "fail"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_reverse_question_writer_fault(
    openai_stub: OpenAiStub,
    demo_store: MarketStore,
    context: LanguageContext,
    fault: str,
    on_failure: OnFailure,
) -> None:
    settings = llm_settings(fault_url(openai_stub, fault), LLM_REVERSE_QUESTION_WRITER_ON_FAILURE=on_failure)
    outcome = validated(demo_store, check_roles(settings, context))

    said = FAULTS[fault][1]
    if on_failure == "fail":  # an undecided check: never verified
        [undecided] = llm_checks_of(outcome)
        assert (undecided.kind, undecided.verdict) == (
            "llm_writer",
            "undecidable",
        ) and said in undecided.reason
        assert outcome.status == "unverified"
    else:  # the built-in checks decide alone; the answer says the writer failed
        assert llm_checks_of(outcome) == [] and outcome.status == "verified"
        assert any("reverse-question writer failed" in w and said in w for w in outcome.warnings)
    assert [call.error is not None for call in outcome.check_llm_calls] == [True]


JUDGED_CHECK = {
    "question": "How many stocks are worth over 100 billion?",
    "point": "aggregation",
    "sql": "SELECT count() FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 10000000",
    "criterion": "judge",
}


@pytest.mark.parametrize("on_failure", ["builtin", "fail"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_judge_fault(
    openai_stub: OpenAiStub,
    demo_store: MarketStore,
    context: LanguageContext,
    fault: str,
    on_failure: OnFailure,
) -> None:
    writer_stub = OpenAiStub().start()
    try:
        writer_stub.replies = [Reply(tool_args={"questions": [JUDGED_CHECK]})]
        settings = llm_settings(
            writer_stub.base_url,
            LLM_JUDGE_BASE_URL=fault_url(openai_stub, fault),
            LLM_JUDGE_ON_FAILURE=on_failure,
        )
        outcome = validated(demo_store, check_roles(settings, context, judge=True))
    finally:
        writer_stub.stop()

    said = FAULTS[fault][1]
    if on_failure == "fail":
        [undecided] = llm_checks_of(outcome)
        assert undecided.verdict == "undecidable" and "the judge failed" in undecided.reason
        assert said in undecided.reason and outcome.status == "unverified"
    else:
        assert llm_checks_of(outcome) == [] and outcome.status == "verified"
        assert any("judge failed" in w and said in w for w in outcome.warnings)
    assert [call.role for call in outcome.check_llm_calls] == ["reverse_question_writer", "judge"]


def test_a_judge_that_answers_decides_its_check(
    openai_stub: OpenAiStub, demo_store: MarketStore, context: LanguageContext
) -> None:
    openai_stub.replies = [
        Reply(tool_args={"questions": [JUDGED_CHECK]}),
        Reply(tool_args={"ok": True, "reason": "the count equals the answer's rows"}),
    ]
    settings = llm_settings(openai_stub.base_url)
    outcome = validated(demo_store, check_roles(settings, context, judge=True))
    [judged] = llm_checks_of(outcome)
    assert (judged.verdict, judged.sql) == ("pass", JUDGED_CHECK["sql"])
    assert outcome.status == "verified"
    judge_prompt = openai_stub.requests[1].text
    assert JUDGED_CHECK["question"] in judge_prompt and "Reverse query rows:" in judge_prompt
