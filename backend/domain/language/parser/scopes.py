"""Entity scopes: exchanges, boards, industries, industry groups, areas, indexes and single stocks.

Three passes, in this order: each scope word becomes a `scope` token; runs such as 银行和证券 merge
into one scope with several values; then every scope becomes a condition (negated after 非/not).
"""

from __future__ import annotations

from collections.abc import Iterable

from backend.domain.language.ir import Not, Scope
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

SCOPE_KINDS = {"exchange": "exchange", "board": "board", "industry": "industry", "group": "group",
               "index": "index", "stock": "stock", "area": "area"}  # fmt: skip
# the dimension word that may follow a scope of that kind and only repeats it ("Shanghai exchange")
OWN_DIMENSION = {"exchange": "exchange", "board": "market", "industry": "industry", "group": "industry",
                 "area": "area"}  # fmt: skip


def scope(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind not in SCOPE_KINDS:
        return None
    used = 1
    if token.kind == "index" and kind_at(tokens, i + 1) == "constituent":
        used = 2
    grouped = kind_at(tokens, i - 1) == "per"  # "in each new-energy industry" keeps its grouping word
    if (
        not grouped
        and kind_at(tokens, i + 1) == "dim"
        and tokens[i + 1].value == OWN_DIMENSION.get(token.kind)
    ):
        used = 2  # "Shanghai exchange", "银行 行业"
    found = Scope(SCOPE_KINDS[token.kind], values=(str(token.value),))
    return used, [synthetic("scope", found, tokens[i : i + used])]


def scope_lists(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """银行和证券 / SSE or SZSE → one scope with several values."""
    if tokens[i].kind != "scope":
        return None
    merged: Scope = tokens[i].value
    j = i + 1
    values = list(merged.values)
    while True:
        joined = kind_at(tokens, j) in {"and", "or", "to"} and kind_at(tokens, j + 1) == "scope"
        if not joined and not (kind_at(tokens, j) == "scope" and merged.kind == "exchange"):  # 沪深北
            break
        other: Scope = tokens[j + joined].value
        compatible = {merged.kind, other.kind} <= {"industry", "group"} or other.kind == merged.kind
        if not compatible:
            break
        j += joined
        if other.kind != merged.kind:
            # an industry and a group of industries: one list of industries
            values = list(_industries_of(model, merged.kind, values)) + list(
                _industries_of(model, other.kind, other.values)
            )
            merged = Scope("industry", values=tuple(values))
        else:
            values.extend(other.values)
            merged = Scope(merged.kind, values=tuple(values))
        j += 1
    if j == i + 1:
        return None
    return j - i, [synthetic("scope", merged, tokens[i:j])]


def scope_conditions(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """A scope becomes a condition; `scope=True` keeps it AND-ed at the top level by the assembly."""
    if tokens[i].kind == "not" and kind_at(tokens, i + 1) == "scope":
        return 2, [synthetic("cond", Not(tokens[i + 1].value), tokens[i : i + 2])]
    if tokens[i].kind == "scope":
        return 1, [synthetic("cond", tokens[i].value, tokens[i : i + 1], scope=True)]
    return None


def _industries_of(model: SemanticModel, kind: str, values: Iterable[str]) -> tuple[str, ...]:
    if kind == "group":
        return tuple(name for value in values for name in model.industry_groups[value].industries)
    return tuple(values)
