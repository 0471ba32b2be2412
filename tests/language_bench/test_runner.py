"""The EX runner counts per category, records failure reasons, and reports SpotIt beside EX.

The translator here answers from a fixed table of SQL: the runner's job is measuring, so the
translator under test is a parameter; the store, the guard, chdb and the equivalence checker are real.
"""

import json
from pathlib import Path

import pytest

from backend.domain.language.translation import Translation
from backend.domain.language_bench import (
    DevItem,
    ExReport,
    ItemOutcome,
    SpotItVerdict,
    load_dev_set,
    run_ex,
    spotit_checker,
)
from backend.domain.language_bench.report import format_report, write_json
from backend.domain.language_bench.runner import project_onto_gold
from backend.domain.market.store import MarketStore

LATEST = "(SELECT max(trade_date) FROM market.daily)"
UP_TODAY = f"SELECT ts_code FROM market.daily WHERE trade_date = {LATEST} AND pct_chg > 0"
TOP5 = f"SELECT ts_code FROM market.daily WHERE trade_date = {LATEST} ORDER BY close DESC LIMIT 5"
TOP5_CLOSE = (
    f"SELECT ts_code, close FROM market.daily WHERE trade_date = {LATEST} ORDER BY close DESC LIMIT 5"
)


class TableTranslator:
    """Answers each question with the SQL (or failure) given for it."""

    name = "table"

    def __init__(self, answers: dict[str, str | Exception | None]) -> None:
        self.answers = answers

    def __call__(self, question: str) -> Translation:
        answer = self.answers[question]
        if isinstance(answer, Exception):
            raise answer
        if answer is None:
            return Translation(question, "not_understood", message="could not map 'gizmo'", engine=self.name)
        return Translation(question, "ok", sql=answer, engine=self.name)


def item(id_: str, category: str, gold_sql: str, order_matters: bool = False) -> DevItem:
    return DevItem(id_, category, "en", f"question {id_}", gold_sql, order_matters, "test item")


ITEMS = [
    item("f-1", "fundamental", UP_TODAY),
    item("f-2", "fundamental", UP_TODAY),
    item("t-1", "technical", TOP5, order_matters=True),
    item("t-2", "technical", TOP5, order_matters=True),
    item("s-1", "statistics", f"SELECT count() AS n FROM market.daily WHERE trade_date = {LATEST}"),
    item("s-2", "statistics", UP_TODAY),
    item("s-3", "statistics", UP_TODAY),
]
ANSWERS: dict[str, str | Exception | None] = {
    # right, with extra columns and another spelling
    "question f-1": (
        f"SELECT d.ts_code, d.close FROM market.daily AS d WHERE d.pct_chg > 0 AND d.trade_date = {LATEST}"
    ),
    # wrong condition
    "question f-2": f"SELECT ts_code FROM market.daily WHERE trade_date = {LATEST} AND pct_chg <= 0",
    # right order, with the close beside the code
    "question t-1": TOP5_CLOSE,
    # right rows, wrong order
    "question t-2": f"SELECT ts_code, close FROM ({TOP5_CLOSE}) ORDER BY close ASC",
    "question s-1": f"SELECT count(ts_code) FROM market.daily WHERE trade_date = {LATEST}",
    "question s-2": None,
    "question s-3": "DROP TABLE market.daily",
}


@pytest.fixture(scope="module")
def report(demo_store: MarketStore):
    return run_ex(ITEMS, TableTranslator(ANSWERS), demo_store)


def test_statuses_and_reasons_per_item(report) -> None:
    outcomes = {outcome.id: outcome for outcome in report.outcomes}
    assert {key: outcome.status for key, outcome in outcomes.items()} == {
        "f-1": "match",
        "f-2": "mismatch",
        "t-1": "match",
        "t-2": "mismatch",
        "s-1": "match",
        "s-2": "not_understood",
        "s-3": "execution_error",
    }
    assert outcomes["f-2"].only_in_gold and outcomes["f-2"].only_in_pred
    assert "different order" in outcomes["t-2"].reason
    assert "gizmo" in outcomes["s-2"].reason
    assert outcomes["s-3"].reason  # the guard's refusal, in words
    assert outcomes["f-1"].gold_rows == outcomes["f-1"].pred_rows > 0


