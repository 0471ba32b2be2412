"""Every error is a JSON body `{error: {code, message}}` that leaks nothing: hostile bodies and WebSocket
upgrades on the real ASGI application, server errors and their log line, an unreachable ORM database."""

from __future__ import annotations

import asyncio
import http.client
import io
import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.conf import settings
from django.test import Client

from backend.apps.web.logs import LogContextFilter
from backend.apps.web.request_id import RESPONSE_HEADER
from backend.project.asgi import application
from tests.live_server import load_demo, running_server
from tests.web.failing_urls import SECRET_IN_EXCEPTION

pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")

REPO = Path(__file__).resolve().parents[2]
TEN_MEGABYTES = 10 * 1024 * 1024


def asgi_request(
    method: str, path: str, body: bytes = b"", headers: Sequence[tuple[bytes, bytes]] = ()
) -> tuple[int, dict[str, str], bytes]:
    """One request through backend.project.asgi.application, as daphne hands it over."""
    sent_headers = [(b"host", b"127.0.0.1"), (b"content-length", str(len(body)).encode()), *headers]

    async def send() -> dict[str, Any]:
        communicator = HttpCommunicator(application, method, path, body=body, headers=sent_headers)
        return await communicator.get_response(timeout=60)

    response = asyncio.run(send())
    response_headers = {name.decode().lower(): value.decode() for name, value in response["headers"]}
    return response["status"], response_headers, response["body"]


def json_error(headers: dict[str, str], body: bytes) -> dict[str, Any]:
    assert headers["content-type"] == "application/json", body[:200]
    error = json.loads(body)["error"]
    assert set(error) >= {"code", "message"}
    return error


@pytest.mark.parametrize("path", ["/api/sql/", "/api/ask/"])
def test_a_deeply_nested_json_body_is_a_json_400(path: str) -> None:
    nested = b"[" * 100_000 + b"]" * 100_000

    status, headers, body = asgi_request("POST", path, nested, [(b"content-type", b"application/json")])

    assert status == 400
    error = json_error(headers, body)
    assert error["code"] == "parse_error"
    assert "nested too deeply" in error["message"]


def test_a_ten_megabyte_body_is_a_json_413() -> None:
    body = json.dumps({"sql": "SELECT 1", "padding": "x" * TEN_MEGABYTES}).encode()

    status, response_headers, response_body = asgi_request(
        "POST", "/api/sql/", body, [(b"content-type", b"application/json")]
    )

    assert status == 413
    error = json_error(response_headers, response_body)
    assert error["code"] == "request_too_large"
    assert "1,048,576 bytes" in error["message"] and "API_MAX_BODY_BYTES" in error["message"]


def test_the_body_limit_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "DATA_UPLOAD_MAX_MEMORY_SIZE", 1000)
    client = Client()

    small = client.post("/api/sql/", {"sql": "x" * 900}, content_type="application/json")
    large = client.post("/api/sql/", {"sql": "x" * 1100}, content_type="application/json")

    assert small.json()["error"]["code"] != "request_too_large"
    assert large.status_code == 413
    assert "1,000 bytes" in large.json()["error"]["message"]


def test_api_max_body_bytes_sets_the_limit() -> None:
    script = "from django.conf import settings; print(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "backend.project.settings", "API_MAX_BODY_BYTES": "2048"}
    shown = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert shown.stdout.strip() == "2048"


def post_to(port: int, path: str, body: bytes) -> tuple[int, str, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), json.loads(response.read())
    finally:
        connection.close()


def websocket_handshake_status(port: int, path: str) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        return connection.recv(4096).decode("latin-1").split("\r\n", 1)[0]


