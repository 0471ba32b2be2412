"""The ask API end to end on a chdb demo store: built-in engine, an LLM endpoint, and every failure."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from rest_framework.test import APIClient

from backend.apps.screening.models import PipelineRun
from backend.apps.screening.selectors import run_events
from backend.domain.language.llm import LlmSettings
from backend.domain.market.store import MarketStore
from tests.language.llm.openai_stub import OpenAiStub, Reply

pytestmark = [
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
    pytest.mark.django_db,  # every answer is recorded as a pipeline run
]

ANSWER_KEYS = {
    "question",
    "status",
    "message",
    "sql",
    "qst",
    "columns",
    "column_types",
    "rows",
    "row_count",
    "warnings",
    "timings_ms",
    "llm_calls",
    "engine",
    "initial_sql",
    "checks",
    "rounds",
    "correction_round",
    "trace",
    "run_id",
    "paradigms",
}


def ask(api: APIClient, question: object) -> tuple[int, dict]:
    response = api.post("/api/ask/", {"question": question}, format="json")
    assert response["Content-Type"] == "application/json"
    return response.status_code, response.json()


def test_a_seed_question_is_answered_with_sql_qst_and_the_rows_of_that_sql(
    api: APIClient, demo_store: MarketStore
) -> None:
    status, body = ask(api, "  2025年9月8日收盘价最高的上交所股票 ")

    assert status == 200
    assert set(body) == ANSWER_KEYS
    assert (body["status"], body["engine"], body["question"]) == (
        "verified",
        "builtin",
        "2025年9月8日收盘价最高的上交所股票",
    )
    assert body["initial_sql"] == body["sql"] and body["correction_round"] is None
    assert body["checks"] and all(check["verdict"] == "pass" for check in body["checks"])
    assert {check["kind"] for check in body["checks"]} >= {"syntax", "execution", "top_k", "scope"}
    assert body["trace"][0]["type"] == "run_started" and body["trace"][-1]["status"] == "verified"
    run = PipelineRun.objects.get(id=body["run_id"])
    assert (run.status, run.final_sql) == ("verified", body["sql"])
    assert [event["seq"] for event in run_events(run.id)] == [event["seq"] for event in body["trace"]]
    assert body["qst"] and body["llm_calls"] == []
    assert "2025-09-08" in body["sql"] and "SSE" in body["sql"]
    direct = demo_store.query(body["sql"])
    assert body["columns"] == direct.columns
    assert body["row_count"] == len(direct.rows) == 1
    assert {"context", "execute", "total"} <= set(body["timings_ms"])


def test_an_english_question_is_answered_too(api: APIClient, demo_store: MarketStore) -> None:
    status, body = ask(api, "PE below 15")

    assert status == 200
    assert body["status"] == "verified"
    assert any(check["kind"] == "missing" and check["sql"] for check in body["checks"])
    pe_column = body["columns"].index("pe")
    assert body["rows"] and all(0 < row[pe_column] < 15 for row in body["rows"])


def test_an_unmappable_question_says_what_it_could_not_map_and_runs_nothing(
    api: APIClient, demo_store: MarketStore
) -> None:
    status, body = ask(api, "what is the phase of the moon")

    assert status == 200
    assert body["status"] == "not_understood"
    assert "moon" in body["message"]
    assert body["sql"] is None and body["rows"] == [] and "execute" not in body["timings_ms"]


@pytest.mark.parametrize(
    ("question", "reason"),
    [("", "blank"), ("   ", "blank"), (None, "null"), ("股" * 2001, "2000 characters")],
)
def test_empty_or_too_long_questions_are_refused_with_a_clear_message(
    api: APIClient, question: object, reason: str
) -> None:
    status, body = ask(api, question)

    assert status == 400
    assert body["error"]["code"] == "invalid_request"
    assert reason in body["error"]["message"]


def test_a_missing_question_field_is_a_400(api: APIClient) -> None:
    response = api.post("/api/ask/", {}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["field_errors"] == {"question": ["This field is required."]}


def test_an_unreachable_store_is_a_503_with_the_answer_shape(
    api: APIClient, django_store_with: Callable[..., None]
) -> None:
    django_store_with(CLICKHOUSE_URL="clickhouse://default:@127.0.0.1:9")

    status, body = ask(api, "PE below 15")

    assert status == 503
    assert body["status"] == "store_unavailable"
    assert body["error"]["code"] == "store_unavailable"
    # Says what happened, never where the server is (no host, port or URL in what users read).
    assert "cannot be reached" in body["message"]
    assert "127.0.0.1" not in body["message"] and ":9" not in body["message"]


@pytest.fixture
def llm_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAiStub]:
    """LLM_PROVIDER=openai against a loopback OpenAI-compatible server (the real client talks HTTP)."""
    from django.conf import settings

    stub = OpenAiStub().start()
    llm_settings = LlmSettings.from_mapping(
        {
            "LLM_PROVIDER": "openai",
            "LLM_BASE_URL": stub.base_url,
            "LLM_MODEL": "sql-model",
            "LLM_API_KEY": "sk-test",
            "LLM_MAX_RETRIES": "0",
        }
    )
    monkeypatch.setattr(settings, "LLM_SETTINGS", llm_settings)
    monkeypatch.setattr(settings, "LLM_PROVIDER", llm_settings.provider)
    yield stub
    stub.stop()


def test_an_llm_answer_is_run_through_the_guard_and_reports_its_calls(
    api: APIClient, demo_store: MarketStore, llm_endpoint: OpenAiStub
) -> None:
    sql = "SELECT ts_code, name FROM market.stock_basic WHERE exchange = 'SSE' ORDER BY ts_code LIMIT 3"
    llm_endpoint.replies = [Reply(tool_args={"sql": sql, "explanation": "three SSE stocks"})]

    status, body = ask(api, "three Shanghai stocks picked at random")

    assert status == 200
    assert (body["engine"], body["sql"]) == ("llm", sql)
    # which engine wrote it, and why the built-in one could not
    [note] = [w for w in body["warnings"] if "LLM generator wrote the SQL" in w]
    assert "could not map: 'picked', 'random'" in note
    [generate] = [e for e in body["trace"] if e["type"] == "step_finished" and e["step"] == "generate"]
    assert note in generate["summary"] and generate["sql"] == sql
    assert body["status"] in {"verified", "unverified"}
    assert body["rows"] == [list(row) for row in demo_store.query(sql).rows]
    [call] = body["llm_calls"]
    assert (call["model"], call["prompt_tokens"], call["completion_tokens"]) == ("sql-model", 120, 30)
    assert "three Shanghai stocks picked at random" in llm_endpoint.requests[-1].text


def test_the_builtin_engine_answers_first_and_the_llm_is_not_called(
    api: APIClient, demo_store: MarketStore, llm_endpoint: OpenAiStub
) -> None:
    status, body = ask(api, "three Shanghai stocks")

    assert status == 200
    assert body["engine"] == "builtin" and body["llm_calls"] == []
    assert llm_endpoint.requests == []


def test_a_failing_llm_leaves_the_builtin_refusal_with_a_line_on_the_failure(
    api: APIClient, demo_store: MarketStore, llm_endpoint: OpenAiStub
) -> None:
    llm_endpoint.replies = [Reply(status=500, error={"message": "model crashed", "type": "server_error"})]

    status, body = ask(api, "three Shanghai stocks picked at random")

    assert status == 200
    assert (body["status"], body["sql"], body["rows"]) == ("not_understood", None, [])
    assert "could not map: 'picked', 'random'" in body["message"]
    assert "the LLM generator could not answer either" in body["message"] and "HTTP 500" in body["message"]


def test_llm_sql_that_clickhouse_refuses_comes_back_as_a_query_failure(
    api: APIClient, demo_store: MarketStore, llm_endpoint: OpenAiStub
) -> None:
    sql = "SELECT no_such_column FROM market.daily"
    llm_endpoint.replies = [Reply(tool_args={"sql": sql, "explanation": "?"})]

    status, body = ask(api, "something odd")

    assert status == 200
    assert (body["status"], body["sql"], body["rows"]) == ("query_failed", sql, [])
    assert "no_such_column" in body["message"]


def test_hostile_llm_sql_never_runs(
    api: APIClient, demo_store: MarketStore, llm_endpoint: OpenAiStub
) -> None:
    llm_endpoint.replies = [Reply(tool_args={"sql": "SELECT 1; DROP TABLE market.daily", "explanation": "x"})]
    rows_before = demo_store.internal_query("SELECT count() FROM market.daily").rows[0][0]

    status, body = ask(api, "drop everything")

    assert status == 200
    # the built-in engine's refusal stands, with a line on the LLM's refused SQL
    assert body["status"] == "not_understood" and body["sql"] is None
    assert "could not map: 'everything'" in body["message"] and "the SQL is refused" in body["message"]
    assert body["rows"] == []
    assert demo_store.internal_query("SELECT count() FROM market.daily").rows[0][0] == rows_before


def test_the_reverse_question_writer_adds_checks_when_it_has_settings_of_its_own(
    api: APIClient, demo_store: MarketStore, llm_endpoint: OpenAiStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.conf import settings

    llm_settings = LlmSettings.from_mapping(
        {
            "LLM_PROVIDER": "openai",
            "LLM_BASE_URL": llm_endpoint.base_url,
            "LLM_MODEL": "sql-model",
            "LLM_API_KEY": "sk-test",
            "LLM_MAX_RETRIES": "0",
            "LLM_REVERSE_QUESTION_WRITER_MODEL": "checker",
        }
    )
    monkeypatch.setattr(settings, "LLM_SETTINGS", llm_settings)
    latest = "(SELECT max(trade_date) FROM market.daily)"
    reverse_sql = (
        f"SELECT ts_code FROM market.daily_basic WHERE trade_date = {latest} AND total_mv > 10000000"
    )
    llm_endpoint.replies = [
        Reply(
            tool_args={
                "questions": [
                    {
                        "question": "哪些股票总市值超过1000亿？",
                        "point": "condition",
                        "sql": reverse_sql,
                        "criterion": "stocks_in_answer",
                    }
                ]
            }
        )
    ]

    status, body = ask(api, "总市值超过1000亿的股票")

    assert status == 200 and body["engine"] == "builtin"
    [writer_request] = llm_endpoint.requests
    assert writer_request.body["model"] == "checker" and "总市值超过1000亿的股票" in writer_request.text
    [llm_check] = [check for check in body["checks"] if check["id"].startswith("llm-")]
    assert (llm_check["sql"], llm_check["verdict"]) == (reverse_sql, "pass")
    assert [call["role"] for call in body["llm_calls"]] == ["reverse_question_writer"]
    assert body["status"] == "verified"


def validate(api: APIClient, payload: dict[str, object]) -> tuple[int, dict]:
    response = api.post("/api/validate/", payload, format="json")
    return response.status_code, response.json()


WRONG_UNIT = (
    "SELECT ts_code FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 100000000000"
)


def test_a_wrong_candidate_is_flagged_and_never_verified(api: APIClient, demo_store: MarketStore) -> None:
    status, body = validate(api, {"question": "总市值超过1000亿的股票", "sql": WRONG_UNIT, "correct": False})

    assert status == 200
    assert (body["status"], body["initial_sql"], body["sql"]) == ("unverified", WRONG_UNIT, WRONG_UNIT)
    failed = [check for check in body["checks"] if check["verdict"] == "fail"]
    assert {check["attribution"] for check in failed} >= {"unit"}
    # the failed checks have their own warning; an empty answer adds an undecided one beside it
    assert any("未通过验证" in warning for warning in body["warnings"])
    assert body["rows"] == [list(row) for row in demo_store.query(WRONG_UNIT).rows]


def test_a_wrong_candidate_is_corrected_by_the_engine(api: APIClient, demo_store: MarketStore) -> None:
    status, body = validate(api, {"question": "总市值超过1000亿的股票", "sql": WRONG_UNIT})

    assert status == 200
    assert (body["status"], body["correction_round"]) == ("corrected", 1)
    assert body["sql"] != WRONG_UNIT and [item["round"] for item in body["rounds"]] == [0, 1]


def test_validate_needs_a_candidate(api: APIClient) -> None:
    status, body = validate(api, {"question": "总市值超过1000亿的股票"})

    assert status == 400
    assert "sql" in body["error"]["field_errors"]
