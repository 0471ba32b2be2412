"""哪几个 / 哪些 with a superlative and no number (哪几个行业的净利润加起来最高, 哪些板块成交额最大)
asks for several items but says how many nowhere; no reading convention gives a default count, so the
question is refused naming the word, never answered with the single first item.
"""

from __future__ import annotations

from backend.domain.language.ir import Screen
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood

PLURAL_WHICH = ("哪几", "哪些")


def plural_which_words(tokens: list[Token]) -> tuple[str, ...]:
    """The filler frames asking for several items (有哪几个, 是哪些 …), before the filler is dropped."""
    return tuple(
        t.text for t in tokens if t.kind == "filler" and any(word in t.text for word in PLURAL_WHICH)
    )


def refuse_uncounted_superlative(words: tuple[str, ...], screen: Screen) -> None:
    """A ranking cut to its first item (no number said) under a plural 'which' is refused."""
    if words and screen.order is not None and screen.limit == 1:
        said = ", ".join(f"'{word}'" for word in words)
        raise NotUnderstood(f"could not place: {said} (several items asked by a superlative: say how many)")
