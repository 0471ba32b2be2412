"""Conditions said in one word (破净, 阳线, below book value): the catalogue's phrase concepts → `cond`.

The words and each concept's definition (a QST condition node) live in catalogue/*.yaml, so a new
one-word condition is a data change, not a new rule.
"""

from __future__ import annotations

from backend.domain.language.catalogue import default_catalogue
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, synthetic
from backend.domain.language.qst import condition_from_node
from backend.domain.language.semantic import SemanticModel


def concepts(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    if tokens[i].kind != "concept":
        return None
    definition = default_catalogue().by_key(str(tokens[i].value)).definition
    return 1, [synthetic("cond", condition_from_node(definition), tokens[i : i + 1])]
