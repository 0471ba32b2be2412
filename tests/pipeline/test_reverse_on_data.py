"""Reverse checks on the demo store: no false alarm on the dev set's hand-written gold SQL, each check
decided by its own result alone (never another check's verdict), parallel = sequential = alone."""

from __future__ import annotations

import inspect
import threading
from dataclasses import replace
from typing import Any

import pytest

from backend.domain.market import guard
from backend.domain.market.store import MarketStore, QueryResult
from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.reverse.model import ReverseCheck
from backend.domain.pipeline.validate.reverse.reading import read
from backend.domain.pipeline.validate.reverse.runner import run_checks, write_checks
from backend.domain.pipeline.validate.reverse.subject import Subject
from tests.pipeline.checklist_support import DEV_SET, load

ITEMS: list[dict[str, Any]] = load(DEV_SET)["items"]


def written(store: MarketStore) -> list[tuple[str, QueryResult, list[ReverseCheck]]]:
    """(item id, gold result, the reverse checks written for it) for every dev item."""
    vocabulary = default_vocabulary()
    found = []
    for item in ITEMS:
        r0 = store.query(item["gold_sql"])
        reading = read(item["question"], extract_constraints(item["question"], vocabulary), vocabulary)
        found.append((item["id"], r0, write_checks(Subject(reading, r0, store.database))))
    return found


@pytest.fixture(scope="module")
def gold_checks(demo_store: MarketStore) -> list[tuple[str, QueryResult, list[ReverseCheck]]]:
    return written(demo_store)


def test_no_false_alarm_on_gold_and_the_rules_speak(
    demo_store: MarketStore, gold_checks: list[tuple[str, QueryResult, list[ReverseCheck]]]
) -> None:
    alarms = []
    rules: set[str] = set()
    total = 0
    for item, r0, checks in gold_checks:
        for result in run_checks(checks, demo_store, r0, workers=3):
            total += 1
            rules.add(result.kind)
            if result.verdict != "pass":
                alarms.append(f"{item} {result.kind} {result.verdict}: {result.reason}")
    assert alarms == []
    assert total >= 100  # the rules do write checks for a good part of the dev set
    assert rules >= {"filter_violation", "missing", "top_k", "scope", "aggregate", "count", "duplicates"}


def test_a_criterion_reads_only_the_answer_and_its_own_result(
    gold_checks: list[tuple[str, QueryResult, list[ReverseCheck]]],
) -> None:
    for _item, _r0, checks in gold_checks:
        for check in checks:
            assert list(inspect.signature(check.decide).parameters) == ["r0", "own"]


def test_verdicts_do_not_depend_on_order_parallelism_or_the_other_checks(
    demo_store: MarketStore, gold_checks: list[tuple[str, QueryResult, list[ReverseCheck]]]
) -> None:
    for item, r0, checks in gold_checks:
        if len(checks) < 2:
            continue
        parallel = [(r.kind, r.verdict, r.reason) for r in run_checks(checks, demo_store, r0, workers=3)]
        sequential = [(r.kind, r.verdict, r.reason) for r in run_checks(checks, demo_store, r0, workers=1)]
        alone = [
            (r.kind, r.verdict, r.reason)
            for check in reversed(checks)
            for r in run_checks([check], demo_store, r0, workers=1)
        ][::-1]
        assert parallel == sequential == alone, item


def test_a_failing_check_leaves_the_others_untouched(
    demo_store: MarketStore, gold_checks: list[tuple[str, QueryResult, list[ReverseCheck]]]
) -> None:
    item, r0, checks = next(entry for entry in gold_checks if len(entry[2]) >= 3)
    broken = ReverseCheck(
        rule="broken",
        text="a check whose query cannot run",
        sql="SELECT no_such_column FROM market.daily",
        criterion="none",
        attribution=checks[0].attribution,
        decide=checks[0].decide,
    )
    mixed = run_checks([broken, *checks], demo_store, r0, workers=3)
    assert mixed[0].verdict == "undecidable"
    clean = run_checks(checks, demo_store, r0, workers=3)
    assert [r.verdict for r in mixed[1:]] == [r.verdict for r in clean], item


def test_a_refused_check_reads_the_same_side_by_side_and_one_by_one(
    demo_store: MarketStore, gold_checks: list[tuple[str, QueryResult, list[ReverseCheck]]]
) -> None:
    _item, r0, checks = next(entry for entry in gold_checks if len(entry[2]) >= 2)
    refused = replace(checks[0], rule="refused", sql="SELECT file('/etc/passwd')")
    side_by_side = run_checks([refused, *checks], demo_store, r0, workers=3)
    one_by_one = run_checks([refused, *checks], demo_store, r0, workers=1)
    assert [(r.verdict, r.reason) for r in side_by_side] == [(r.verdict, r.reason) for r in one_by_one]
    assert side_by_side[0].verdict == "undecidable" and "file" in (side_by_side[0].reason or "")


def test_side_by_side_every_check_is_parsed_once_by_the_worker_that_runs_it(
    demo_store: MarketStore,
    gold_checks: list[tuple[str, QueryResult, list[ReverseCheck]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each worker guards its own check, so no thread holds the GIL guarding checks another worker
    is waiting to run."""
    _item, r0, checks = next(entry for entry in gold_checks if len(entry[2]) >= 3)
    tokenized: dict[str, list[int]] = {}
    queried: dict[str, int] = {}
    tokenize, execute = guard._tokenize, MarketStore._execute

    def recording_tokenize(sql: str) -> list[guard.Token]:
        tokenized.setdefault(sql, []).append(threading.get_ident())
        return tokenize(sql)

    def recording_execute(client: Any, sql: str, parameters: Any, settings: dict[str, Any]) -> Any:
        queried[next(check.sql for check in checks if sql.endswith(check.sql))] = threading.get_ident()
        return execute(client, sql, parameters, settings)

    monkeypatch.setattr(guard, "_tokenize", recording_tokenize)
    monkeypatch.setattr(MarketStore, "_execute", staticmethod(recording_execute))
    guard.forget_passed()
    run_checks(checks, demo_store, r0, workers=3)
    assert tokenized == {sql: [thread] for sql, thread in queried.items()}
    assert set(queried) == {check.sql for check in checks}