def test_the_real_server_answers_hostile_requests_cleanly_and_logs_no_traceback(tmp_path: Path) -> None:
    load_demo(tmp_path, stocks=24)
    with running_server(tmp_path) as server:
        nested = post_to(server.port, "/api/sql/", b"[" * 100_000 + b"]" * 100_000)
        huge = post_to(server.port, "/api/ask/", b'{"question": "' + b"x" * TEN_MEGABYTES + b'"}')
        handshakes = [websocket_handshake_status(server.port, path) for path in ("/ws/", "/api/sql/")]

    assert nested[:2] == (400, "application/json") and nested[2]["error"]["code"] == "parse_error"
    assert huge[:2] == (413, "application/json") and huge[2]["error"]["code"] == "request_too_large"
    assert handshakes == ["HTTP/1.1 403 Access denied"] * 2
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log and "ERROR" not in log, log[-3000:]


@pytest.mark.parametrize("path", ["/", "/ws/", "/api/sql/", "/no/such/stream/"])
def test_a_websocket_upgrade_on_a_path_without_a_route_is_refused_cleanly(
    path: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def connect() -> tuple[bool, int | str | None]:
        communicator = WebsocketCommunicator(application, path)
        connected, code = await communicator.connect(timeout=10)
        await communicator.wait()
        return connected, code

    with caplog.at_level(logging.WARNING):
        connected, _code = asyncio.run(connect())

    assert connected is False  # closed before accept: daphne answers the handshake with HTTP 403
    assert caplog.records == []


def test_errors_are_json_even_when_the_client_asks_for_html() -> None:
    response = Client().post(
        "/api/sql/", "{not json", content_type="application/json", headers={"Accept": "text/html"}
    )

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "parse_error"


def test_a_wrong_method_is_a_json_405_that_keeps_its_allow_header() -> None:
    response = Client().get("/api/sql/")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert "POST" in response["Allow"]


def test_a_wrong_media_type_is_a_json_415() -> None:
    response = Client().post("/api/sql/", "SELECT 1", content_type="text/plain")

    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_an_unknown_api_path_is_a_json_404() -> None:
    response = Client().get("/api/no-such-endpoint/")

    assert response.status_code == 404
    assert response.json()["error"] == {
        "code": "not_found",
        "message": "no API endpoint at /api/no-such-endpoint/",
    }


def test_a_request_django_refuses_on_an_api_path_is_a_json_400() -> None:
    response = Client(headers={"Host": "evil.example"}).get("/api/market/stats/")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"
    assert "evil.example" not in response.content.decode()


@pytest.fixture
def server_log() -> Iterator[io.StringIO]:
    """What the configured console handler (the server log) writes during the test."""
    [console] = [
        handler
        for handler in logging.getLogger().handlers
        if any(isinstance(item, LogContextFilter) for item in handler.filters)
    ]
    assert isinstance(console, logging.StreamHandler)
    captured = io.StringIO()
    previous = console.setStream(captured)
    yield captured
    console.setStream(previous)


@pytest.mark.urls("tests.web.failing_urls")
@pytest.mark.parametrize("path", ["/api/failing/drf/", "/api/failing/django/"])
def test_an_exception_under_api_is_a_json_500_logged_once_with_its_request_id(
    path: str, server_log: io.StringIO
) -> None:
    body_marker = "body-marker-7d1f"
    response = Client(raise_request_exception=False).post(
        path, {"sql": f"SELECT '{body_marker}'"}, content_type="application/json"
    )

    assert response.status_code == 500
    request_id = response[RESPONSE_HEADER]
    assert response.json()["error"] == {
        "code": "server_error",
        "message": "the server failed to answer this request; quote the request id when reporting it",
        "request_id": request_id,
    }
    log = server_log.getvalue()
    lines = [json.loads(line) for line in log.splitlines()]  # every line is one JSON object
    assert log.count("Traceback (most recent call last)") == 1
    [logged] = [line for line in lines if line["request_id"] == request_id]
    assert (logged["level"], logged["logger"], logged["message"]) == (
        "ERROR",
        "django.request",
        f"Internal Server Error: {path}",
    )
    assert "Traceback (most recent call last)" in logged["exc"] and logged["job_id"] is None
    assert body_marker not in log


@pytest.mark.urls("tests.web.failing_urls")
def test_a_market_error_no_view_catches_keeps_its_status_code_and_retry_after() -> None:
    response = Client().get("/api/failing/busy/")

    assert response.status_code == 503
    assert response["Retry-After"] == "3"
    assert response.json()["error"]["code"] == "store_busy"


@pytest.mark.urls("tests.web.failing_urls")
def test_permission_denied_outside_drf_is_a_json_403() -> None:
    response = Client().get("/api/failing/forbidden/")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert SECRET_IN_EXCEPTION not in response.content.decode()


@pytest.mark.urls("tests.web.failing_urls")
def test_a_failing_page_outside_the_api_is_the_plain_500_page_never_the_debug_page() -> None:
    response = Client(raise_request_exception=False).get("/failing/page/")

    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "Server Error (500)" in page
    assert SECRET_IN_EXCEPTION not in page and "Traceback" not in page


UNREACHABLE_DATABASE_REQUESTS = """
import json
import django
django.setup()
from django.conf import settings
from django.test import Client
client = Client(raise_request_exception=False)
client.cookies["sessionid"] = "k" * 32  # a browser that logged in once: the session is looked up
stats = client.get("/api/market/stats/")
sql = client.post("/api/sql/", {"sql": "SELECT 1"}, content_type="application/json")
print(json.dumps([[r.status_code, r["Content-Type"], r.content.decode()] for r in (stats, sql)]))
"""


@pytest.fixture
def unreachable_database_env(tmp_path: Path) -> dict[str, str]:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "backend.project.settings",
        "VERISCREEN_DATA_DIR": str(tmp_path),
        "DATABASE_URL": f"postgres://screener:hunter2secret@127.0.0.1:{port}/veriscreen",
    }


