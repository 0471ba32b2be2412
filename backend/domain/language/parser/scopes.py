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


# 剔除…后 / 除去…之后: the word closing an exclusion (after the excluded list, before the rest)
CLOSING_AFTER = {"后", "之后", "以后"}


def scope(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind == "area_marker" and _area_named(tokens, i + 1) is not None:
        # registered in Zhejiang / 注册地在上海: the region of registration, even where the word
        # names an exchange first (上海, 深圳)
        found_area = Scope("area", values=(str(_area_named(tokens, i + 1)),))
        return 2, [synthetic("scope", found_area, tokens[i : i + 2])]
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


def _area_named(tokens: list[Token], i: int) -> str | None:
    """The area a word names, as its first or its other reading (上海 is the exchange first)."""
    if kind_at(tokens, i) == "area":
        return str(tokens[i].value)
    if not 0 <= i < len(tokens):
        return None
    areas = [str(entry.value) for entry in tokens[i].extra.get("alts", ()) if entry.kind == "area"]
    return areas[0] if areas else None


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
        # 剔除银行、证券后: the 后 closing the excluded list only says the rest is what remains
        used = 2 + (kind_at(tokens, i + 2) in {"after", "bottom"} and tokens[i + 2].text in CLOSING_AFTER)
        return used, [synthetic("cond", Not(tokens[i + 1].value), tokens[i : i + used])]
    if tokens[i].kind == "scope":
        return 1, [synthetic("cond", tokens[i].value, tokens[i : i + 1], scope=True)]
    return None


def _industries_of(model: SemanticModel, kind: str, values: Iterable[str]) -> tuple[str, ...]:
    if kind == "group":
        return tuple(name for value in values for name in model.industry_groups[value].industries)
    return tuple(values)
