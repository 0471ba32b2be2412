"""Reverse rules on fixture files (sqlglot optimizer style: one file per rule): question + answer r0 →
the reverse checks written (their SQL), and for each, its own result → verdict. No database: the
rules and criteria are pure; the demo-store tests are in test_reverse_on_data.py."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.reverse.reading import read
from backend.domain.pipeline.validate.reverse.rules import (
    aggregate,
    count,
    duplicates,
    empty_count,
    filter_violation,
    lookup,
    missing,
    scope,
    time_scope,
    top_k,
)
from backend.domain.pipeline.validate.reverse.subject import Subject

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "reverse"
BUILDERS = {
    "aggregate": aggregate.build,
    "count": count.build,
    "duplicates": duplicates.build,
    "empty_count": empty_count.build,
    "filter_violation": filter_violation.build,
    "lookup": lambda subject: [*lookup.build(subject), *lookup.build_values(subject)],
    "missing": missing.build,
    "scope": scope.build,
    "time_scope": time_scope.build,
    "top_k": top_k.build,
}


@dataclass(frozen=True)
class Rows:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    column_types: list[str]


def rows(spec: dict[str, Any]) -> Rows:
    return Rows(list(spec["columns"]), [tuple(row) for row in spec["rows"]], ["" for _ in spec["columns"]])


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((FIXTURES / f"{name}.yaml").read_text(encoding="utf-8"))
    return data


def subject(question: str, result: Rows) -> Subject:
    vocabulary = default_vocabulary()
    return Subject(read(question, extract_constraints(question, vocabulary), vocabulary), result, "market")


CASES = [
    pytest.param(rule, case, id=f"{rule}: {case['name']}")
    for rule in BUILDERS
    for case in load(rule)["cases"]
]


def test_every_rule_has_a_fixture_file() -> None:
    assert {path.stem for path in FIXTURES.glob("*.yaml")} == {*BUILDERS, "reading"}


@pytest.mark.parametrize(("rule", "case"), CASES)
def test_rule_fixture(rule: str, case: dict[str, Any]) -> None:
    r0 = rows(case["result"])
    checks = BUILDERS[rule](subject(case["question"], r0))
    expected = case["checks"]
    assert len(checks) == len(expected), [check.sql for check in checks]
    for check, wanted in zip(checks, expected, strict=True):
        assert check.rule.startswith(rule)
        assert check.text and check.criterion
        for piece in wanted.get("sql_contains", []):
            assert piece in check.sql, check.sql
        for piece in wanted.get("sql_lacks", []):
            assert piece not in check.sql, check.sql
        for decision in wanted.get("decide", []):
            assert check.decide(r0, rows(decision["own"])).verdict == decision["verdict"], decision
        if "point" in wanted:
            assert check.point == wanted["point"]


@pytest.mark.parametrize("case", load("reading")["cases"], ids=lambda case: case["question"])
def test_reading_fixture(case: dict[str, Any]) -> None:
    vocabulary = default_vocabulary()
    reading = read(case["question"], extract_constraints(case["question"], vocabulary), vocabulary)
    assert (reading.clean, reading.complete) == (case["clean"], case["complete"]), reading.gaps
    if "filters" in case:
        shown = [f"{f.column}{'>' if f.above else '<'}{f.value:.12g}" for f in reading.filters]
        assert shown == case["filters"]
    if "scopes" in case:
        shown = [f"{'!' if s.negated else ''}{s.column}:{','.join(s.values)}" for s in reading.scopes]
        assert shown == case["scopes"]


def test_texts_are_in_the_question_language() -> None:
    r0 = rows({"columns": ["ts_code"], "rows": [["600036.SH"]]})
    [zh] = filter_violation.build(subject("最新市净率低于1的银行股", r0))
    [en] = filter_violation.build(subject("Which CSI 500 constituents have a PB below 1?", r0))
    assert "有没有" in zh.text and "反查" in zh.criterion
    assert en.text.startswith("Does any returned stock") and en.criterion.startswith("the reverse query")
