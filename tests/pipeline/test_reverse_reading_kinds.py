"""Every checklist kind is classified by the reverse reading: a point of the SQL tree alone, a
condition the reading restates, or one it cannot (a gap that leaves the reverse checks to the tree
checks). A kind added without a class would fall to the gap branch and switch the reverse checks off
for every question naming it, unnoticed; these tests make the classification total and hold the
reading to it on every kind's fixture questions."""

from __future__ import annotations

import pytest

from backend.domain.pipeline.validate.checklist import Kind, default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.reverse.reading import READ_KINDS, TREE_ONLY_KINDS, UNREAD_KINDS, read
from tests.pipeline.checklist_support import kind_files, load

CLASSES = {"tree only": TREE_ONLY_KINDS, "read": READ_KINDS, "unread": UNREAD_KINDS}
QUESTIONS = [
    pytest.param(Kind(data["kind"]), case["question"], id=f"{data['kind']}-{number}")
    for data in (load(path) for path in kind_files())
    for number, case in enumerate(data["extract"], start=1)
    if case["expect"]
]


def test_every_kind_is_in_exactly_one_class() -> None:
    unclassified = set(Kind) - TREE_ONLY_KINDS - READ_KINDS - UNREAD_KINDS
    assert not unclassified, f"classify these kinds in reverse/reading.py: {sorted(unclassified)}"
    for name, kinds in CLASSES.items():
        for other, others in CLASSES.items():
            if name < other:
                assert not kinds & others, f"both {name} and {other}: {sorted(kinds & others)}"


def _unread_gap(kind: Kind) -> str:
    return f"a {kind.value} constraint the reverse checks do not read"


@pytest.mark.parametrize(("kind", "question"), QUESTIONS)
def test_the_reading_follows_the_class(kind: Kind, question: str) -> None:
    vocabulary = default_vocabulary()
    constraints = [c for c in extract_constraints(question, vocabulary) if c.kind is kind]
    assert constraints, question
    gaps = read(question, constraints, vocabulary).gaps
    said = any(gap.startswith(_unread_gap(kind)) for gap in gaps)
    if kind in UNREAD_KINDS:
        assert said, gaps
    elif kind is Kind.ANNUAL_REPORT:
        return  # read when a date names the period (not among these constraints alone): a gap otherwise
    else:
        assert not said, gaps
