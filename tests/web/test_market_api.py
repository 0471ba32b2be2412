"""Market-data REST API on a real chdb demo store: stats and the guarded SQL console."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest
from django.db import OperationalError
from rest_framework.test import APIClient

from backend.apps.marketdata.models import MarketSync
from backend.domain.market.schema import TABLES
from backend.domain.market.store import MarketStore
from tests.conftest import DEMO_STOCKS

# WhiteNoise warns when STATIC_ROOT has not been collected yet; `make run` collects it. The stats read
# the last market sync from the ORM.
pytestmark = [pytest.mark.filterwarnings("ignore:No directory at:UserWarning"), pytest.mark.django_db]


def test_stats_lists_every_table_with_counts_and_dates(api: APIClient, demo_store: MarketStore) -> None:
    response = api.get("/api/market/stats/")

    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "market"
    assert [entry["table"] for entry in body["tables"]] == [table.name for table in TABLES]
    by_table = {entry["table"]: entry for entry in body["tables"]}
    daily_rows, first_day, last_day = demo_store.internal_query(
        "SELECT count(), min(trade_date), max(trade_date) FROM market.daily"
    ).rows[0]
    assert by_table["daily"]["rows"] == daily_rows > 0
    assert by_table["daily"]["min_date"] == first_day.isoformat()
    assert by_table["daily"]["max_date"] == last_day.isoformat()
    assert by_table["stock_basic"]["stocks"] == DEMO_STOCKS
    assert by_table["dataset_info"]["date_column"] is None


def test_stats_says_the_demo_is_synthetic(api: APIClient, demo_store: MarketStore) -> None:
    body = api.get("/api/market/stats/").json()

    assert body["synthetic"] is True
    [dataset] = body["datasets"]
    assert dataset["synthetic"] is True
    assert "SYNTHETIC" in dataset["description"]
    assert datetime.fromisoformat(dataset["loaded_at"]).tzinfo is not None


def test_stats_answer_without_the_application_database(
    api: APIClient, demo_store: MarketStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server whose application database is not migrated (or away) still describes the market data.
    def unreadable() -> None:
        raise OperationalError("no such table: marketdata_marketsync")

    monkeypatch.setattr(MarketSync.objects, "first", unreadable)
    response = api.get("/api/market/stats/")

    assert response.status_code == 200
    assert response.json()["last_sync"] is None and response.json()["tables"]


def test_stats_of_an_empty_store_are_zero_not_an_error(
    api: APIClient, empty_store: MarketStore, django_store_with: Callable[..., None]
) -> None:
    django_store_with(CLICKHOUSE_DATABASE=empty_store.database)

    body = api.get("/api/market/stats/").json()

    assert body["database"] == empty_store.database
    assert body["synthetic"] is False
    assert body["datasets"] == []
    assert body["last_sync"] is None
    assert all(entry["rows"] == 0 and entry["min_date"] is None for entry in body["tables"])


def test_console_runs_a_read_and_returns_columns_and_rows(api: APIClient, demo_store: MarketStore) -> None:
    sql = (
        "SELECT b.ts_code AS code, b.name AS name, d.close AS close, d.trade_date AS day "
        "FROM market.daily AS d "
        "INNER JOIN market.stock_basic AS b ON b.ts_code = d.ts_code "
        "ORDER BY d.trade_date DESC, d.close DESC, b.ts_code LIMIT 5"
    )
    response = api.post("/api/sql/", {"sql": sql}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert body["columns"] == ["code", "name", "close", "day"]
    assert body["column_types"][3] == "Date"
    assert body["row_count"] == 5
    expected = demo_store.query(sql).rows
    assert body["rows"] == [[code, name, close, day.isoformat()] for code, name, close, day in expected]


def test_console_turns_nan_and_infinity_into_null(api: APIClient, demo_store: MarketStore) -> None:
    response = api.post("/api/sql/", {"sql": "SELECT nan AS a, inf AS b, 1.5 AS c"}, format="json")

    assert response.status_code == 200
    assert response.json()["rows"] == [[None, None, 1.5]]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1; DROP TABLE market.daily",
        "DROP TABLE market.daily",
        "SELECT * FROM url('http://127.0.0.1/x', CSV)",
        "SELECT * FROM system.tables",
        "SELECT 1 SETTINGS readonly = 0",
    ],
)
def test_console_refuses_unsafe_sql_with_the_reason(
    api: APIClient, demo_store: MarketStore, sql: str
) -> None:
    response = api.post("/api/sql/", {"sql": sql}, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "query_rejected"
    assert len(error["message"]) > 10
    assert demo_store.internal_query("SELECT count() FROM market.daily").rows[0][0] > 0


def test_console_reports_clickhouse_refusals_as_client_errors(
    api: APIClient, demo_store: MarketStore
) -> None:
    response = api.post("/api/sql/", {"sql": "SELECT no_such_column FROM market.daily"}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "query_failed"
    assert "no_such_column" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [({}, "sql"), ({"sql": ""}, "sql"), ({"sql": "   "}, "sql"), ({"sql": "x" * 20_001}, "sql")],
)
def test_console_validates_its_input_as_json(api: APIClient, payload: dict[str, str], field: str) -> None:
    response = api.post("/api/sql/", payload, format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert field in error["field_errors"]
    assert error["message"].startswith(f"{field}: ")


def test_console_refuses_results_over_the_row_limit(
    api: APIClient, demo_store: MarketStore, django_store_with: Callable[..., None]
) -> None:
    django_store_with(QUERY_MAX_RESULT_ROWS=10)

    response = api.post("/api/sql/", {"sql": "SELECT ts_code FROM market.stock_basic"}, format="json")

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "result_too_large"


def test_console_stops_queries_past_the_time_limit(
    api: APIClient, demo_store: MarketStore, django_store_with: Callable[..., None]
) -> None:
    django_store_with(QUERY_MAX_EXECUTION_SECONDS=1)
    endless = (
        "SELECT count() FROM market.daily AS a CROSS JOIN market.daily AS b CROSS JOIN market.daily AS c"
    )

    response = api.post("/api/sql/", {"sql": endless}, format="json")

    assert response.status_code == 504
    assert response.json()["error"]["code"] == "query_timeout"


def test_console_reports_an_unreachable_store_as_503(
    api: APIClient, django_store_with: Callable[..., None]
) -> None:
    django_store_with(CLICKHOUSE_URL="clickhouse://default:@127.0.0.1:9")

    response = api.post("/api/sql/", {"sql": "SELECT 1"}, format="json")

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "store_unavailable"
