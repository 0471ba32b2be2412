"""A direction said after its ranking (banks ranked by net profit growth, lowest first / 按净利润增速排名，
从低到高): the order of that ranking. Said against a direction the ranking already said in words
(涨幅最大的10只，从小到大排: the 10 picked one way, shown the other), it is refused, never dropped;
said the same way (跌幅最大的10只，从大到小排: the largest falls first) it only repeats the ranking."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import Order
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood

FLIPPED = {"desc": "asc", "asc": "desc"}


def direction_after_ranking(ranking: Token, direction: Token) -> Order:
    """The ranking's Order read with the later direction. `said_direction` is the direction the
    ranking's own words gave the figure they name (None: 按…排名 gave none, read as highest first);
    rankings built without it are taken at their Order's own direction."""
    order: Order = ranking.value
    said = ranking.extra.get("said_direction", order.direction)
    if direction.value == (said or "desc"):
        return order
    if said is None:  # the figure as named, the other way: 按跌幅排名，从小到大 = the smallest falls first
        return replace(order, direction=FLIPPED[order.direction])
    raise NotUnderstood(
        f"could not place: '{direction.text}' (a direction against the ranking's own '{ranking.text}': "
        "the rows picked one way and shown the other are not read)"
    )
