"""Prompts that fit the models people run: schema linking, the token budget, plain refusals, role order.

Everything goes through the real ChatOpenAI client to the loopback chat-completions stub, so the
sizes asserted are those of the requests a llama.cpp or Ollama server would receive.
"""

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import LlmSettings, SqlGeneratorRole, build_translator
from backend.domain.language.llm import translator as llm_translator
from backend.domain.language.llm.budget import estimate_tokens
from backend.domain.language.llm.linking import link_schema
from backend.domain.language.llm.qst_format import EXAMPLE_QST
from backend.domain.language.translation import Translation
from backend.domain.market.execution import current_context, execution_context
from backend.domain.market.schema import TABLES
from backend.domain.market.store import MarketStore
from tests.language.llm.openai_stub import OpenAiStub, Reply
from tests.language.llm.prompt_sizes import DEV_SET, measure, request_size, table

SQL = "SELECT ts_code FROM market.daily_basic WHERE trade_date = '2025-12-31' AND turnover_rate > 10"
UNRELATED_TABLES = ("income", "fina_indicator", "index_basic", "index_weight", "trade_cal", "dataset_info")
# llama.cpp's answer to a prompt over its context (server exceed_context_size_error).
LLAMA_CPP_CONTEXT = {
    "code": 400,
    "message": "request (4476 tokens) exceeds the available context size (4096 tokens)",
    "type": "exceed_context_size_error",
    "n_prompt_tokens": 4476,
    "n_ctx": 4096,
}
VLLM_CONTEXT = {
    "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens "
    "(4200 in the messages, 800 in the completion). Please reduce the length of the messages.",
    "type": "BadRequestError",
}


@pytest.fixture
def context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store)


@pytest.fixture
def second_stub() -> Iterator[OpenAiStub]:
    stub = OpenAiStub().start()
    yield stub
    stub.stop()


def settings_for(stub: OpenAiStub, **extra: str) -> LlmSettings:
    env = {
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": stub.base_url,
        "LLM_MODEL": "qwen2.5-coder-1.5b",
        "LLM_MAX_RETRIES": "0",
        **extra,
    }
    return LlmSettings.from_mapping(env)


def translate(stub: OpenAiStub, context: LanguageContext, question: str, **extra: Any) -> Translation:
    env = {key: value for key, value in extra.items() if key.startswith("LLM_")}
    options = {key: value for key, value in extra.items() if not key.startswith("LLM_")}
    return build_translator(settings_for(stub, **env)).translate(question, context, **options)


# --- the estimate ---------------------------------------------------------------------------------


def test_the_estimate_counts_a_cjk_character_or_a_digit_as_a_whole_token() -> None:
    assert estimate_tokens("市盈率") == 3
    assert estimate_tokens("市盈率低于15") == 7
    assert estimate_tokens("a" * 30) == 10
    assert estimate_tokens("pe < 15") == 2 + 2  # 'pe < ' a third each, rounded up, and two digits
    assert estimate_tokens("") == 0


# --- schema linking over the wire -----------------------------------------------------------------


def test_the_prompt_of_a_simple_question_is_well_under_the_default_budget(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL})]
    assert translate(openai_stub, context, "今日换手率超过10%的股票").status == "ok"
    [request] = openai_stub.requests
    size = request_size(request)
    assert size.tokens <= 2000 and size.characters <= 4000, size
    assert size.tokens < estimate_tokens(context.schema_prompt()) / 2  # the whole schema alone is larger


@pytest.mark.parametrize(
    ("question", "needed", "absent"),
    [
        (
            "市盈率低于15的上交所股票",
            ["pe Nullable(Float64)", "stock_basic.exchange = 'SSE'", "trade_date Date"],
            ["turnover_rate", "total_mv", "pe_ttm"],
        ),
        (
            "Banks with a dividend yield above 4%",
            ["dv_ratio Nullable(Float64)", "stock_basic.industry = '银行'", "industry LowCardinality"],
            ["pe_ttm", "dv_ttm", "total_mv"],
        ),
        (
            "今日收盘价创60日新高的股票",
            ["TABLE market.daily —", "close Float64", "n_day_high:"],
            ["TABLE market.daily_basic", "moving_average:"],
        ),
    ],
)
def test_the_linked_schema_has_what_the_question_needs_and_no_unrelated_table(
    openai_stub: OpenAiStub,
    context: LanguageContext,
    question: str,
    needed: list[str],
    absent: list[str],
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL})]
    translate(openai_stub, context, question)
    text = openai_stub.requests[0].text
    assert [item for item in needed if item not in text] == []
    assert [item for item in absent if item in text] == []
    assert [table for table in UNRELATED_TABLES if f"TABLE market.{table} " in text] == []


