"""Each LLM role's endpoint failing — HTTP 500, malformed JSON, a 200 that is no chat completion, a
server hanging past the timeout, a closed port — through the real ChatOpenAI client against the
loopback OpenAI-compatible stub, under both settings of LLM_<ROLE>_ON_FAILURE.

What the user sees: never an exception, never a guess. The generator leaves the built-in engine's
refusal with a line on the failure (`builtin`) or a clear error (`fail`).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import date

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import LlmSettings, SqlGeneratorRole, build_translator
from backend.domain.language.llm.settings import OnFailure
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.generators import BuiltinGenerator, FallbackGenerator, LlmGenerator
from backend.domain.pipeline.run import Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from tests.language.llm.openai_stub import OpenAiStub, Reply
from tests.pipeline.test_llm_fallback import LEFTOVER, UNREADABLE

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
