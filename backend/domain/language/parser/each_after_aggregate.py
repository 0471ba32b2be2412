"""An aggregate said before 各 (沪深300和中证500的成分股平均各涨了多少: the average, each index's): 各 belongs
to the groups said before it, whatever word stands between, so it is put where the grouping rules read it,
before the aggregate (各平均涨了多少, 平均 + 各 + the figure read as 各 + 平均 + the figure).

Only 各 said right between an aggregate and its figure moves; 各 elsewhere is read where it stands, and a
count (平均各有多少只) is no aggregate of a figure and is left alone.
"""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

EACH = {"各"}
# what the aggregate may take: a figure, or a move said as a word (涨了多少)
FIGURE_KINDS = {"metric", "change_word"}


def each_after_aggregate(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """agg + 各 + a figure → 各 + agg + the figure."""
    token = tokens[i]
    if token.kind != "agg" or token.value == "count":
        return None
    if kind_at(tokens, i + 1) != "per" or tokens[i + 1].text not in EACH:
        return None
    if kind_at(tokens, i + 2) not in FIGURE_KINDS:
        return None
    return 2, [tokens[i + 1], token]
