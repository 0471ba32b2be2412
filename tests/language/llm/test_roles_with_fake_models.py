"""Every role against LangChain's fake chat models.

The fakes cannot bind tools (`with_structured_output` raises NotImplementedError), so these tests
exercise the path where the JSON answer is read from the message text — plus tool-call messages,
which the reader takes first when a model returns them.
"""

import json
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from backend.domain.language.llm import (
    GeneratedSql,
    JudgeRole,
    LlmOutputError,
    ParadigmAdapterRole,
    QstParserRole,
    ReverseQuestionWriterRole,
    SqlGeneratorRole,
    format_result_preview,
)
from backend.domain.language.llm.qst_format import EXAMPLE_QST, EXAMPLE_QUESTION, describe_qst_format
from backend.domain.language.qst import qst_to_screen, validate_qst
from backend.domain.language.translation import LlmCall

SCHEMA = "TABLE market.daily\n  ts_code String\n  trade_date Date\n  close Float64 — 收盘价"
QUESTION = "2025年9月8日收盘价最高的上交所股票"
GOOD_SQL = (
    "SELECT ts_code, close FROM market.daily WHERE trade_date = '2025-09-08' ORDER BY close DESC LIMIT 1"
)


class PromptRecorder(BaseCallbackHandler):
    """Keeps the messages each model call received (LangChain's own callback hook)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        self.prompts.append("\n".join(message.text for message in messages[0]))


def fake(*answers: str | AIMessage) -> tuple[GenericFakeChatModel, PromptRecorder]:
    recorder = PromptRecorder()
    return GenericFakeChatModel(messages=iter(answers), callbacks=[recorder]), recorder


def answer(payload: dict[str, Any], **usage: Any) -> AIMessage:
    return AIMessage(content="```json\n" + json.dumps(payload, ensure_ascii=False) + "\n```", **usage)


def test_fake_chat_models_cannot_bind_tools_so_the_text_path_is_used() -> None:
    model, _ = fake("{}")
    with pytest.raises(NotImplementedError):
        model.with_structured_output(GeneratedSql)


def test_sql_generator_returns_clean_sql_and_records_reported_tokens() -> None:
    fenced_sql = f"```sql\n{GOOD_SQL};\n```"
    usage = {"input_tokens": 812, "output_tokens": 64, "total_tokens": 876}
    model, recorder = fake(
        answer({"sql": fenced_sql, "explanation": "max close on that day"}, usage_metadata=usage)
    )
    calls: list[LlmCall] = []

    result = SqlGeneratorRole(model).generate(
        QUESTION,
        SCHEMA,
        evidence=["上交所 → exchange = 'SSE'"],
        examples=[("2025年9月5日收盘价最高的股票", "SELECT ts_code FROM market.daily LIMIT 1")],
        guidance="the exchange filter is missing",
        calls=calls,
    )

    assert result == GeneratedSql(sql=GOOD_SQL, explanation="max close on that day")
    assert calls == [
        LlmCall("sql_generator", "generic-fake-chat-model", calls[0].latency_ms, 812, 64, 876, attempt=1)
    ]
    prompt = recorder.prompts[0]
    for expected in (
        SCHEMA,
        QUESTION,
        "exchange = 'SSE'",
        "2025年9月5日收盘价最高的股票",
        "exchange filter is missing",
    ):
        assert expected in prompt
    assert '"sql"' in prompt  # the JSON contract travels in the prompt for models without tools


def test_token_counts_come_from_token_usage_metadata_or_stay_none() -> None:
    reported = answer(
        {"sql": GOOD_SQL}, response_metadata={"token_usage": {"prompt_tokens": 5, "completion_tokens": 2}}
    )
    model, _ = fake(reported, answer({"sql": GOOD_SQL}))
    role = SqlGeneratorRole(model)
    calls: list[LlmCall] = []
    role.generate(QUESTION, SCHEMA, calls=calls)
    role.generate(QUESTION, SCHEMA, calls=calls)
    assert [(c.prompt_tokens, c.completion_tokens, c.total_tokens) for c in calls] == [
        (5, 2, None),
        (None,) * 3,
    ]


def test_malformed_output_is_fed_back_and_retried() -> None:
    model, recorder = fake("I think the answer is the close price.", answer({"sql": GOOD_SQL}))
    calls: list[LlmCall] = []
    result = SqlGeneratorRole(model).generate(QUESTION, SCHEMA, calls=calls)
    assert result.sql == GOOD_SQL
    assert [call.attempt for call in calls] == [1, 2]
    assert calls[0].error is not None and "not a JSON object" in calls[0].error
    assert calls[1].error is None
    assert "I think the answer is the close price." in recorder.prompts[1]
    assert "It was rejected: the answer is not a JSON object" in recorder.prompts[1]


def test_output_that_stays_malformed_ends_in_a_clear_error_naming_role_and_problem() -> None:
    model = FakeMessagesListChatModel(responses=[AIMessage(content='{"query": "SELECT 1"}')])
    calls: list[LlmCall] = []
    with pytest.raises(LlmOutputError) as raised:
        SqlGeneratorRole(model, max_retries=2).generate(QUESTION, SCHEMA, calls=calls)
    message = str(raised.value)
    assert "sql_generator" in message and "3 time(s)" in message and "sql: Field required" in message
    assert [call.attempt for call in calls] == [1, 2, 3]
    assert all(call.error for call in calls)


@pytest.mark.parametrize(
    ("bad_sql", "reason"),
    [
        ("DELETE FROM market.daily WHERE 1", "only SELECT/WITH"),
        ("SELECT 1; DROP TABLE market.daily", "exactly one statement"),
        ("", "empty SQL"),
    ],
)
def test_sql_refused_by_the_guard_is_retried_with_the_reason(bad_sql: str, reason: str) -> None:
    model, recorder = fake(answer({"sql": bad_sql}), answer({"sql": GOOD_SQL}))
    calls: list[LlmCall] = []
    assert SqlGeneratorRole(model).generate(QUESTION, SCHEMA, calls=calls).sql == GOOD_SQL
    assert calls[0].error is not None and reason in calls[0].error
    assert reason in recorder.prompts[1]


def test_sql_refused_every_time_raises_after_the_allowed_retries() -> None:
    model = FakeMessagesListChatModel(responses=[answer({"sql": "DROP TABLE market.daily"})])
    calls: list[LlmCall] = []
    with pytest.raises(LlmOutputError, match=r"sql_generator.*the SQL is refused"):
        SqlGeneratorRole(model, max_retries=1).generate(QUESTION, SCHEMA, calls=calls)
    assert len(calls) == 2


def test_a_tool_call_message_is_read_before_the_text() -> None:
    message = AIMessage(
        content="here you go",
        tool_calls=[{"name": "GeneratedSql", "args": {"sql": GOOD_SQL}, "id": "call_1", "type": "tool_call"}],
    )
    model, _ = fake(message)
    assert SqlGeneratorRole(model).generate(QUESTION, SCHEMA).sql == GOOD_SQL


def test_qst_parser_returns_a_tree_the_qst_module_accepts_and_prompts_with_its_format() -> None:
    model, recorder = fake(answer({"qst": EXAMPLE_QST}))
    tree = QstParserRole(model).parse(QUESTION, SCHEMA, examples=[("收盘价最高的股票", EXAMPLE_QST)])
    assert tree == EXAMPLE_QST
    assert qst_to_screen(tree).limit == 1
    prompt = recorder.prompts[0]
    assert "收盘价最高的股票" in prompt and '"label": "select"' in prompt
    for vocabulary in (
        "condition:compare",
        "ma_cross_above",
        "fundamental:growth_streak",
        "pct_chg",
    ):
        assert vocabulary in prompt


def test_qst_parser_retries_a_tree_the_qst_module_rejects_then_gives_up() -> None:
    unlabelled_child = {"label": "select", "children": [{"children": []}]}
    model, recorder = fake(answer({"qst": unlabelled_child}), answer({"qst": EXAMPLE_QST}))
    calls: list[LlmCall] = []
    assert QstParserRole(model).parse(QUESTION, SCHEMA, calls=calls) == EXAMPLE_QST
    assert calls[0].error is not None and "the QST is invalid: node without a label" in calls[0].error
    assert "node without a label" in recorder.prompts[1]

    wrong_root = FakeMessagesListChatModel(responses=[answer({"qst": {"label": "SELECT", "children": []}})])
    with pytest.raises(LlmOutputError, match=r"qst_parser.*root of a QST must be the select node"):
        QstParserRole(wrong_root, max_retries=0).parse(QUESTION, SCHEMA)


def test_qst_parser_uses_the_validator_and_format_it_is_given() -> None:
    def only_small_trees(tree: dict[str, Any]) -> dict[str, Any]:
        if len(tree["children"]) > 2:
            raise ValueError("too many children")
        return tree

    model = FakeMessagesListChatModel(responses=[answer({"qst": EXAMPLE_QST})])
    recorder = PromptRecorder()
    model.callbacks = [recorder]
    with pytest.raises(LlmOutputError, match="too many children"):
        QstParserRole(model, max_retries=0, validate=only_small_trees, format_description="tiny trees").parse(
            QUESTION, SCHEMA
        )
    assert "QST format:\ntiny trees" in recorder.prompts[0]


def test_the_worked_example_in_the_format_description_is_a_valid_qst() -> None:
    assert validate_qst(EXAMPLE_QST) == EXAMPLE_QST
    assert EXAMPLE_QUESTION in describe_qst_format()


def test_paradigm_adapter_adapts_sql_and_its_prompt_carries_the_paradigm() -> None:
    paradigm_sql = GOOD_SQL.replace("2025-09-08", "2025-09-05")
    model, recorder = fake(answer({"sql": f"```\n{GOOD_SQL}\n```"}))
    sql = ParadigmAdapterRole(model).adapt(
        QUESTION, "2025年9月5日收盘价最高的股票", paradigm_sql, ["value: 2025-09-05 → 2025-09-08"], SCHEMA
    )
    assert sql == GOOD_SQL
    prompt = recorder.prompts[0]
    assert paradigm_sql in prompt and "2025-09-05 → 2025-09-08" in prompt and SCHEMA in prompt


def test_paradigm_adapter_refuses_sql_that_writes() -> None:
    model = FakeMessagesListChatModel(responses=[answer({"sql": "INSERT INTO market.daily SELECT * FROM x"})])
    with pytest.raises(LlmOutputError, match="paradigm_adapter"):
        ParadigmAdapterRole(model, max_retries=0).adapt(QUESTION, "q", GOOD_SQL, "none")


REVERSE = {
    "questions": [
        {
            "question": "Which of these stocks are not listed on SSE?",
            "point": "entity_mapping",
            "sql": "SELECT ts_code FROM market.stock_basic WHERE ts_code = '600519.SH' AND exchange != 'SSE'",
            "criterion": "no_rows",
        },
        {
            "question": "Which SSE stock had the highest close on 2025-09-08?",
            "point": "top_k",
            "sql": GOOD_SQL,
            "criterion": "same_stocks",
        },
    ]
}


def test_reverse_question_writer_returns_checks_with_their_sql_and_criterion() -> None:
    preview = format_result_preview(["ts_code", "close"], [("600519.SH", 1500.0)])
    model, recorder = fake(answer(REVERSE))
    questions = ReverseQuestionWriterRole(model).write(
        QUESTION, GOOD_SQL, preview, ["exchange = SSE", "top 1"], schema_text=SCHEMA, database="market"
    )
    assert [(q.point, q.criterion, q.sql) for q in questions] == [
        ("entity_mapping", "no_rows", REVERSE["questions"][0]["sql"]),
        ("top_k", "same_stocks", GOOD_SQL),
    ]
    prompt = recorder.prompts[0]
    assert "600519.SH | 1500.0" in prompt and "- exchange = SSE" in prompt and SCHEMA in prompt
    assert GOOD_SQL in prompt and QUESTION in prompt
    assert "Allowed criteria here: no_rows, row_count, same_value, same_stocks, stocks_in_answer." in prompt


def reverse_with(**changes: str) -> dict[str, Any]:
    return {"questions": [{**REVERSE["questions"][0], **changes}]}


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ({"questions": []}, "questions: List should have at least 1 item"),
        ({"questions": [REVERSE["questions"][0], REVERSE["questions"][0]]}, "appears twice"),
        (reverse_with(sql="  "), "sql: Value error, must not be empty"),
        (reverse_with(criterion="always_pass"), "criterion"),
        (reverse_with(criterion="judge"), "criterion 'judge' is not one of"),  # no judge configured
        (reverse_with(point="verdict"), "point"),
        (reverse_with(sql="DELETE FROM market.daily WHERE 1"), "question 1: the SQL is refused"),
        (reverse_with(sql="SELECT name FROM system.tables"), "internal database system"),
        (reverse_with(sql="SELECT * FROM crm.clients"), "crm.clients, which is not a market table"),
    ],
)
def test_reverse_question_writer_rejects_unusable_sets(payload: dict[str, Any], problem: str) -> None:
    model = FakeMessagesListChatModel(responses=[answer(payload)])
    with pytest.raises(LlmOutputError) as raised:
        ReverseQuestionWriterRole(model, max_retries=0).write(
            QUESTION, GOOD_SQL, "(no rows)", [], database="market"
        )
    assert "reverse_question_writer" in str(raised.value) and problem in str(raised.value)


def test_judge_decides_one_check_from_the_two_results_and_a_failing_verdict_needs_a_reason() -> None:
    model, recorder = fake(
        answer({"ok": False, "reason": ""}), answer({"ok": False, "reason": "no exchange filter"})
    )
    calls: list[LlmCall] = []
    verdict = JudgeRole(model).judge(
        QUESTION, "Which of these are not on SSE?", "SELECT 1", "ts_code\n600519.SH", "(no rows)", calls=calls
    )
    assert "Which of these are not on SSE?" in recorder.prompts[0] and "600519.SH" in recorder.prompts[0]
    assert (verdict.ok, verdict.reason) == (False, "no exchange filter")
    assert calls[0].error is not None and "reason" in calls[0].error


def test_result_preview_is_truncated_and_says_how_many_rows_there_are() -> None:
    preview = format_result_preview(["ts_code"], [(f"{i:06d}.SZ",) for i in range(25)], limit=3)
    assert preview.splitlines() == [
        "ts_code",
        "000000.SZ",
        "000001.SZ",
        "000002.SZ",
        "… 22 more row(s), 25 in total",
    ]
    assert format_result_preview(["a", "b"], [(None, 1)]) == "a | b\nNULL | 1"
