"""一共成交了多少亿 / 成交额总共多少: a word for "in total" (一共, 总共, 共计; filler elsewhere:
一共有多少只) said beside a day's traded flow (the traded value, the volume) that the question asks
for is its sum over the question's stocks (one row), never each stock's value listed. The words are
filler, so the phrase is read before filler is dropped; anywhere else they stay filler.
"""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.parser.word_order import traded_flow
from backend.domain.language.semantic import SemanticModel

TOTAL_WORDS = {"一共", "总共", "共计", "总计"}
ASKED_WORDS = {"多少", "几何"}  # the figure asked: 成交了多少 (a unit after it is `out_unit`: 多少亿)


def totals_asked(model: SemanticModel, tokens: list[Token]) -> list[Token]:
    """The tokens (filler still in) with a total word beside an asked traded flow made `agg` sum."""
    return [_total_at(model, tokens, k) or token for k, token in enumerate(tokens)]


def _total_at(model: SemanticModel, tokens: list[Token], k: int) -> Token | None:
    token = tokens[k]
    if token.kind != "filler" or token.text not in TOTAL_WORDS:
        return None
    before, after = _said(tokens, k, -1), _said(tokens, k, 1)
    if after is not None and traded_flow(model, tokens, after) and _asked_at(tokens, _said(tokens, after, 1)):
        return Token("agg", "sum", token.text, token.start)  # 一共成交了多少亿
    if before is not None and traded_flow(model, tokens, before) and _asked_at(tokens, after):
        return Token("agg", "sum", token.text, token.start)  # 成交额一共多少亿
    return None


def _said(tokens: list[Token], k: int, step: int) -> int | None:
    """The index of the next word that is not filler from k in the direction of step, if any."""
    j = k + step
    while 0 <= j < len(tokens) and tokens[j].kind == "filler":
        j += step
    return j if 0 <= j < len(tokens) else None


def _asked_at(tokens: list[Token], j: int | None) -> bool:
    """The figure is what is asked: a unit to show it in (多少亿) or 多少, or nothing after it."""
    if j is None:
        return True
    return tokens[j].kind == "out_unit" or (tokens[j].kind == "agg" and tokens[j].text in ASKED_WORDS)


def total_after_group_ranking(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """industries that earned the most in total / 合计: after groups ranked by a money or share amount,
    the total said again is the groups' sum (what such a ranking reads anyway); of any other figure (a
    ratio has no total) it is left to refuse."""
    order = tokens[i].value if tokens[i].kind == "orderspec" else None
    at = i + 1 + (kind_at(tokens, i + 1) == "and")  # 净利润最高，合计多少亿
    said = kind_at(tokens, at) == "agg" and tokens[at].value == "sum"
    grouped = any(token.kind == "dim" for token in tokens[:i])
    if order is None or not said or not grouped or order.metric not in model.metrics:
        return None
    if model.metrics[order.metric].unit_kind not in {"money", "shares"}:
        return None
    summed = replace(order, metric=f"agg:sum:{order.metric}")
    return at + 1 - i, [replace(tokens[i], value=summed, text=f"{tokens[i].text} {tokens[at].text}")]