def test_probe_evidence_and_guidance_link_what_they_name(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL})]
    guidance = (
        "Use the annual report.\n\nSQL already refused:\nSELECT ts_code FROM market.income WHERE roe > 1"
    )
    translate(
        openai_stub,
        context,
        "茅台的换手率",
        evidence=["'茅台' is the stock 贵州茅台 600519.SH", "'沪深300' is the index 000300.SH 沪深300"],
        guidance=guidance,
    )
    text = openai_stub.requests[0].text
    assert "TABLE market.index_weight" in text and "TABLE market.income" in text
    assert "贵州茅台 600519.SH" in text and "turnover_rate Float64" in text
    assert "TABLE market.fina_indicator" not in text  # roe is not an income column


def test_prompt_sizes_before_and_after_linking_for_ten_dev_questions(
    openai_stub: OpenAiStub, context: LanguageContext, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = measure(context, openai_stub)
    with capsys.disabled():
        print("\n" + table(rows))
    assert len(rows) == 10
    assert all(row.before.tokens > 4096 for row in rows)  # the whole schema overflowed a 4k context
    assert all(row.after.tokens <= 2000 for row in rows)  # now a third of the default budget is left
    assert all(row.after.characters * 3 < row.before.characters for row in rows)


# --- the budget -------------------------------------------------------------------------------------


def test_a_prompt_over_the_budget_is_refused_before_anything_is_sent(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    translation = translate(openai_stub, context, "今日换手率超过10%的股票", LLM_PROMPT_TOKEN_BUDGET="600")
    assert openai_stub.requests == []
    assert translation.status == "error" and translation.sql is None
    message = translation.message
    assert "budget of 600" in message and "LLM_PROMPT_TOKEN_BUDGET" in message and "not sent" in message
    size = int(message.split("about ")[1].split(" tokens")[0].replace(",", ""))
    assert 600 < size < 3000


def test_examples_are_left_out_before_the_prompt_is_refused(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL})]
    long_sql = "SELECT ts_code FROM market.daily_basic WHERE " + " OR ".join(
        f"turnover_rate > {n}" for n in range(400)
    )
    translation = translate(
        openai_stub, context, "今日换手率超过10%的股票", examples=[("换手率超过某值的股票", long_sql)]
    )
    assert translation.status == "ok"
    [request] = openai_stub.requests
    assert "换手率超过某值的股票" not in request.text and request_size(request).tokens <= 3000


