"""Nothing silently ignored, for scopes: a scope read but lost by a later pass refuses the question."""

from __future__ import annotations

import pytest

from backend.domain.language.ir import Compare, Not, Scope, Screen
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.kept_scopes import refuse_dropped_scopes, scopes_read

BOARD = Scope("board", values=("科创板",))


def _read(value: object, text: str = "star market") -> list[tuple[Token, Scope]]:
    return scopes_read([Token("cond", value, text, 0, {"scope": True})])


def test_a_scope_kept_in_the_screen_passes() -> None:
    refuse_dropped_scopes(_read(BOARD), Screen(where=[BOARD]))


def test_a_negated_scope_kept_inside_a_not_passes() -> None:
    refuse_dropped_scopes(_read(Not(BOARD)), Screen(where=[Not(BOARD)]))


def test_a_dropped_scope_refuses_naming_its_words() -> None:
    with pytest.raises(NotUnderstood, match="star market"):
        refuse_dropped_scopes(_read(BOARD), Screen(where=[Compare("pe", "<", 10.0)]))


def test_listing_dates_are_not_entity_scopes() -> None:
    assert _read(Scope("list_date", op=">=")) == []
