"""Precision first: on the dev set's hand-written gold SQL every verdict must be pass or undecidable
(a fail on gold is a false alarm), and the checks must still decide; hand-made mutants of the gold
SQL must be caught by the kind expected to catch them (fixtures/checklist/mutants.yaml)."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

import pytest

from backend.domain.pipeline.validate.checklist import (
    Kind,
    Outcome,
    Verdict,
    check_sql,
    default_vocabulary,
    extract_constraints,
)
from tests.pipeline.checklist_support import DEV_SET, FIXTURES, load

ITEMS: list[dict[str, Any]] = load(DEV_SET)["items"]
QUESTIONS = {item["id"]: item["question"] for item in ITEMS}
GOLD = {item["id"]: item["gold_sql"] for item in ITEMS}
MUTANTS = load(FIXTURES / "mutants.yaml")


@lru_cache(maxsize=1)
def gold_verdicts() -> tuple[tuple[str, Verdict], ...]:
    found = []
    for item in ITEMS:
        constraints = extract_constraints(item["question"], default_vocabulary())
        found.extend((item["id"], verdict) for verdict in check_sql(constraints, item["gold_sql"]))
    return tuple(found)


def decided_share() -> dict[Kind, tuple[int, int]]:
    """Per kind: (decided verdicts, all verdicts) on gold SQL — the figures the README reports."""
    seen: Counter[Kind] = Counter()
    decided: Counter[Kind] = Counter()
    for _, verdict in gold_verdicts():
        if verdict.constraint is not None:
            seen[verdict.constraint.kind] += 1
            decided[verdict.constraint.kind] += verdict.outcome is not Outcome.UNDECIDABLE
    return {kind: (decided[kind], seen[kind]) for kind in seen}


def _verdicts(item: str, sql: str) -> list[Verdict]:
    return check_sql(extract_constraints(QUESTIONS[item], default_vocabulary()), sql)


def test_no_false_alarm_on_gold_sql() -> None:
    alarms = [
        f"{item} {verdict.constraint.text if verdict.constraint else verdict.level.value}: {verdict.reason}"
        for item, verdict in gold_verdicts()
        if verdict.outcome is Outcome.FAIL
    ]
    assert alarms == []


def test_checks_decide_on_gold_sql() -> None:
    shares = decided_share()
    decided = sum(count for count, _ in shares.values())
    total = sum(total for _, total in shares.values())
    # Most questions carry constraints, and an undecidable verdict must stay the exception.
    assert total >= 2 * len(ITEMS)
    assert decided / total >= 0.95
    assert all(count > 0 for count, _ in shares.values())


def test_mutant_fixture_is_large_and_varied() -> None:
    mutants = MUTANTS["mutants"]
    assert len(mutants) >= 40
    assert len({mutant["id"] for mutant in mutants}) == len(mutants)
    assert len({mutant["kind"] for mutant in mutants}) >= 10
    for mutant in [*mutants, *MUTANTS["missed"]]:
        assert mutant["sql"].strip() != GOLD[mutant["item"]].strip(), mutant["id"]


@pytest.mark.parametrize("mutant", MUTANTS["mutants"], ids=lambda mutant: mutant["id"])
def test_mutant_is_caught_by_its_kind(mutant: dict[str, Any]) -> None:
    verdicts = _verdicts(mutant["item"], mutant["sql"])
    assert verdicts[0].outcome is Outcome.PASS, verdicts[0].reason
    caught = [
        verdict
        for verdict in verdicts[1:]
        if verdict.outcome is Outcome.FAIL
        and verdict.constraint is not None
        and verdict.constraint.kind.value == mutant["kind"]
        and verdict.attribution is not None
        and verdict.attribution.value == mutant["attribution"]
    ]
    assert caught, [
        (v.constraint.kind.value if v.constraint else "", v.outcome.value, v.reason) for v in verdicts
    ]


@pytest.mark.parametrize("mutant", MUTANTS["missed"], ids=lambda mutant: mutant["id"])
def test_known_miss_is_still_missed(mutant: dict[str, Any]) -> None:
    # Documented blind spots: if one starts failing, move it to `mutants` with the kind that caught it.
    verdicts = _verdicts(mutant["item"], mutant["sql"])
    assert not any(verdict.outcome is Outcome.FAIL for verdict in verdicts)
