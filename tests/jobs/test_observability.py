"""Observability of a job: /metrics counts what its events say, every log line written while it runs
is one JSON object naming the job, and readiness checks the model endpoints when LLM roles are on."""

from __future__ import annotations

import io
import json
import logging
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from backend.apps.jobs import services
from backend.apps.jobs.models import JobEvent
from backend.apps.web.health import readiness
from backend.apps.web.logs import LogContextFilter
from backend.apps.web.metrics import observe_llm_calls
from backend.domain.language.llm.settings import LlmSettings
from backend.domain.language.translation import LlmCall
from backend.domain.market.store import MarketStore
from tests.jobs.conftest import SEED_QUESTION, Person

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape() -> Samples:
    response = Client().get("/metrics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def grew(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """What the configured console handler writes during the test, at DEBUG."""
    [console] = [
        handler
        for handler in logging.getLogger().handlers
        if any(isinstance(item, LogContextFilter) for item in handler.filters)
    ]
    assert isinstance(console, logging.StreamHandler)
    root = logging.getLogger()
    captured = io.StringIO()
    previous_stream, previous_level = console.setStream(captured), root.level
    root.setLevel(logging.DEBUG)
    yield captured
    root.setLevel(previous_level)
    console.setStream(previous_stream)


def test_metrics_count_a_jobs_steps_verdicts_paradigm_and_end(
    demo_store: MarketStore, alice: Person, held_jobs: list[int]
) -> None:
    before = scrape()
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]
    services.run_job(job_id)
    after = scrape()

    events = list(JobEvent.objects.filter(job_id=job_id).values_list("payload", flat=True))
    steps = [event for event in events if event["type"] == "step_finished"]
    verdicts = [event for event in events if event["type"] == "check_verdict"]
    paradigms = [event for event in events if event["type"] == "paradigm" and event["outcome"] != "learned"]
    [paradigm] = [event for event in paradigms if event["query"] == "question"]
    reverse = [event for event in paradigms if event["query"] != "question"]
    assert steps and verdicts
    assert grew(before, after, "veriscreen_jobs_submitted_total") == 1
    assert grew(before, after, "veriscreen_jobs_finished_total", status="done", error_code="") == 1
    assert grew(before, after, "veriscreen_pipeline_runs_total", status="verified") == 1
    for step in {(event["step"], event["outcome"]) for event in steps}:
        count = sum((event["step"], event["outcome"]) == step for event in steps)
        labels = {"step": step[0], "outcome": step[1]}
        assert grew(before, after, "veriscreen_pipeline_step_seconds_count", **labels) == count
        assert grew(before, after, "veriscreen_pipeline_step_seconds_bucket", le="+Inf", **labels) == count
    passed = sum(event["verdict"] == "pass" for event in verdicts if event["stage"] == "reverse")
    assert (
        grew(before, after, "veriscreen_validation_verdicts_total", stage="reverse", verdict="pass") == passed
    )
    lookups = "veriscreen_paradigm_lookups_total"
    assert grew(before, after, lookups, outcome=paradigm["outcome"], query="question") >= 1
    for outcome in {event["outcome"] for event in reverse}:
        assert grew(before, after, lookups, outcome=outcome, query="reverse") == sum(
            event["outcome"] == outcome for event in reverse
        )
    assert after[("veriscreen_jobs_running", ())] == 0
    # The job's queries went through the admission queue, and none is left in it.
    assert grew(before, after, "veriscreen_query_admission_wait_seconds_count") >= 1
    assert after[("veriscreen_query_admission_waiting", ())] == 0


def test_every_line_logged_while_a_job_runs_is_json_naming_the_job(
    demo_store: MarketStore, alice: Person, held_jobs: list[int], json_log: io.StringIO
) -> None:
    job_id = alice.client.post("/api/jobs/", {"question": SEED_QUESTION}, format="json").json()["id"]
    json_log.truncate(0)
    json_log.seek(0)

    services.run_job(job_id)

    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    assert {line["job_id"] for line in lines} == {job_id}, [
        line for line in lines if line["job_id"] != job_id
    ]
    messages = [line["message"] for line in lines]
    assert f"job {job_id} started on {services.this_worker()}" in messages
    assert any(message.startswith(f"job {job_id} done in ") for message in messages)
    # Lines come from the job's own threads too (event writer, heartbeat, parallel checks), not only
    # from the thread that ran it.
    assert len({line["thread"] for line in lines}) > 1
    assert all(line["request_id"] is None and line["level"] in {"DEBUG", "INFO"} for line in lines)


class _ModelsHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        authorised = self.headers.get("Authorization") == "Bearer key-ok"
        status = 200 if self.path == "/v1/models" and authorised else 401
        body = json.dumps({"object": "list", "data": [{"id": "stub-model", "object": "model"}]}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def models_endpoint() -> Iterator[str]:
    """A loopback OpenAI-compatible /v1/models that wants the key `key-ok`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ModelsHandler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_readiness_checks_each_model_endpoint_in_use(
    models_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        settings,
        "LLM_SETTINGS",
        LlmSettings.from_mapping(
            {
                "LLM_PROVIDER": "openai",
                "LLM_MODEL": "stub-model",
                "LLM_BASE_URL": models_endpoint,
                "LLM_API_KEY": "key-ok",
                "LLM_JUDGE_API_KEY": "key-refused",
                "LLM_QST_PARSER_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",
            }
        ),
    )

    checks = {check.name: check for check in readiness() if check.name.startswith("llm:")}

    assert set(checks) == {
        "llm:sql_generator,paradigm_adapter,reverse_question_writer",
        "llm:qst_parser",
        "llm:judge",
    }
    assert checks["llm:sql_generator,paradigm_adapter,reverse_question_writer"].state == "ok"
    assert checks["llm:judge"].state == "failed" and "HTTP 401" in checks["llm:judge"].detail
    assert checks["llm:qst_parser"].state == "failed" and "ConnectError" in checks["llm:qst_parser"].detail
    assert "key-" not in json.dumps([check.detail for check in checks.values()])
    response = Client().get("/api/health/ready/")
    assert response.status_code == 503
    assert {check["name"] for check in response.json()["checks"] if check["state"] == "failed"} == {
        "llm:qst_parser",
        "llm:judge",
    }


def test_readiness_has_no_model_check_with_the_builtin_engine() -> None:
    assert not settings.LLM_SETTINGS.uses_llm
    assert [check.name for check in readiness()] == ["orm", "channel_layer", "broker", "clickhouse"]


def test_llm_calls_are_counted_by_role_and_outcome_with_their_latency() -> None:
    before = scrape()
    observe_llm_calls(
        [
            LlmCall(role="sql_generator", model="m", latency_ms=120.0).to_dict(),
            LlmCall(
                role="sql_generator", model="m", latency_ms=3000.0, attempt=2, error="timed out"
            ).to_dict(),
            LlmCall(role="judge", model="m", latency_ms=40.0).to_dict(),
        ]
    )
    after = scrape()

    assert grew(before, after, "veriscreen_llm_calls_total", role="sql_generator", outcome="ok") == 1
    assert grew(before, after, "veriscreen_llm_calls_total", role="sql_generator", outcome="error") == 1
    assert grew(before, after, "veriscreen_llm_calls_total", role="judge", outcome="ok") == 1
    assert grew(before, after, "veriscreen_llm_call_seconds_sum", role="sql_generator") == pytest.approx(3.12)
    assert grew(before, after, "veriscreen_llm_call_seconds_bucket", role="judge", le="0.05") == 1
