"""Each constraint kind against its fixture file: question → constraints read, (question, candidate
SQL) → one verdict per constraint of the kind (tests/pipeline/fixtures/checklist/<kind>.yaml)."""

from __future__ import annotations

from typing import Any

import pytest

from backend.domain.pipeline.validate.checklist import Kind, check_sql
from tests.pipeline.checklist_support import constraints_of, field, kind_files, load, same, verdict_label

FILES = {Kind(load(path)["kind"]): load(path) for path in kind_files()}
EXTRACT = [
    pytest.param(kind, case, id=f"{kind.value}-read-{number}")
    for kind, data in FILES.items()
    for number, case in enumerate(data["extract"], start=1)
]
CHECK = [
    pytest.param(kind, case, id=f"{kind.value}-check-{number}")
    for kind, data in FILES.items()
    for number, case in enumerate(data["check"], start=1)
]


def test_every_kind_has_a_fixture_file_with_passes_and_failures() -> None:
    assert set(FILES) == set(Kind)
    for kind, data in FILES.items():
        labels = [label for case in data["check"] for label in case["verdicts"]]
        assert any(label == "pass" for label in labels), kind
        assert any(label.startswith("fail/") for label in labels), kind
        assert any(not case["expect"] for case in data["extract"]), f"{kind}: no question without the kind"


@pytest.mark.parametrize(("kind", "case"), EXTRACT)
def test_constraints_read_from_the_question(kind: Kind, case: dict[str, Any]) -> None:
    found = constraints_of(case["question"], kind)
    assert len(found) == len(case["expect"]), [c.text for c in found]
    for constraint, expected in zip(found, case["expect"], strict=True):
        for name, value in expected.items():
            assert same(field(constraint, name), value), (name, field(constraint, name), value)
        # Every constraint says where it came from and what it asks, in the question's language.
        assert constraint.span.text and constraint.span.text in case["question"]
        assert constraint.text


@pytest.mark.parametrize(("kind", "case"), CHECK)
def test_verdicts_on_candidate_sql(kind: Kind, case: dict[str, Any]) -> None:
    constraints = constraints_of(case["question"], kind)
    verdicts = check_sql(constraints, case["sql"])
    assert verdict_label(verdicts[0]) == "pass", verdicts[0].reason
    labels = [verdict_label(verdict) for verdict in verdicts[1:]]
    assert labels == case["verdicts"], [verdict.reason for verdict in verdicts[1:]]
    assert all(verdict.reason for verdict in verdicts)
    if "reasons" in case:  # what a verdict must say, one text per verdict after the syntax level's
        for verdict, said in zip(verdicts[1:], case["reasons"], strict=True):
            assert said in verdict.reason, verdict.reason
