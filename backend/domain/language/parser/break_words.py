"""破 / 跌破 / 突破 + a number: the side of the number a figure breaks to.

跌破10元 / fell below 10 is below it and 突破100元 / broke above 100 above it, said by the verb. A bare
破 has no side of its own: 市净率破1 (a valuation multiple breaks down, as 破净 does) is below it,
营收破千亿 (a milestone said by its magnitude) above it; any other bare 破 (股价破10元) is not read.
"""

from __future__ import annotations

from backend.domain.language.lexicon import Token

BREAK_DOWN = {
    "跌破",
    "跌穿",
    "跌破了",
    "broke below",
    "fell below",
    "falls below",
    "dropped below",
    "drops below",
}
BREAK_UP = {
    "突破",
    "突破了",
    "升破",
    "涨破",
    "broke above",
    "broke through",
    "breaks above",
    "breaks through",
}
BARE_BREAK = "破"
# the valuation multiples that 破 breaks downwards (市盈率破10, 市净率破1), as 破净 is below book
VALUATION_MULTIPLES = {"pe", "pe_ttm", "pb", "ps", "ps_ttm"}


def break_operator(word: Token, metric_key: str, number: Token) -> str | None:
    """The operator a break word before a number says of the figure; None when the side is unsaid."""
    if word.text in BREAK_DOWN:
        return "<"
    if word.text in BREAK_UP:
        return ">"
    if word.text != BARE_BREAK:
        return None
    if metric_key in VALUATION_MULTIPLES:
        return "<"
    if number.extra.get("scaled"):  # 破千亿, 破百亿: a magnitude reached
        return ">"
    return None


def is_break_word(word: Token) -> bool:
    """破 / 跌破 / 突破 …: a word whose side is judged by break_operator, never by its lexicon kind."""
    return word.text in BREAK_DOWN | BREAK_UP | {BARE_BREAK}
