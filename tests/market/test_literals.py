"""String values written as ClickHouse literals: a whole list at once, exactly as one by one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.domain.market.literals import string_list, string_literal


@pytest.mark.parametrize(
    "values",
    [["600519.SH"], ["600519.SH", "000001.SZ", "830799.BJ"], ["O'Neil", "back\\slash", "中文", ""]],
)
def test_a_list_is_its_literals_joined(values: list[str]) -> None:
    assert string_list(values) == "(" + ", ".join(string_literal(value) for value in values) + ")"


def test_quotes_are_escaped() -> None:
    assert string_literal("O'Neil") in {"'O\\'Neil'", "'O''Neil'"}


@given(st.lists(st.one_of(st.from_regex(r"[A-Za-z0-9._-]*", fullmatch=True), st.text(max_size=6))))
def test_plain_values_are_written_as_the_generator_writes_them(values: list[str]) -> None:
    assert string_list(values) == "(" + ", ".join(string_literal(value) for value in values) + ")"
