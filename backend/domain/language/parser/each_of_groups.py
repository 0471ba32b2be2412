"""'each' said of several groups listed (CSI 300 and SSE 50 members each gain on average …) asks one answer
per group; a screen that neither groups nor aggregates lists every stock instead, so such a question is
refused naming 'each' (the Chinese 平均各涨了多少 is read per group by each_after_aggregate.py).
"""

from __future__ import annotations

from backend.domain.language.ir import Scope, Screen
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.composition import LIST_DIMENSIONS
from backend.domain.language.parser.errors import NotUnderstood


def each_words(tokens: list[Token]) -> list[str]:
    return [t.text for t in tokens if t.kind in {"per", "quantifier"} and t.text == "each"]


def refuse_each_group_listed_per_stock(words: list[str], screen: Screen) -> None:
    several_groups = any(
        isinstance(c, Scope) and c.kind in LIST_DIMENSIONS and len(c.values) > 1 for c in screen.where
    )
    if words and several_groups and screen.group_by is None and not screen.aggregates:
        said = ", ".join(f"'{word}'" for word in words)
        raise NotUnderstood(f"could not place: {said} (one answer per group listed: no rule reads it)")