def test_then_concept_hints_and_triggered_conventions_are_left_out(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    question = "今日5日均线上穿20日均线的股票"
    openai_stub.replies = [Reply(tool_args={"sql": SQL}), Reply(tool_args={"sql": SQL})]
    translate(openai_stub, context, question, LLM_PROMPT_TOKEN_BUDGET="100000")
    full = openai_stub.requests[0]
    assert "moving_average:" in full.text and "Concepts named in the question:" in full.text
    budget = request_size(full).tokens - 1
    translation = translate(openai_stub, context, question, LLM_PROMPT_TOKEN_BUDGET=str(budget))
    assert translation.status == "ok" and len(openai_stub.requests) == 2
    terse = openai_stub.requests[1]
    assert request_size(terse).tokens <= budget
    assert "moving_average:" not in terse.text and "Concepts named in the question:" not in terse.text
    assert "latest_trading_day:" in terse.text and "close Float64" in terse.text


def test_a_retry_quotes_no_more_of_the_bad_answer_than_the_budget_leaves(openai_stub: OpenAiStub) -> None:
    openai_stub.replies = [Reply(content="这不是JSON。" * 800), Reply(tool_args={"sql": SQL})]
    settings = settings_for(openai_stub, LLM_MAX_RETRIES="1", LLM_PROMPT_TOKEN_BUDGET="1500")
    role = SqlGeneratorRole.from_settings(settings.role("sql_generator"))
    assert role.generate("换手率超过10%", "TABLE market.daily_basic\n  turnover_rate Float64").sql == SQL
    retry = openai_stub.requests[1]
    assert "It was rejected" in retry.text and "这不是JSON" in retry.text
    assert request_size(retry).tokens <= 1500  # the whole quote (2,000 characters) would not fit


# --- what the server says, said plainly ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            Reply(status=400, error=LLAMA_CPP_CONTEXT),
            "refused the prompt: context length 4096 exceeded (the prompt has 4476 tokens)",
        ),
        (
            Reply(status=400, error=VLLM_CONTEXT),
            "refused the prompt: context length 4096 exceeded (the prompt has 5000 tokens)",
        ),
        (Reply(status=413), "refused the prompt as too large (HTTP 413: stub status 413)"),
        (Reply(status=429), "is busy or rate-limited (HTTP 429: stub status 429); try again later"),
        (Reply(status=503), "failed with a server error (HTTP 503: stub status 503) (after 0 retries)"),
        (
            Reply(status=400, error={"message": "unknown field: tool_choice"}),
            "refused the request (HTTP 400: unknown field: tool_choice)",
        ),
        (Reply(body="<html>502 Bad Gateway</html>"), "answered with something that is not a chat completion"),
    ],
    ids=["llama.cpp-context", "vllm-context", "413", "429", "503", "400-other", "garbage"],
)
def test_a_refusing_server_gives_a_message_that_says_what_happened(
    openai_stub: OpenAiStub, context: LanguageContext, reply: Reply, expected: str
) -> None:
    openai_stub.replies = [reply]
    translation = translate(openai_stub, context, "今日换手率超过10%的股票")
    assert translation.status == "error"
    assert expected in translation.message
    assert translation.message.startswith("the model server of the sql_generator role (model qwen2.5-coder")
    [call] = translation.llm_calls
    assert call.error == translation.message


def test_a_context_refusal_says_what_to_change(openai_stub: OpenAiStub, context: LanguageContext) -> None:
    openai_stub.replies = [Reply(status=400, error=LLAMA_CPP_CONTEXT)]
    message = translate(openai_stub, context, "今日换手率超过10%的股票").message
    assert "LLM_PROMPT_TOKEN_BUDGET" in message and "--ctx-size" in message
    assert "answered HTTP 400" not in message


def test_a_slow_server_hits_the_timeout_with_a_clear_message(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL}, hang_s=30) for _ in range(3)]
    translation = translate(
        openai_stub, context, "今日换手率超过10%的股票", LLM_TIMEOUT="0.3", LLM_MAX_RETRIES="2"
    )
    assert translation.status == "error"
    assert "did not answer within 0.3 s (not retried" in translation.message
    assert "LLM_TIMEOUT" in translation.message
    assert len(openai_stub.requests) == 1  # a retry would queue behind the request the server still runs


# --- roles in order -----------------------------------------------------------------------------------


def test_on_one_shared_server_the_qst_is_asked_after_the_sql(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL}), Reply(tool_args={"qst": EXAMPLE_QST})]
    translation = translate(openai_stub, context, "今日换手率超过10%的股票", LLM_QST_PARSER_MODEL="qwen-qst")
    assert translation.status == "ok" and translation.qst == EXAMPLE_QST
    assert [r.body["tools"][0]["function"]["name"] for r in openai_stub.requests] == [
        "GeneratedSql",
        "ParsedQst",
    ]
    assert all(request_size(r).tokens <= 3000 for r in openai_stub.requests)


def test_on_one_shared_server_a_failed_generation_asks_no_qst(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(status=400, error=LLAMA_CPP_CONTEXT), Reply(tool_args={"qst": EXAMPLE_QST})]
    translation = translate(openai_stub, context, "今日换手率超过10%的股票", LLM_QST_PARSER_MODEL="qwen-qst")
    assert translation.status == "error" and "context length 4096" in translation.message
    assert len(openai_stub.requests) == 1 and set(translation.timings_ms) == {"generate"}


