"""The roles through the real ChatOpenAI client against a loopback OpenAI-compatible server.

The stub asserts what goes over the wire (model, bearer key, prompt, tools / response_format) and
replies in OpenAI's shape, including tool calls and usage; failures (HTTP 500, a hanging server,
a closed port) must surface as LlmUnavailable.
"""

import json
import socket

import pytest

from backend.domain.language.llm import (
    JudgeRole,
    LlmOutputError,
    LlmSettings,
    LlmUnavailable,
    RoleSettings,
    SqlGeneratorRole,
)
from backend.domain.language.translation import LlmCall
from tests.language.llm.openai_stub import OpenAiStub, Reply

SCHEMA = "TABLE market.daily_basic\n  pe Float64 — 市盈率 (倍)\n  total_mv Float64 — 总市值 (万元)"
QUESTION = "市盈率低于15的股票"
SQL = "SELECT ts_code FROM market.daily_basic WHERE trade_date = '2025-09-08' AND pe < 15"


def role_settings(stub: OpenAiStub, **overrides: str) -> RoleSettings:
    env = {
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": stub.base_url,
        "LLM_MODEL": "deepseek-v3",
        "LLM_API_KEY": "sk-loopback-123",
        "LLM_TIMEOUT": "10",
        **overrides,
    }
    return LlmSettings.from_mapping(env).role("sql_generator")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_function_calling_sends_the_tool_and_the_prompt_and_records_reported_usage(
    openai_stub: OpenAiStub,
) -> None:
    openai_stub.replies = [
        Reply(tool_args={"sql": SQL, "explanation": "PE filter"}, prompt_tokens=931, completion_tokens=42)
    ]
    role = SqlGeneratorRole.from_settings(
        role_settings(openai_stub, LLM_SQL_GENERATOR_MODEL="qwen2.5-coder-32b")
    )
    calls: list[LlmCall] = []

    result = role.generate(QUESTION, SCHEMA, evidence=["PE is daily_basic.pe"], calls=calls)

    assert result.sql == SQL and result.explanation == "PE filter"
    [request] = openai_stub.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-loopback-123"
    assert request.body["model"] == "qwen2.5-coder-32b"
    assert [message["role"] for message in request.body["messages"]] == ["system", "user"]
    assert SCHEMA in request.text and QUESTION in request.text and "PE is daily_basic.pe" in request.text
    [tool] = request.body["tools"]
    assert tool["type"] == "function" and tool["function"]["name"] == "GeneratedSql"
    assert set(tool["function"]["parameters"]["properties"]) == {"sql", "explanation"}
    assert request.body["tool_choice"] == {"type": "function", "function": {"name": "GeneratedSql"}}
    assert "response_format" not in request.body
    [call] = calls
    assert (call.role, call.model, call.attempt, call.error) == (
        "sql_generator",
        "qwen2.5-coder-32b",
        1,
        None,
    )
    assert (call.prompt_tokens, call.completion_tokens, call.total_tokens) == (931, 42, 973)


def test_json_schema_method_sends_response_format_and_reads_the_text(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(content=json.dumps({"sql": SQL}))]
    role = SqlGeneratorRole.from_settings(role_settings(openai_stub, LLM_STRUCTURED_OUTPUT="json_schema"))
    assert role.generate(QUESTION, SCHEMA).sql == SQL
    body = openai_stub.requests[0].body
    assert "tools" not in body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "GeneratedSql"
    assert "sql" in body["response_format"]["json_schema"]["schema"]["properties"]


def test_json_mode_asks_for_a_json_object_and_the_prompt_describes_the_fields(
    openai_stub: OpenAiStub,
) -> None:
    openai_stub.replies = [Reply(content='{"ok": true, "reason": "the PE filter and date are right"}')]
    judge_settings = LlmSettings.from_mapping(
        {
            "LLM_BASE_URL": openai_stub.base_url,
            "LLM_MODEL": "judge-model",
            "LLM_JUDGE_STRUCTURED_OUTPUT": "json_mode",
        }
    ).role("judge")
    verdict = JudgeRole.from_settings(judge_settings).judge(
        QUESTION, "Which of these have a PE of 15 or more?", SQL, "ts_code\n600000.SH", "(no rows)"
    )
    assert verdict.ok and "PE filter" in verdict.reason
    request = openai_stub.requests[0]
    assert request.body["response_format"] == {"type": "json_object"}
    assert "JSON" in request.text and '"ok"' in request.text and "600000.SH" in request.text
    assert request.headers["authorization"] == "Bearer not-needed"  # local server without a key


