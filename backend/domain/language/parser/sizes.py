"""A size said with its own threshold: "small caps under 3 billion", "large caps with a market cap
above 100 billion". The number states the size, so the adjective only restates it; said with no
threshold ("small caps with ROE above 15%") the size has no definition and is left for the
leftovers to refuse, naming it."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

# the market values a "cap" may mean
CAP_METRICS = {"total_mv", "circ_mv"}
# what a threshold starts with
THRESHOLD_KINDS = {"cmp", "between"}


def cap_size(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """size word + cap + threshold → the cap and its threshold; size word + cap + [and/with] + the same
    cap + threshold (small caps with a market cap under 3 billion, large caps (market cap over 100bn))
    → the second cap's threshold."""
    if tokens[i].kind != "cap_size" or not _is_cap(tokens, i + 1):
        return None
    if kind_at(tokens, i + 2) in THRESHOLD_KINDS:
        return 2, [tokens[i + 1]]
    joined = kind_at(tokens, i + 2) == "and"  # large caps (market cap over 100bn): brackets are filler
    if _is_cap(tokens, i + 2 + joined) and kind_at(tokens, i + 3 + joined) in THRESHOLD_KINDS:
        return 3 + joined, [tokens[i + 2 + joined]]
    return None


def _is_cap(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "metric" and tokens[j].value in CAP_METRICS