def test_a_correction_round_reuses_the_qst_and_calls_only_the_generator(
    openai_stub: OpenAiStub, second_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(tool_args={"sql": SQL}), Reply(tool_args={"sql": SQL + " LIMIT 10"})]
    second_stub.replies = [Reply(tool_args={"qst": EXAMPLE_QST})]
    settings = settings_for(
        openai_stub, LLM_QST_PARSER_BASE_URL=second_stub.base_url, LLM_QST_PARSER_MODEL="qwen-qst"
    )
    translator = build_translator(settings)
    assert translator.parallel  # a server of its own: side by side
    question = "今日换手率超过10%的股票"
    first = translator.translate(question, context)
    corrected = translator.translate(question, context, guidance="Add LIMIT 10.")
    assert first.qst == corrected.qst == EXAMPLE_QST
    assert (len(openai_stub.requests), len(second_stub.requests)) == (2, 1)
    assert [call.role for call in corrected.llm_calls] == ["sql_generator"]


def test_the_two_roles_side_by_side_run_in_the_callers_context(
    openai_stub: OpenAiStub,
    second_stub: OpenAiStub,
    context: LanguageContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The job id of log lines and the requester of queries are context variables: threads must keep them.
    openai_stub.replies = [Reply(tool_args={"sql": SQL})]
    second_stub.replies = [Reply(tool_args={"qst": EXAMPLE_QST})]
    seen: list[str] = []
    timed = llm_translator._timed

    def timed_recording(work: Any) -> Any:
        seen.append(current_context().requester)
        return timed(work)

    monkeypatch.setattr(llm_translator, "_timed", timed_recording)
    settings = settings_for(
        openai_stub, LLM_QST_PARSER_BASE_URL=second_stub.base_url, LLM_QST_PARSER_MODEL="qwen-qst"
    )
    translator = build_translator(settings)
    assert translator.parallel
    with execution_context("user:analyst-7"):
        translator.translate("今日换手率超过10%的股票", context)
    assert seen == ["user:analyst-7", "user:analyst-7"]


# --- linking recall on the benchmark sets -----------------------------------------------------------


def gold_identifiers(sql: str) -> set[tuple[str, str]]:
    """(table, column) pairs a gold SQL reads; the latest-day subquery is not counted (the prompt
    states the latest trading day)."""
    text = re.sub(r"\(\s*select max\(trade_date\) from market\.daily\s*\)", "D", sql.lower())
    pairs = set()
    for spec in TABLES:
        if re.search(rf"market\.{spec.name}\b", text):
            pairs |= {(spec.name, c) for c in spec.column_names if re.search(rf"\b{c}\b", text)}
            pairs.add((spec.name, ""))
    return pairs


@pytest.mark.parametrize(
    ("name", "least"), [("dev_set", 1.0), ("blind_round1", 0.97), ("blind_round2", 0.97)]
)
def test_the_linked_schema_holds_every_table_and_column_of_the_gold_sql(
    context: LanguageContext, name: str, least: float
) -> None:
    items = yaml.safe_load((DEV_SET.parent / f"{name}.yaml").read_text("utf-8"))["items"]
    missed = []
    for item in (item for item in items if item.get("gold_sql")):
        linked = link_schema(item["question"], context)
        have = {(table, "") for table in linked.tables}
        have |= {(table, column) for table, columns in linked.columns.items() for column in columns}
        # A column read through another table's alias (ts_code, trade_date) is there under any table.
        names = {column for _table, column in have}
        lacking = {(t, c) for t, c in gold_identifiers(item["gold_sql"]) - have if c == "" or c not in names}
        if lacking:
            missed.append((item["id"], sorted(lacking)))
    total = sum(1 for item in items if item.get("gold_sql"))
    assert (total - len(missed)) / total >= least, missed


def test_a_busy_server_is_asked_again_after_its_retry_after(
    openai_stub: OpenAiStub, context: LanguageContext
) -> None:
    openai_stub.replies = [Reply(status=429), Reply(tool_args={"sql": SQL})]
    translation = translate(openai_stub, context, "今日换手率超过10%的股票", LLM_MAX_RETRIES="1")
    assert translation.status == "ok" and len(openai_stub.requests) == 2
