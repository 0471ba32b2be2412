"""Each LLM role's endpoint failing — HTTP 500, malformed JSON, a 200 that is no chat completion, a
server hanging past the timeout, a closed port — through the real ChatOpenAI client against the
loopback OpenAI-compatible stub, under both settings of LLM_<ROLE>_ON_FAILURE. The failing role has
an endpoint of its own (the `fault` fixture); every other role answers from a healthy stub.

What the user sees: never an exception, never a guess. The generator leaves the built-in engine's
refusal with a line on the failure (`builtin`) or a clear error (`fail`); the QST parser leaves the
LLM's SQL without a QST and a warning (`builtin`) or an error naming it (`fail`); the paradigm adapter
leaves the generator to answer with a warning (`builtin`) or an error naming it (`fail`); a check role
leaves the built-in checks to decide alone with a warning (`builtin`) or an undecided check (`fail`),
so that its failure never makes an answer verified.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.llm import (
    JudgeRole,
    LlmSettings,
    ParadigmAdapterRole,
    ReverseQuestionWriterRole,
    SqlGeneratorRole,
    build_translator,
)
from backend.domain.language.llm.settings import RoleSettings
from backend.domain.language.translation import OnFailure
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.generators import BuiltinGenerator, FallbackGenerator, LlmGenerator
from backend.domain.pipeline.run import PipelineOutcome, PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles
from backend.domain.pipeline.validate.outcome import CheckResult
from paradigms.library import DatabaseParadigmLibrary, llm_adapter
from tests.language.llm.openai_stub import OpenAiStub, Reply
from tests.pipeline.test_llm_fallback import LEFTOVER, LLM_SQL, UNREADABLE
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
ON_FAILURE: tuple[OnFailure, ...] = ("builtin", "fail")


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


@dataclass(frozen=True)
class Fault:
    """One fault of one role's endpoint under one LLM_<ROLE>_ON_FAILURE; `healthy` serves the rest."""

    on_failure: OnFailure
    url: str  # the failing endpoint
    said: str  # what the answer must say about the failure
    healthy: OpenAiStub

    def settings(self, role: str) -> LlmSettings:
        prefix = f"LLM_{role.upper()}_"
        env = {f"{prefix}BASE_URL": self.url, f"{prefix}ON_FAILURE": self.on_failure}
        settings = llm_settings(self.healthy.base_url, **env)
        assert settings.role(role).on_failure == self.on_failure
        return settings


@pytest.fixture
def openai_stub() -> Iterator[OpenAiStub]:
    stub = OpenAiStub().start()
    yield stub
    stub.stop()


@pytest.fixture
def healthy_stub() -> Iterator[OpenAiStub]:
    stub = OpenAiStub().start()
    yield stub
    stub.stop()


@pytest.fixture(
    params=[(fault, on_failure) for fault in FAULTS for on_failure in ON_FAILURE],
    ids=lambda param: "-".join(param),
)
def fault(request: pytest.FixtureRequest, openai_stub: OpenAiStub, healthy_stub: OpenAiStub) -> Fault:
    name, on_failure = request.param
    replies, said = FAULTS[name]
    openai_stub.replies = list(replies)
    url = closed_port_url() if name == "closed-port" else openai_stub.base_url
    return Fault(on_failure, url, said, healthy_stub)


@pytest.fixture
def context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store, today=date(2026, 11, 30))


def fallback_generator(settings: LlmSettings, context: LanguageContext) -> FallbackGenerator:
    on_failure = settings.role("sql_generator").on_failure
    llm = LlmGenerator(build_translator(settings), context)
    return FallbackGenerator(BuiltinGenerator(context), llm, on_failure=on_failure)


def test_sql_generator_fault(fault: Fault, demo_store: MarketStore, context: LanguageContext) -> None:
    generator = fallback_generator(fault.settings("sql_generator"), context)
    outcome = run_pipeline(
        UNREADABLE, Ports(demo_store, generator, default_vocabulary(), demo_store.database)
    )

    assert outcome.answer is None and outcome.attempts == []  # nothing ran on the store
    assert LEFTOVER in outcome.message and fault.said in outcome.message
    assert "the LLM generator could not answer either" in outcome.message
    assert outcome.status == ("not_understood" if fault.on_failure == "builtin" else "error")
    [generation] = outcome.generations
    assert [call.error is not None for call in generation.llm_calls] == [True]


def test_qst_parser_fault(fault: Fault, demo_store: MarketStore, context: LanguageContext) -> None:
    fault.healthy.replies = [Reply(tool_args={"sql": LLM_SQL})]  # the generator answers
    generator = fallback_generator(fault.settings("qst_parser"), context)
    outcome = run_pipeline(
        UNREADABLE, Ports(demo_store, generator, default_vocabulary(), demo_store.database)
    )

    [generation] = outcome.generations
    assert [(call.role, call.error is not None) for call in generation.llm_calls] == [
        ("sql_generator", False),
        ("qst_parser", True),
    ]
    if fault.on_failure == "fail":  # a clear failure, the LLM's SQL not run
        assert outcome.status == "error" and outcome.answer is None and outcome.attempts == []
        assert "the QST parser failed" in outcome.message and fault.said in outcome.message
    else:  # the SQL is answered without an LLM QST; the answer says the parser failed
        assert outcome.answer is not None and outcome.answer.sql == LLM_SQL
        assert outcome.translation is not None and outcome.translation.qst is None
        assert any(w.startswith("no QST:") and fault.said in w for w in outcome.warnings)


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