def test_malformed_tool_arguments_are_retried_over_the_wire_with_the_problem(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [
        Reply(
            tool_args={"sql": "UPDATE market.daily_basic SET pe = 0"}, prompt_tokens=100, completion_tokens=10
        ),
        Reply(tool_args={"sql": SQL}, prompt_tokens=140, completion_tokens=12),
    ]
    calls: list[LlmCall] = []
    assert (
        SqlGeneratorRole.from_settings(role_settings(openai_stub)).generate(QUESTION, SCHEMA, calls=calls).sql
        == SQL
    )
    assert len(openai_stub.requests) == 2
    retry = openai_stub.requests[1]
    assert "UPDATE market.daily_basic SET pe = 0" in retry.text and "the SQL is refused" in retry.text
    assert [(c.attempt, c.total_tokens, c.error is None) for c in calls] == [(1, 110, False), (2, 152, True)]


def test_malformed_output_every_time_raises_llm_output_error(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(tool_args={"statement": SQL}) for _ in range(2)]
    settings = role_settings(openai_stub, LLM_MAX_RETRIES="1")
    with pytest.raises(LlmOutputError, match=r"sql_generator.*2 time\(s\).*sql: Field required"):
        SqlGeneratorRole.from_settings(settings).generate(QUESTION, SCHEMA)
    assert len(openai_stub.requests) == 2


def test_server_errors_are_retried_by_the_client_then_reported_unavailable(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(status=500) for _ in range(3)]
    calls: list[LlmCall] = []
    with pytest.raises(LlmUnavailable) as raised:
        SqlGeneratorRole.from_settings(role_settings(openai_stub, LLM_MAX_RETRIES="2")).generate(
            QUESTION, SCHEMA, calls=calls
        )
    assert len(openai_stub.requests) == 3  # one try and two retries
    message = str(raised.value)
    assert "sql_generator" in message and "HTTP 500" in message and "after 2 retries" in message
    assert openai_stub.base_url in message
    [call] = calls
    assert call.error == message and call.total_tokens is None


def test_a_server_that_hangs_times_out_as_unavailable(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL}, hang_s=30)]
    settings = role_settings(openai_stub, LLM_TIMEOUT="0.3", LLM_MAX_RETRIES="0")
    with pytest.raises(
        LlmUnavailable, match=r"model server of the sql_generator role .* did not answer within 0.3 s"
    ):
        SqlGeneratorRole.from_settings(settings).generate(QUESTION, SCHEMA)
    assert len(openai_stub.requests) == 1


def test_a_closed_port_is_reported_unavailable() -> None:
    settings = LlmSettings.from_mapping(
        {
            "LLM_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1",
            "LLM_MODEL": "m",
            "LLM_MAX_RETRIES": "0",
        }
    ).role("judge")
    with pytest.raises(LlmUnavailable, match=r"model server of the judge role .* could not be reached"):
        JudgeRole.from_settings(settings).judge(QUESTION, "reverse?", SQL, "(no rows)", "(no rows)")


def test_a_rejected_json_schema_request_suggests_function_calling(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(status=400)]
    settings = role_settings(openai_stub, LLM_STRUCTURED_OUTPUT="json_schema")
    with pytest.raises(LlmUnavailable, match="LLM_SQL_GENERATOR_STRUCTURED_OUTPUT=function_calling"):
        SqlGeneratorRole.from_settings(settings).generate(QUESTION, SCHEMA)


def test_a_refused_key_says_so(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(status=401)]
    with pytest.raises(
        LlmUnavailable, match=r"refused the API key \(HTTP 401: stub status 401\) — check the API key"
    ) as raised:
        SqlGeneratorRole.from_settings(role_settings(openai_stub)).generate(QUESTION, SCHEMA)
    assert "retries" not in str(raised.value)
    assert len(openai_stub.requests) == 1  # authentication failures are not retried


def test_a_server_that_ignores_the_tool_and_answers_in_text_is_still_understood(
    openai_stub: OpenAiStub,
) -> None:
    openai_stub.replies = [Reply(content=f"Here is the query:\n```json\n{json.dumps({'sql': SQL})}\n```")]
    assert SqlGeneratorRole.from_settings(role_settings(openai_stub)).generate(QUESTION, SCHEMA).sql == SQL
    assert openai_stub.requests[0].body["tools"][0]["function"]["name"] == "GeneratedSql"


def test_broken_tool_call_json_is_retried(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(raw_arguments='{"sql": "SELECT ts_code FROM'), Reply(tool_args={"sql": SQL})]
    calls: list[LlmCall] = []
    assert (
        SqlGeneratorRole.from_settings(role_settings(openai_stub)).generate(QUESTION, SCHEMA, calls=calls).sql
        == SQL
    )
    assert calls[0].error is not None and "not valid JSON" in calls[0].error
    assert "not valid JSON" in openai_stub.requests[1].text


def test_tokens_stay_none_when_the_endpoint_reports_no_usage(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL}, prompt_tokens=None, completion_tokens=None)]
    calls: list[LlmCall] = []
    SqlGeneratorRole.from_settings(role_settings(openai_stub)).generate(QUESTION, SCHEMA, calls=calls)
    [call] = calls
    assert (call.prompt_tokens, call.completion_tokens, call.total_tokens, call.error) == (
        None,
        None,
        None,
        None,
    )
