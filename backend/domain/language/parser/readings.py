"""Ranked readings: the places where a question can be read two ways, and which way each reading takes.

The first reading takes the first option everywhere. A rule that meets such a place asks the
`Reading` (`choose`), which records the place; the parser then reads the question again with one
place flipped at a time, in the order of `POINTS`, so the readings come best first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from backend.domain.language.lexicon import Entry, Token

# (place, what the first reading takes / what the flipped one takes), in the order readings are tried
POINTS = (
    "calendar_days",  # 近30天: 30 calendar days / the last 30 trading days
    "static_valuation",  # a P/E below 15: the static figure / the TTM one
    "ranking_scope",  # conditions written after a ranking: by the question's shape / the other way
    "window_average_scope",  # 近10日平均涨幅超过5%的行业: the groups' average / each stock's own average
    "listed_groups",  # 银行、券商和保险的平均股息率: one row per listed group / one row for them all
    "group_average_scope",  # 沪深300里市盈率低于行业平均: the whole industry / its members in the scope
    "entity_sense",  # a word naming two entities (an industry and a group): the first / the other
)
# 近N天 said in these words may mean trading days; 自然日 / calendar days may not
PLAIN_DAY_WORDS = {"天", "日", "day", "days", "d"}
# a valuation word without 静态/static may mean the trailing-twelve-months figure
TTM_OF = {"pe": "pe_ttm", "ps": "ps_ttm", "dv_ratio": "dv_ttm"}
STATIC_WORDS = ("静态", "static")
ENTITY_KINDS = {"industry", "group", "index", "exchange", "board", "stock", "area"}


@dataclass
class Reading:
    """The places flipped in this reading, and the places the question met while being read."""

    flipped: frozenset[str] = frozenset()
    met: list[str] = field(default_factory=list)

    def choose(self, point: str) -> bool:
        """Whether this reading takes the second option at `point` (recording that it was met)."""
        if point not in self.met:
            self.met.append(point)
        return point in self.flipped


def reread_tokens(tokens: list[Token], reading: Reading) -> list[Token]:
    """The word-level places: plain 天 after 近 (trading days?), a valuation without 静态 (TTM?),
    a word with a second entity meaning (its other sense)."""
    return [_reread(tokens, index, reading) for index in range(len(tokens))]


def _reread(tokens: list[Token], index: int, reading: Reading) -> Token:
    token = tokens[index]
    if token.kind == "tunit" and token.value == "day" and token.text in PLAIN_DAY_WORDS:
        recent = index >= 2 and tokens[index - 2].kind == "recent" and tokens[index - 1].kind == "number"
        if recent and reading.choose("calendar_days"):
            return Token("tunit", "trading_day", token.text, token.start, dict(token.extra))
    elif token.kind == "metric" and token.value in TTM_OF and not token.text.startswith(STATIC_WORDS):
        if reading.choose("static_valuation"):
            return Token("metric", TTM_OF[token.value], token.text, token.start, dict(token.extra))
    elif token.kind in ENTITY_KINDS and token.extra.get("alts"):
        other = token.extra["alts"][0]
        if other.kind in ENTITY_KINDS and reading.choose("entity_sense"):
            return Token(
                other.kind, other.value, token.text, token.start, {"alts": [Entry(token.kind, token.value)]}
            )
    return token
