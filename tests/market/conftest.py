"""Fixtures shared by the store's guard tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from backend.domain.market import guard
from backend.domain.market.guard import forget_passed


@pytest.fixture
def tokenized(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts the guard tokenized (each full check starts there), from an empty memory."""
    seen: list[str] = []
    tokenize = guard._tokenize

    def counting(sql: str) -> list[guard.Token]:
        seen.append(sql)
        return tokenize(sql)

    monkeypatch.setattr(guard, "_tokenize", counting)
    forget_passed()
    yield seen
    forget_passed()