def test_reverse_question_writer_fault(
    fault: Fault, demo_store: MarketStore, context: LanguageContext
) -> None:
    outcome = validated(demo_store, check_roles(fault.settings("reverse_question_writer"), context))

    if fault.on_failure == "fail":  # an undecided check: never verified
        [undecided] = llm_checks_of(outcome)
        assert (undecided.kind, undecided.verdict) == ("llm_writer", "undecidable")
        assert fault.said in undecided.reason and outcome.status == "unverified"
    else:  # the built-in checks decide alone; the answer says the writer failed
        assert llm_checks_of(outcome) == [] and outcome.status == "verified"
        assert any("reverse-question writer failed" in w and fault.said in w for w in outcome.warnings)
    assert [call.error is not None for call in outcome.check_llm_calls] == [True]


JUDGED_CHECK = {
    "question": "How many stocks are worth over 100 billion?",
    "point": "aggregation",
    "sql": "SELECT count() FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 10000000",
    "criterion": "judge",
}


def test_judge_fault(fault: Fault, demo_store: MarketStore, context: LanguageContext) -> None:
    fault.healthy.replies = [Reply(tool_args={"questions": [JUDGED_CHECK]})]  # the writer answers
    outcome = validated(demo_store, check_roles(fault.settings("judge"), context, judge=True))

    if fault.on_failure == "fail":
        [undecided] = llm_checks_of(outcome)
        assert undecided.verdict == "undecidable" and "the judge failed" in undecided.reason
        assert fault.said in undecided.reason and outcome.status == "unverified"
    else:
        assert llm_checks_of(outcome) == [] and outcome.status == "verified"
        assert any("judge failed" in w and fault.said in w for w in outcome.warnings)
    assert [call.role for call in outcome.check_llm_calls] == ["reverse_question_writer", "judge"]


PARADIGM_QUESTION = "市盈率最低的10只股票"
ADAPTED_QUESTION = "市净率最低的10只股票"  # another attribute: slot filling refuses, the adapter is asked


def library_with_a_paradigm(role: RoleSettings, context: LanguageContext) -> DatabaseParadigmLibrary:
    """A library holding PARADIGM_QUESTION's paradigm, adapted by the LLM role of these settings."""
    library = DatabaseParadigmLibrary(
        context,
        adapter=llm_adapter(ParadigmAdapterRole.from_settings(role), context),
        adapter_on_failure=role.on_failure,
    )
    source = BuiltinTranslator().translate(PARADIGM_QUESTION, context)
    assert source.qst is not None and source.sql is not None
    assert library.learn(PARADIGM_QUESTION, source.qst, source.sql) is not None
    return library


@pytest.mark.django_db
def test_paradigm_adapter_fault(fault: Fault, demo_store: MarketStore, context: LanguageContext) -> None:
    library = library_with_a_paradigm(fault.settings("paradigm_adapter").role("paradigm_adapter"), context)
    ports = Ports(
        demo_store, BuiltinGenerator(context), default_vocabulary(), demo_store.database, library=library
    )
    outcome = run_pipeline(ADAPTED_QUESTION, ports)

    adapter_attempt = outcome.generations[0]
    assert adapter_attempt.engine == "paradigm_adapter"
    assert [(call.role, call.error is not None) for call in adapter_attempt.llm_calls] == [
        ("paradigm_adapter", True)
    ]
    if fault.on_failure == "fail":  # a clear failure: nothing generated, nothing ran on the store
        assert outcome.status == "error" and outcome.answer is None and outcome.attempts == []
        assert "the paradigm adapter failed" in outcome.message and fault.said in outcome.message
        assert len(outcome.generations) == 1
    else:  # the built-in generator answers, with the paradigm as its example; the answer says why
        assert outcome.status == "verified" and outcome.answer is not None
        assert [generation.engine for generation in outcome.generations] == ["paradigm_adapter", "builtin"]
        assert any(w.startswith("the paradigm adapter failed") and fault.said in w for w in outcome.warnings)


@pytest.mark.django_db
def test_an_adapter_that_answers_stands_for_the_generator_within_the_default_budget(
    openai_stub: OpenAiStub, demo_store: MarketStore, context: LanguageContext
) -> None:
    adapted = BuiltinTranslator().translate(ADAPTED_QUESTION, context).sql
    openai_stub.replies = [Reply(tool_args={"sql": adapted})]
    library = library_with_a_paradigm(llm_settings(openai_stub.base_url).role("paradigm_adapter"), context)
    ports = Ports(
        demo_store, ScriptedGenerator([]), default_vocabulary(), demo_store.database, library=library
    )

    outcome = run_pipeline(ADAPTED_QUESTION, ports)

    # The prompt was sent (the linked schema fits LLM_PROMPT_TOKEN_BUDGET's default) and its SQL used.
    assert outcome.status == "verified" and outcome.answer is not None and outcome.answer.sql == adapted
    [generation] = outcome.generations
    assert [(call.role, call.error) for call in generation.llm_calls] == [("paradigm_adapter", None)]
    [request] = openai_stub.requests
    assert ADAPTED_QUESTION in request.text and "pb" in request.text


def test_the_role_reads_its_timeout_and_retries_from_the_settings(openai_stub: OpenAiStub) -> None:
    role = SqlGeneratorRole.from_settings(llm_settings(openai_stub.base_url).role("sql_generator"))
    openai_stub.replies = [Reply(hang_s=5)]
    with pytest.raises(Exception, match=f"did not answer within {TIMEOUT_S:g} s"):
        role.generate(UNREADABLE, "TABLE market.daily")
    assert len(openai_stub.requests) == 1  # no retry after a timeout


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