def test_ex_is_counted_per_category_and_overall(report) -> None:
    summary = report.summary()
    assert summary["overall"]["items"] == 7
    assert summary["overall"]["correct"] == 3
    assert summary["overall"]["ex"] == round(3 / 7, 4)
    assert {name: group["ex"] for name, group in summary["by_category"].items()} == {
        "fundamental": 0.5,
        "technical": 0.5,
        "statistics": round(1 / 3, 4),
    }
    assert summary["by_category"]["statistics"]["statuses"] == {
        "execution_error": 1,
        "match": 1,
        "not_understood": 1,
    }
    assert report.engine == "table"


def test_a_translator_that_raises_is_a_counted_failure(demo_store: MarketStore) -> None:
    result = run_ex([ITEMS[0]], TableTranslator({"question f-1": RuntimeError("boom")}), demo_store)
    assert result.outcomes[0].status == "translation_error"
    assert "boom" in result.outcomes[0].reason
    assert result.summary()["overall"]["ex"] == 0.0


def test_report_text_and_json(report, tmp_path: Path) -> None:
    text = format_report(report)
    assert "fundamental" in text and "overall" in text and "Failures (4)" in text
    path = tmp_path / "reports" / "language_ex.json"
    write_json(report, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["summary"]["overall"]["correct"] == 3
    assert [entry["id"] for entry in data["items"]] == [i.id for i in ITEMS]


def test_spotit_verdicts_beside_ex(demo_store: MarketStore) -> None:
    check, note = spotit_checker(demo_store, bound=2)
    assert check is not None, note
    rewritten = f"SELECT ts_code FROM market.daily WHERE pct_chg > 0 AND trade_date = {LATEST}"
    answers: dict[str, str | Exception | None] = {
        "question f-1": rewritten,
        "question f-2": ANSWERS["question f-2"],
        "question s-2": ANSWERS["question f-1"],  # right, with an extra column: projected before the check
    }
    chosen = [ITEMS[0], ITEMS[1], item("s-2", "statistics", UP_TODAY)]
    result = run_ex(chosen, TableTranslator(answers), demo_store, equivalence=check)
    verdicts = {outcome.id: outcome.spotit.verdict for outcome in result.outcomes if outcome.spotit}
    assert verdicts == {"f-1": "equivalent", "f-2": "not_equivalent", "s-2": "equivalent"}
    summary = result.summary()["overall"]
    assert (summary["ex"], summary["ex_spotit"]) == (round(2 / 3, 4), round(2 / 3, 4))
    assert "EX-SpotIt" in format_report(result)
    assert summary["spotit_equivalent_but_results_differ"] == []


def test_projection_onto_gold_columns_for_the_equivalence_check() -> None:
    pred = "SELECT ts_code, name, close FROM t"
    projected = project_onto_gold(pred, ["ts_code"], ["ts_code", "name", "close"], {})
    assert projected == f"SELECT `ts_code` AS `ts_code` FROM ({pred}) AS pred_result"
    by_value = project_onto_gold(pred, ["avg`x"], ["ts_code", "name", "close"], {"avg`x": "close"})
    assert by_value == f"SELECT `close` AS `avg\\`x` FROM ({pred}) AS pred_result"
    assert project_onto_gold(pred, ["missing"], ["ts_code"], {}) == pred
    assert project_onto_gold("SELECT ts_code FROM t", ["ts_code"], ["ts_code"], {}) == "SELECT ts_code FROM t"


def test_the_real_dev_set_gold_matches_itself(demo_store: MarketStore) -> None:
    """Gold answered by gold is 100% EX: the comparator never rejects a correct answer."""
    items = load_dev_set()
    gold = {dev_item.question: dev_item.gold_sql for dev_item in items}
    result = run_ex(items, TableTranslator(dict(gold)), demo_store)
    assert [o.id for o in result.outcomes if not o.correct] == []


def test_spotit_equivalent_on_a_real_mismatch_is_flagged() -> None:
    conflict = ItemOutcome("x", "technical", "en", "q", status="mismatch", spotit=SpotItVerdict("equivalent"))
    agreed = ItemOutcome("y", "technical", "en", "q", status="match", spotit=SpotItVerdict("equivalent"))
    refuted = ItemOutcome(
        "z", "technical", "en", "q", status="mismatch", spotit=SpotItVerdict("not_equivalent")
    )
    report = ExReport(engine="table", outcomes=[conflict, agreed, refuted], spotit_enabled=True)
    overall = report.summary()["overall"]
    assert overall["spotit_equivalent_but_results_differ"] == ["x"]
    assert (overall["ex"], overall["ex_spotit"]) == (round(1 / 3, 4), round(2 / 3, 4))
    assert "results differ on the data: x" in format_report(report)