def test_requests_that_need_an_unreachable_database_are_a_json_503_without_its_url(
    unreachable_database_env: dict[str, str],
) -> None:
    completed = subprocess.run(
        [sys.executable, "-c", UNREACHABLE_DATABASE_REQUESTS],
        env=unreachable_database_env, capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr[-3000:]

    port = unreachable_database_env["DATABASE_URL"].rsplit(":", 1)[1].split("/")[0]
    for status, content_type, body in json.loads(completed.stdout.splitlines()[-1]):
        assert (status, content_type) == (503, "application/json")
        error = json.loads(body)["error"]
        assert error["code"] == "database_unavailable"
        for leaked in ("hunter2secret", "screener", "127.0.0.1", f":{port}", "postgres"):
            assert leaked not in body


def test_check_reports_an_unreachable_database_without_its_password(
    unreachable_database_env: dict[str, str],
) -> None:
    completed = subprocess.run(
        [sys.executable, "manage.py", "check"],
        env=unreachable_database_env, capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip

    assert completed.returncode == 1
    assert "(web.E001) the 'default' postgresql database veriscreen on 127.0.0.1:" in completed.stderr
    assert "cannot be reached" in completed.stderr
    assert "hunter2secret" not in completed.stdout + completed.stderr


def test_the_server_refuses_to_start_on_an_unreachable_database(
    unreachable_database_env: dict[str, str],
) -> None:
    completed = subprocess.run(
        [sys.executable, "manage.py", "serve", "--port", "0"],
        env=unreachable_database_env, capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip

    assert completed.returncode == 1
    assert "(web.E001)" in completed.stderr
    assert "hunter2secret" not in completed.stdout + completed.stderr


def test_check_passes_with_a_reachable_database(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "backend.project.settings",
        "VERISCREEN_DATA_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'orm.sqlite3'}",
    }
    completed = subprocess.run(
        [sys.executable, "manage.py", "check"],
        env=env, capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip

    assert completed.returncode == 0, completed.stderr
