"""English word order put in the order the rules read: a verb before its object ("grew revenue more
than 50%", "cut net profit") says the same as the figure before its verb ("revenue grew more than
50%"), which the comparison rules already read — a company grows its revenue, a price does not."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

# the up/down words that take an object (grew revenue), not comparatives (higher net profit) nor
# moves of a price (rose, fell)
TRANSITIVE = {"grew", "grow", "grows", "growing", "grown", "increased", "increase", "increases", "increasing",
              "decreased", "decrease", "decreases", "decreasing"}  # fmt: skip
# what may stand before the verb: never a figure (revenue grew: already in order)
FIGURE_KINDS = {"metric", "aggmetric", "change_word"}


def verb_before_figure(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """grew/increased + a report figure → the figure + the verb (the company is its subject)."""
    if tokens[i].text not in TRANSITIVE or kind_at(tokens, i - 1) in FIGURE_KINDS:
        return None
    if kind_at(tokens, i + 1) != "metric" or model.metrics[str(tokens[i + 1].value)].kind != "report":
        return None
    return 2, [tokens[i + 1], tokens[i]]


def by_amount(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """grew by more than 50%, fell by 3%: 'by' between a move and its size only introduces the size."""
    between = kind_at(tokens, i - 1) in {"up", "down"} and kind_at(tokens, i + 1) in {"cmp", "number"}
    return (1, []) if tokens[i].kind == "per" and tokens[i].text == "by" and between else None


# what may stand between "how much did" and the verb: whose move is asked (BYD, banks, SSE stocks)
ASKED_OF = {"stock", "industry", "group", "index", "exchange", "board", "area", "count_unit", "constituent",
            "to", "per"}  # fmt: skip  # CATL and BYD each


def how_much_moved(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """how much did BYD gain between A and B / how much has Moutai fallen this year: the change
    itself is asked (BYD's gain between A and B), read where the verb was. With no verb of movement
    after it, 'how much' is left to refuse."""
    if tokens[i].kind != "how_much":
        return None
    j = i + 1
    while kind_at(tokens, j) in ASKED_OF:
        j += 1
    if _is_metric(tokens, j, "pct_chg") or kind_at(tokens, j) == "change_word":  # how much did BYD gain
        return 1, []
    figure = kind_at(tokens, j) == "metric" and kind_at(tokens, j + 1) not in {"up", "down", "moved"}
    if figure and kind_at(tokens, i + 1) == "stock":  # how much did CATL earn in Q3: its figure, shown
        return 1, []
    if kind_at(tokens, j) == "moved":  # how much have CATL and BYD moved: the signed change over the window
        change = Token("change_word", "gain", tokens[j].text, tokens[j].start)
        return j + 1 - i, [*tokens[i + 1 : j], change]
    price = _is_metric(tokens, j, "close") and kind_at(tokens, j + 1) in {"up", "down"}  # its price rise
    if kind_at(tokens, j + price) not in {"up", "down"}:
        return None
    change = Token("change_word", "gain", tokens[j + price].text, tokens[j].start)
    return j + price + 1 - i, [*tokens[i + 1 : j], change]


def _is_metric(tokens: list[Token], j: int, metric: str) -> bool:
    return kind_at(tokens, j) == "metric" and tokens[j].value == metric
