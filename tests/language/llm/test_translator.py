"""LlmTranslator end to end: real ChatOpenAI clients against loopback OpenAI-compatible servers."""

from collections.abc import Iterator

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import LlmSettings, LlmTranslator, build_translator
from backend.domain.language.llm.linking import link_schema
from backend.domain.language.llm.qst_format import EXAMPLE_QST
from backend.domain.market.store import MarketStore
from tests.language.llm.openai_stub import OpenAiStub, Reply

QUESTION = "2025年9月8日收盘价最高的上交所股票"
SQL = (
    "SELECT d.ts_code, b.name, d.close FROM market.daily AS d "
    "JOIN market.stock_basic AS b ON d.ts_code = b.ts_code "
    "WHERE d.trade_date = (SELECT max(trade_date) FROM market.daily) AND b.exchange = 'SSE' "
    "ORDER BY d.close DESC LIMIT 1"
)


@pytest.fixture
def context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store)


@pytest.fixture
def qst_stub() -> Iterator[OpenAiStub]:
    stub = OpenAiStub().start()
    yield stub
    stub.stop()


def settings_for(generator: OpenAiStub, qst_parser: OpenAiStub | None = None) -> LlmSettings:
    env = {
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": generator.base_url,
        "LLM_MODEL": "deepseek-v3",
        "LLM_API_KEY": "sk-generator",
        "LLM_MAX_RETRIES": "0",
    }
    if qst_parser is not None:
        env |= {"LLM_QST_PARSER_BASE_URL": qst_parser.base_url, "LLM_QST_PARSER_MODEL": "qwen2.5-7b-instruct"}
    return LlmSettings.from_mapping(env)


def test_translation_carries_the_sql_and_the_tokens_the_endpoint_reported(
    openai_stub: OpenAiStub, context: LanguageContext, demo_store: MarketStore
) -> None:
    openai_stub.replies = [
        Reply(
            tool_args={"sql": SQL, "explanation": "highest close"}, prompt_tokens=2048, completion_tokens=77
        )
    ]
    translator = build_translator(settings_for(openai_stub))
    assert (
        isinstance(translator, LlmTranslator) and translator.name == "llm" and translator.qst_parser is None
    )

    translation = translator.translate(QUESTION, context, evidence=["上交所 → exchange = 'SSE'"])
    assert translation.sql is not None and len(demo_store.query(translation.sql).rows) == 1  # it runs

    assert (translation.status, translation.engine, translation.sql, translation.qst) == (
        "ok",
        "llm",
        SQL,
        None,
    )
    assert translation.message == "highest close"
    [call] = translation.llm_calls
    assert (call.role, call.model, call.prompt_tokens, call.completion_tokens, call.total_tokens) == (
        "sql_generator",
        "deepseek-v3",
        2048,
        77,
        2125,
    )
    assert set(translation.timings_ms) == {"generate"}
    request = openai_stub.requests[0]
    linked = link_schema(QUESTION, context, evidence=["上交所 → exchange = 'SSE'"]).text()
    assert linked in request.text and context.schema_prompt() not in request.text
    assert QUESTION in request.text and "exchange = 'SSE'" in request.text
    assert translation.to_dict()["llm_calls"][0]["total_tokens"] == 2125


def test_a_dedicated_qst_parser_endpoint_supplies_the_qst(
    openai_stub: OpenAiStub, qst_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL}, prompt_tokens=900, completion_tokens=60)]
    qst_stub.replies = [Reply(tool_args={"qst": EXAMPLE_QST}, prompt_tokens=300, completion_tokens=90)]

    translation = build_translator(settings_for(openai_stub, qst_stub)).translate(QUESTION, context)

    assert translation.status == "ok" and translation.sql == SQL and translation.qst == EXAMPLE_QST
    assert [(c.role, c.model, c.total_tokens) for c in translation.llm_calls] == [
        ("sql_generator", "deepseek-v3", 960),
        ("qst_parser", "qwen2.5-7b-instruct", 390),
    ]
    assert set(translation.timings_ms) == {"generate", "qst"}
    [qst_request] = qst_stub.requests
    assert qst_request.body["model"] == "qwen2.5-7b-instruct"
    assert qst_request.body["tools"][0]["function"]["name"] == "ParsedQst"
    assert QUESTION in qst_request.text


def test_a_failing_qst_parser_leaves_the_sql_and_warns(
    openai_stub: OpenAiStub, qst_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL})]
    qst_stub.replies = [Reply(status=503)]
    translation = build_translator(settings_for(openai_stub, qst_stub)).translate(QUESTION, context)
    assert translation.status == "ok" and translation.sql == SQL and translation.qst is None
    assert len(translation.warnings) == 1 and "qst_parser" in translation.warnings[0]
    assert "HTTP 503" in translation.warnings[0]


def test_an_unreachable_generator_gives_an_error_translation_not_an_exception(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    settings = settings_for(openai_stub)
    openai_stub.stop()  # the endpoint goes away

    translation = build_translator(settings).translate(QUESTION, context)

    assert (translation.status, translation.sql, translation.engine) == ("error", None, "llm")
    assert "sql_generator" in translation.message and "could not be reached" in translation.message
    [call] = translation.llm_calls
    assert call.error == translation.message and call.total_tokens is None


def test_unusable_generator_output_gives_an_error_naming_the_problem(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": "DROP TABLE market.daily"})]
    translation = build_translator(settings_for(openai_stub)).translate(QUESTION, context)
    assert translation.status == "error"
    assert "the SQL is refused" in translation.message and "sql_generator" in translation.message
