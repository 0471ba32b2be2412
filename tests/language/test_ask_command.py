"""`manage.py ask`: JSON keys, human table, exit codes for refused questions."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from backend.domain.market.store import MarketStore

pytestmark = pytest.mark.django_db  # every answer is recorded as a pipeline run


def _ask(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = 0
    try:
        call_command("ask", *args)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_answer_has_the_documented_keys(
    demo_store: MarketStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = _ask(capsys, "2025年9月8日收盘价最高的上证所股票", "--json")
    assert code == 0
    answer = json.loads(out)
    for key in (
        "question",
        "qst",
        "sql",
        "columns",
        "rows",
        "status",
        "warnings",
        "timings_ms",
        "llm_calls",
        "engine",
        "initial_sql",
        "checks",
        "rounds",
        "trace",
    ):
        assert key in answer
    assert answer["status"] == "verified" and answer["engine"] == "builtin"
    assert len(answer["rows"]) == 1 and answer["columns"][:2] == ["ts_code", "name"]
    assert {"parse", "compile", "execute", "total"} <= set(answer["timings_ms"])


def test_table_output_says_the_data_is_synthetic(
    demo_store: MarketStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = _ask(capsys, "今日涨幅前十的股票")
    assert code == 0
    assert "ts_code" in out and "SYNTHETIC" in out
    assert "status:   verified" in out and "[pass]" in out


@pytest.mark.parametrize(
    ("question", "expected"),
    [("   ", "empty"), ("市盈率" * 700, "limit is 2000"), ("市盈率低于15的火星股票", "火星")],
)
def test_refusals_exit_with_1_and_say_why(
    demo_store: MarketStore, capsys: pytest.CaptureFixture[str], question: str, expected: str
) -> None:
    code, out, err = _ask(capsys, question)
    assert code == 1
    assert expected in out + err


def test_store_down_is_reported_with_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from backend.apps.marketdata import store as django_store
    from backend.domain.market.config import StoreConfig

    monkeypatch.setattr(django_store, "_store", MarketStore(StoreConfig(url="clickhouse://127.0.0.1:1")))
    code, out, _err = _ask(capsys, "今日涨幅前十的股票", "--json")
    assert code == 1
    answer = json.loads(out)
    assert answer["status"] == "store_unavailable" and answer["message"]


def _validate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = 0
    try:
        call_command("validate", *args)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, json.loads(capsys.readouterr().out)


def test_validate_judges_an_external_candidate(
    demo_store: MarketStore, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "最新市净率低于1的银行股"
    wrong = (
        "SELECT b.ts_code FROM market.daily_basic AS b "
        "WHERE b.trade_date = (SELECT max(trade_date) FROM market.daily) AND b.pb < 1"
    )
    code, answer = _validate(capsys, question, "--sql", wrong, "--no-correct", "--json")
    assert code == 0
    assert (answer["status"], answer["initial_sql"], answer["rounds"][0]["round"]) == ("unverified", wrong, 0)
    assert len(answer["rounds"]) == 1
    assert any(c["verdict"] == "fail" and c["attribution"] == "entity_mapping" for c in answer["checks"])
    code, answer = _validate(capsys, question, "--sql", wrong, "--json")
    assert (code, answer["status"], answer["correction_round"]) == (0, "corrected", 1)
