"""The reverse checks' lists of codes: written value by value exactly as `string_literal` writes one
value, so a hostile value in r0 stays one string literal and a paradigm's filled list slot still matches
the SQL."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from sqlglot import exp

from backend.domain.market.guard import check_read_only
from backend.domain.market.literals import string_literal
from backend.domain.pipeline.validate.reverse.subject import code_list


def _one_by_one(codes: list[str]) -> str:
    return "(" + ", ".join(string_literal(code) for code in codes) + ")"


@given(st.lists(st.text(max_size=12), min_size=1, max_size=8))
def test_a_list_is_its_values_written_one_by_one(codes: list[str]) -> None:
    assert code_list(codes) == _one_by_one(codes)


def test_hostile_values_stay_string_literals() -> None:
    hostile = ["600519.SH", "x') OR 1=1 --", "back\\slash", "line\nbreak", "it's"]
    tree = check_read_only(f"SELECT ts_code FROM market.stock_basic WHERE ts_code IN {code_list(hostile)}")
    assert [node.this for node in tree.find_all(exp.Literal)] == hostile


def test_no_codes_is_a_list_that_matches_nothing() -> None:
    assert code_list([]) == "('')"
