"""The single-page app at / (and its client-side routes) and the OpenAPI schema."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")

BUILT_INDEX = (
    '<!doctype html><html><body><div id="root"></div><script src="/static/assets/index-x.js"></script>'
)


@pytest.fixture
def built_frontend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "index.html").write_text(BUILT_INDEX, encoding="utf-8")
    monkeypatch.setattr(settings, "FRONTEND_DIST", tmp_path)
    return tmp_path


@pytest.mark.parametrize("path", ["/", "/console", "/market/"])
def test_app_routes_serve_the_built_index_with_a_csrf_cookie(built_frontend: Path, path: str) -> None:
    response = Client().get(path)

    assert response.status_code == 200
    assert response.content.decode() == BUILT_INDEX
    assert "csrftoken" in response.cookies


def test_missing_build_says_how_to_build_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "FRONTEND_DIST", tmp_path / "dist")

    response = Client().get("/")

    assert response.status_code == 503
    assert "frontend not built" in response.content.decode()
    assert "make run" in response.content.decode()


@pytest.mark.parametrize("path", ["/api/no-such-endpoint/", "/static/assets/missing.js"])
def test_api_and_static_paths_are_not_swallowed_by_the_app(built_frontend: Path, path: str) -> None:
    assert Client().get(path).status_code == 404


def test_openapi_schema_documents_the_endpoints() -> None:
    response = Client().get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    assert set(paths) >= {"/api/sql/", "/api/market/stats/", "/api/ask/"}
    assert {"200", "400", "503"} <= set(paths["/api/ask/"]["post"]["responses"])
    sql_responses = paths["/api/sql/"]["post"]["responses"]
    assert {"200", "400", "413", "503", "504"} <= set(sql_responses)
    assert "TableResult" in schema["components"]["schemas"]
    assert {"MarketStats", "AskAnswer", "AskRequest"} <= set(schema["components"]["schemas"])


@pytest.mark.parametrize("endpoint", ["/api/sql/", "/api/ask/"])
def test_malformed_json_is_a_json_error(endpoint: str) -> None:
    response = Client().post(endpoint, data="{not json", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"
    assert "JSON" in response.json()["error"]["message"]


def test_a_wrong_method_is_a_json_error_with_the_allowed_methods() -> None:
    response = Client().get("/api/ask/")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert "POST" in response["Allow"]
