"""Nothing silently ignored, for the stocks a question is about: every entity scope read (a board, an
industry, an index, a named stock…) must reach the screen.

The leftover check sees only tokens no pass used. A pass that uses a scope token inside a longer
phrase (top 10 STAR Market gainers) and builds its meaning without it would answer over the whole
market with nothing left over to refuse. So the scopes present once the scope passes have run are
remembered, and a screen that holds none of a scope's values is refused naming its words.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from backend.domain.language.ir import Not, Scope, Screen
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood

# scope kinds naming the stocks themselves; listing dates and name markers are conditions of their own
ENTITY_KINDS = {"exchange", "board", "industry", "group", "index", "stock", "area"}


def scopes_read(tokens: list[Token]) -> list[tuple[Token, Scope]]:
    """The entity scopes among the tokens (a scope word, its condition or its negation)."""
    found: list[tuple[Token, Scope]] = []
    for token in tokens:
        value = token.value.item if isinstance(token.value, Not) else token.value
        if isinstance(value, Scope) and value.kind in ENTITY_KINDS:
            found.append((token, value))
    return found


def refuse_dropped_scopes(read: list[tuple[Token, Scope]], screen: Screen) -> None:
    """Refuse the screen when a scope read earlier has none of its values anywhere in it."""
    kept = _scope_values(screen)
    dropped = [token.text for token, found in read if not any((found.kind, v) in kept for v in found.values)]
    if dropped:
        words = ", ".join(f"'{text}'" for text in dropped)
        raise NotUnderstood(f"could not place: {words} (read as stocks to keep, but no rule used them)")


def _scope_values(node: Any) -> set[tuple[str, str]]:
    if isinstance(node, Scope):
        return {(node.kind, value) for value in node.values}
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        children: Any = [getattr(node, field.name) for field in dataclasses.fields(node)]
    elif isinstance(node, list | tuple):
        children = node
    else:
        return set()
    found: set[tuple[str, str]] = set()
    for child in children:
        found |= _scope_values(child)
    return found
