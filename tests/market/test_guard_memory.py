"""The guard's memory of passed texts: the same text is not parsed twice, a refusal is judged every
time, and the memory stays within its bound."""

from __future__ import annotations

import pytest

from backend.domain.market import guard
from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import PassedTexts, forget_passed, require_read_only

READ = "SELECT ts_code FROM market.stock_basic WHERE ts_code IN ('600519.SH', '000001.SZ')"
ATTACK = "SELECT file('/etc/passwd')"


def test_a_passed_text_is_not_parsed_again(tokenized: list[str]) -> None:
    require_read_only(READ)
    require_read_only(READ)
    assert tokenized == [READ]


def test_a_text_checked_for_its_tree_is_remembered_too(tokenized: list[str]) -> None:
    guard.check_read_only(READ)
    require_read_only(READ)
    assert tokenized == [READ]


def test_a_refusal_is_judged_every_time_with_the_same_reason(tokenized: list[str]) -> None:
    reasons = []
    for _ in range(2):
        with pytest.raises(QueryRejected) as refusal:
            require_read_only(ATTACK)
        reasons.append(str(refusal.value))
    assert tokenized == [ATTACK, ATTACK]
    assert reasons[0] == reasons[1] and "file" in reasons[0]


def test_only_the_exact_text_is_remembered(tokenized: list[str]) -> None:
    require_read_only(READ)
    require_read_only(READ + " ")
    assert tokenized == [READ, READ + " "]


def test_forgetting_judges_afresh(tokenized: list[str]) -> None:
    require_read_only(READ)
    forget_passed()
    require_read_only(READ)
    assert tokenized == [READ, READ]


def test_the_least_recently_used_text_goes_first_once_over_the_bound() -> None:
    memory = PassedTexts(max_chars=10)
    memory.add("aaaa")
    memory.add("bbbb")
    assert "aaaa" in memory  # used: now the most recent
    memory.add("cccc")  # 12 characters: one text must go
    assert "bbbb" not in memory
    assert "aaaa" in memory and "cccc" in memory
    memory.add("x" * 11)  # longer than the bound alone: not kept, nothing evicted for it
    assert "x" * 11 not in memory and "aaaa" in memory
