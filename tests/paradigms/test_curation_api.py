"""Paradigm curation (issue 10 item 7): REST endpoints for staff only — list/search, detail with the QST
tree, SQL edits that are guard-checked and verified on the source question, pin/unpin, delete,
export/import, statistics — and the Django admin."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.market.store import MarketStore
from paradigms import services
from paradigms.library import DatabaseParadigmLibrary
from paradigms.models import LibraryDay, Paradigm

pytestmark = pytest.mark.django_db

QUESTION = "总市值超过1000亿的股票"
OTHER = "市盈率最低的10只股票"


def _client(*, staff: bool | None) -> APIClient:
    client = APIClient()
    if staff is not None:
        name = "curator" if staff else "analyst"
        user = User.objects.filter(username=name).first() or User.objects.create_user(name, is_staff=staff)
        client.force_authenticate(user)
    return client


@pytest.fixture
def learned(demo_store: MarketStore, paradigm_context: LanguageContext) -> list[Paradigm]:
    library = DatabaseParadigmLibrary(paradigm_context)
    stored = []
    for question in (QUESTION, OTHER):
        translation = BuiltinTranslator().translate(question, paradigm_context)
        assert translation.qst is not None and translation.sql is not None
        paradigm_id = library.learn(question, translation.qst, translation.sql, status="verified")
        assert paradigm_id is not None
        stored.append(Paradigm.objects.get(pk=int(paradigm_id)))
    return stored


ENDPOINTS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("get", "/api/paradigms/", None),
    ("get", "/api/paradigms/stats/", None),
    ("get", "/api/paradigms/export/", None),
    ("post", "/api/paradigms/import/", {"yaml": "paradigms: []"}),
    ("get", "/api/paradigms/{id}/", None),
    ("post", "/api/paradigms/{id}/pin/", {"pinned": True}),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_only_staff_may_curate(
    learned: list[Paradigm], method: str, path: str, body: dict[str, Any] | None
) -> None:
    url = path.format(id=learned[0].pk)
    anonymous = getattr(_client(staff=None), method)(url, body, format="json")
    assert anonymous.status_code == 401  # the project answers anonymous API calls 401 (token auth)
    analyst = getattr(_client(staff=False), method)(url, body, format="json")
    assert analyst.status_code == 403 and analyst.json()["error"]["code"] == "permission_denied"
    assert getattr(_client(staff=True), method)(url, body, format="json").status_code == 200
    denied = _client(staff=None)
    assert denied.delete(f"/api/paradigms/{learned[0].pk}/").status_code == 401
    assert Paradigm.objects.filter(pk=learned[0].pk).exists()


def test_list_search_filter_and_use_figures_without_n_plus_one(
    learned: list[Paradigm], paradigm_context: LanguageContext
) -> None:
    client = _client(staff=True)
    for _ in range(3):
        services.record_use(learned[0].pk)
    services.set_pinned(learned[1].pk, True)
    page = client.get("/api/paradigms/").json()
    assert page["count"] == 2
    figures = {item["id"]: (item["hits"], item["uses_30d"], item["last_used"]) for item in page["results"]}
    today = services.library_today().isoformat()
    assert figures == {learned[0].pk: (3, 3, today), learned[1].pk: (0, 0, None)}
    assert [item["id"] for item in client.get("/api/paradigms/", {"search": "市盈率"}).json()["results"]] == [
        learned[1].pk
    ]
    assert [item["id"] for item in client.get("/api/paradigms/", {"pinned": "true"}).json()["results"]] == [
        learned[1].pk
    ]
    assert client.get("/api/paradigms/", {"limit": 0}).status_code == 400
    # Past a 64-bit integer the database refused the OFFSET (a 500 found by schemathesis).
    assert client.get("/api/paradigms/", {"offset": 38880679780717518848}).status_code == 400

    with CaptureQueriesContext(connection) as two:
        client.get("/api/paradigms/")
    library = DatabaseParadigmLibrary(paradigm_context)
    for question in ("市净率最低的10只股票", "换手率最高的5只股票", "总市值超过500亿的股票"):
        translation = BuiltinTranslator().translate(question, paradigm_context)
        assert translation.qst is not None and translation.sql is not None
        assert library.learn(question, translation.qst, translation.sql) is not None
    with CaptureQueriesContext(connection) as five:
        assert client.get("/api/paradigms/").json()["count"] == 5
    assert len(five) == len(two)


def test_detail_shows_the_qst_as_an_indented_tree(learned: list[Paradigm]) -> None:
    client = _client(staff=True)
    detail = client.get(f"/api/paradigms/{learned[0].pk}/").json()
    tree = detail["qst_tree"]
    assert tree[0] == "select" and all(line.startswith("  ") for line in tree[1:])
    assert any("10000000" in line or "1000" in line for line in tree)
    assert detail["qst"] == learned[0].qst and "{slot_" in detail["sql_template"]
    assert detail["check_spec"] == {}  # only an LLM reverse check has one (criterion, point, set size)
    assert client.get("/api/paradigms/999999/").status_code == 404


def test_an_edit_is_guard_checked_and_verified_on_the_source_question(learned: list[Paradigm]) -> None:
    client = _client(staff=True)
    paradigm = learned[0]
    url = f"/api/paradigms/{paradigm.pk}/"
    current = client.get("/api/paradigms/export/").content.decode()
    assert "总市值超过1000亿" in current

    refused = client.patch(url, {"sql": "DROP TABLE market.daily"}, format="json")
    assert refused.status_code == 422 and "guard" in refused.json()["error"]["message"]
    sql = BuiltinTranslator().translate(QUESTION, _context()).sql
    assert sql is not None
    wrong = client.patch(url, {"sql": sql.replace("10000000", "5000000")}, format="json")
    assert wrong.status_code == 422 and "not verified" in wrong.json()["error"]["message"]
    assert Paradigm.objects.get(pk=paradigm.pk).sql_template == paradigm.sql_template  # unchanged

    edited = client.patch(url, {"sql": sql + "\n"}, format="json")
    assert edited.status_code == 200, edited.json()
    assert edited.json()["origin"] == "admin" and edited.json()["validation_status"] == "verified"


def _context() -> LanguageContext:
    from backend.apps.marketdata.store import get_market_store

    return LanguageContext.from_store(get_market_store())


def test_pin_unpin_delete_stats_export_import(learned: list[Paradigm]) -> None:
    client = _client(staff=True)
    first = learned[0].pk
    assert client.post(f"/api/paradigms/{first}/pin/", {"pinned": True}, format="json").json()["pinned"]
    assert not client.post(f"/api/paradigms/{first}/pin/", {"pinned": False}, format="json").json()["pinned"]

    services.record_use(first)
    services.record_miss()
    stats = client.get("/api/paradigms/stats/").json()
    assert (stats["size"], stats["hits"], stats["misses"], stats["hit_rate"]) == (2, 1, 1, 0.5)
    assert len(stats["history"]) == 30 and stats["history"][-1]["hit_rate"] == 0.5
    assert stats["history"][-1]["insertions"] == 2 and stats["history"][0]["hit_rate"] is None

    exported = client.get("/api/paradigms/export/")
    assert exported["Content-Type"].startswith("application/yaml")
    text = exported.content.decode()
    for paradigm in learned:
        assert client.delete(f"/api/paradigms/{paradigm.pk}/").status_code == 204
    assert client.delete(f"/api/paradigms/{first}/").status_code == 404
    assert Paradigm.objects.count() == 0 and LibraryDay.objects.get().hits == 1  # counters outlive it

    report = client.post("/api/paradigms/import/", {"yaml": text}, format="json").json()
    assert report == {"created": 2, "existing": 0, "evicted": 0, "failed": []}
    assert sorted(Paradigm.objects.values_list("question", flat=True)) == sorted([QUESTION, OTHER])
    assert set(Paradigm.objects.values_list("origin", flat=True)) == {"admin"}
    again = client.post("/api/paradigms/import/", {"yaml": text}, format="json").json()
    assert (again["created"], again["existing"]) == (0, 2)
    broken = client.post("/api/paradigms/import/", {"yaml": "paradigms: [{question: q}]"}, format="json")
    assert broken.status_code == 400 and broken.json()["error"]["code"] == "invalid_file"


def test_admin_lists_filters_shows_the_tree_and_refuses_an_unverified_edit(learned: list[Paradigm]) -> None:
    client = Client()
    client.force_login(User.objects.create_user("admin", is_staff=True, is_superuser=True))
    listing = client.get("/admin/paradigms/paradigm/", {"q": "市盈率", "pinned__exact": "0"})
    assert listing.status_code == 200
    content = listing.content.decode()
    assert OTHER in content and QUESTION not in content
    change = client.get(f"/admin/paradigms/paradigm/{learned[0].pk}/change/")
    assert change.status_code == 200 and "<pre>select\n  " in change.content.decode()
    sql = BuiltinTranslator().translate(QUESTION, _context()).sql
    assert sql is not None
    posted = client.post(
        f"/admin/paradigms/paradigm/{learned[0].pk}/change/",
        {"pinned": "on", "sql": sql.replace("10000000", "5000000")},
    )
    assert posted.status_code == 200 and "not verified" in posted.content.decode()
    assert not Paradigm.objects.get(pk=learned[0].pk).pinned  # nothing saved
    saved = client.post(f"/admin/paradigms/paradigm/{learned[0].pk}/change/", {"pinned": "on", "sql": sql})
    assert saved.status_code == 302 and Paradigm.objects.get(pk=learned[0].pk).pinned
