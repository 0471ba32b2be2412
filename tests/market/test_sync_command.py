"""`manage.py market sync` and its beat schedule, against recorded Tushare replies and AKShare frames
(no network); every run leaves the MarketSync row the data status shows."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from backend.apps.marketdata import selectors
from backend.apps.marketdata import store as django_store
from backend.apps.marketdata.models import MarketSync
from backend.apps.marketdata.schedule import crontab_from
from backend.apps.marketdata.serializers import MarketStatsSerializer
from backend.apps.marketdata.store import get_market_store
from backend.domain.market.sync import akshare, runner, transport
from tests.market import test_sync_akshare
from tests.market.akshare_support import RecordedAkshare
from tests.market.sync_support import TOKEN, RecordedTushare, fence_network
from tests.market.test_sync import EXPECTED_ROWS, TODAY

pytestmark = pytest.mark.django_db


@pytest.fixture
def sync_database(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordedTushare]:
    """The Django store on a fresh database, Tushare answered from recordings, 'today' pinned."""
    recorded = RecordedTushare()
    monkeypatch.setattr(settings, "CLICKHOUSE_DATABASE", f"sync_{uuid.uuid4().hex[:12]}")
    monkeypatch.setattr(settings, "TUSHARE_TOKEN", TOKEN)
    monkeypatch.setattr(transport, "urllib_post", recorded)
    monkeypatch.setattr(akshare, "akshare_call", RecordedAkshare)
    monkeypatch.setattr(runner, "market_today", lambda: TODAY)
    django_store._store = None
    with fence_network() as attempts:
        yield recorded
    assert not attempts, f"the sync command opened a socket outside loopback: {attempts}"
    store = get_market_store()
    store.admin_command(f"DROP DATABASE IF EXISTS {store.database}")
    django_store._store = None


def _sync(*args: str) -> str:
    out = StringIO()
    call_command("market", "sync", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def _store_counts(output: str) -> list[str]:
    return output[output.index("rows in the store:") :].splitlines()


def test_sync_then_resync_prints_identical_row_counts(sync_database: RecordedTushare) -> None:
    first = _sync("--since", "2025-12-01")
    second = _sync("--since", "2025-12-01")
    assert _store_counts(first) == _store_counts(second)
    for table, rows in EXPECTED_ROWS.items():
        assert f"  {table:<15} {rows:>10,}" in _store_counts(first)
    assert "[3/3] daily 2025-12-03" in first  # progress lines when stdout is not a terminal
    assert "REAL data from tushare" in first
    assert "  income                   3 (1 slices)" in first


def test_akshare_sync_then_resync_prints_identical_row_counts_and_the_status_shows_it(
    sync_database: RecordedTushare, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _sync("--source", "akshare", "--since", "2025-12-01")
    second = _sync("--source", "akshare", "--since", "2025-12-01")
    assert _store_counts(first) == _store_counts(second)
    for table, rows in test_sync_akshare.EXPECTED_ROWS.items():
        assert f"  {table:<15} {rows:>10,}" in _store_counts(first)
    assert "REAL data from akshare" in first
    assert "rows added to the store: 105" in first and "rows added to the store: 0" in second
    assert "AKShare history 2025-12-01..2025-12-03 688981.SH" in first  # per-stock progress
    assert not sync_database.requests  # Tushare was not asked
    last = MarketStatsSerializer(selectors.market_overview()).data["last_sync"]
    assert (last["source_name"], last["succeeded"], last["rows_added"], last["error"]) == (
        "akshare",
        True,
        0,
        "",
    )
    assert last["rows_written"] == 105 and last["finished_at"] >= last["started_at"]
    assert MarketSync.objects.count() == 2
    # The beat task fetches from MARKET_SYNC_SOURCE; with nothing missing it adds nothing.
    from backend.apps.marketdata.tasks import sync_market

    monkeypatch.setattr(settings, "MARKET_SYNC_SOURCE", "akshare")
    outcome = sync_market()
    assert outcome["source"] == "akshare" and not any(outcome["added"].values())
    assert MarketSync.objects.first().source == "akshare"  # type: ignore[union-attr]


def test_a_failed_sync_is_the_last_sync_with_its_reason(sync_database: RecordedTushare) -> None:
    settings.TUSHARE_TOKEN = ""
    with pytest.raises(CommandError, match="set TUSHARE_TOKEN"):
        _sync("--source", "tushare")
    last = MarketSync.objects.get()
    assert (last.source, last.succeeded, last.rows_added) == ("tushare", False, 0)
    assert "set TUSHARE_TOKEN" in last.error


def test_sync_of_some_tables_and_a_missing_token(sync_database: RecordedTushare) -> None:
    output = _sync("--since", "2025-12-01", "--tables", "trade_cal", "daily")
    assert {api for api, _ in sync_database.requests} == {"trade_cal", "daily"}
    assert "  daily                    9 (3 slices)" in output
    settings.TUSHARE_TOKEN = ""
    with pytest.raises(CommandError, match="set TUSHARE_TOKEN"):
        _sync()


def test_the_beat_schedule_runs_the_registered_task_after_the_close() -> None:
    from backend.apps.marketdata.tasks import sync_market
    from backend.project.celery import app

    entry: dict[str, Any] = settings.CELERY_BEAT_SCHEDULE["market-sync-after-close"]
    assert settings.MARKET_SYNC_SOURCE == "tushare"  # MARKET_SYNC_SOURCE=akshare for the free source
    assert entry["task"] == sync_market.name and entry["task"] in app.tasks
    assert settings.CELERY_TASK_ROUTES[entry["task"]] == {"queue": "market_sync"}
    schedule = entry["schedule"]
    assert schedule.hour == {18} and schedule.minute == {30} and schedule.day_of_week == {1, 2, 3, 4, 5}
    with pytest.raises(SystemExit, match="five fields"):
        crontab_from("30 18 * *")
    with pytest.raises(SystemExit, match="MARKET_SYNC_CRON"):
        crontab_from("99 18 * * *")
