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


def shared_average_word(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """below the 200-day but above the 50-day moving average: two averages compared in one breath,
    the word for a moving average said once, after the second; the first takes it too."""
    first = kind_at(tokens, i) == "cmp" and _plain_number(tokens, i + 1) and _days(tokens, i + 2)
    joined = kind_at(tokens, i + 3) == "and" and kind_at(tokens, i + 4) == "cmp"
    second = joined and _plain_number(tokens, i + 5)
    said_at = i + 6 + _days(tokens, i + 6)  # the 50-day moving average / the 50-day MA (day MA one word)
    if not (first and second and kind_at(tokens, said_at) == "ma"):
        return None
    said = tokens[said_at]
    return 3, [*tokens[i : i + 3], Token("ma", said.value, said.text, tokens[i + 2].start)]


def average_word_said_first(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """below their 60-day moving average but above their 20-day: the word for a moving average said
    after the first only; the second N-day, ending the question or its clause, takes it too."""
    sides = {"cmp", "stand_above"}  # trading above / 站上 the first average
    first = kind_at(tokens, i) in sides and _plain_number(tokens, i + 1) and kind_at(tokens, i + 2) == "ma"
    joined = kind_at(tokens, i + 3) == "and" and kind_at(tokens, i + 4) in sides
    second = joined and _plain_number(tokens, i + 5) and _days(tokens, i + 6)
    if not (first and second and kind_at(tokens, i + 7) in CLAUSE_ENDS):
        return None
    said = tokens[i + 2]
    return 7, [*tokens[i : i + 7], Token("ma", said.value, said.text, tokens[i + 6].start)]


# what may follow an N-day whose measure is elided: the question's end or the next clause
CLAUSE_ENDS = {"", "and", "time"}


def _plain_number(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "number" and not tokens[j].extra.get("unit")


def _days(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "tunit" and tokens[j].value in {"day", "trading_day"}


# the words for trading that name the volume until a basis is said (most traded stocks by value)
TRADE_WORDS = {"traded", "actively traded", "heavily traded"}
# what may stand between the word for trading and its basis: whose trading (the most traded banks by value)
TRADED_OF = {"count_unit", "industry", "group", "index", "exchange", "board", "area", "constituent"}


def traded_by(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """most traded stocks by value / the most traded banks by traded value / by volume: the basis said
    after the word for trading is the measure traded (the traded value, the volume), read where the
    word for trading was; never a ranking by one measure filtered by another."""
    if kind_at(tokens, i) != "metric" or tokens[i].text not in TRADE_WORDS:
        return None
    j = i + 1
    while kind_at(tokens, j) in TRADED_OF:
        j += 1
    if kind_at(tokens, j) == "traded_by":
        basis, end = str(tokens[j].value), j + 1
    elif kind_at(tokens, j) == "per" and tokens[j].text == "by" and traded_flow(model, tokens, j + 1):
        basis, end = str(tokens[j + 1].value), j + 2
    else:
        return None
    said = " ".join(token.text for token in (tokens[i], *tokens[j:end]))
    measure = Token("metric", basis, said, tokens[i].start)
    return end - i, [measure, *tokens[i + 1 : j]]


# what may stand between "how much did" and the verb: whose move is asked (BYD, banks, SSE stocks)
ASKED_OF = {"stock", "industry", "group", "index", "exchange", "board", "area", "count_unit", "constituent",
            "to", "per"}  # fmt: skip  # CATL and BYD each


def how_much_moved(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """how much did BYD gain between A and B / how much has Moutai fallen this year: the change
    itself is asked (BYD's gain between A and B), read where the verb was. With no verb of movement
    after it, 'how much' is left to refuse."""
    if tokens[i].kind != "how_much":
        return None
    if traded_flow(model, tokens, i + 1) and kind_at(tokens, i + 2) not in {"up", "down", "moved"}:
        # how much money traded hands today / how much volume did banks trade: the flow's total
        return 1, [Token("agg", "sum", tokens[i].text, tokens[i].start)]
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


# a price said as a verb (trading at …): its object, when a valuation multiple, is what is compared
PRICED_AT = {"trading at", "priced at"}
GROUP_AVERAGE_WORDS = {"own", "dim", "agg"}  # their industry's average …


def priced_at_multiple(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """trading at less than half their industry's average trailing P/E: the P/E compared with that
    average (a multiple of a group's average valuation), not the price."""
    if kind_at(tokens, i) != "metric" or tokens[i].text not in PRICED_AT or kind_at(tokens, i + 1) != "cmp":
        return None
    said = tokens[i + 2] if kind_at(tokens, i + 2) in {"fraction", "twice", "number"} else None
    if said is None or (said.kind == "number" and said.extra.get("unit") != "times"):
        return None
    k = i + 3
    while kind_at(tokens, k) in GROUP_AVERAGE_WORDS:
        k += 1
    averaged = any(token.kind == "agg" and token.value == "avg" for token in tokens[i + 3 : k])
    if not averaged or kind_at(tokens, k) != "metric":
        return None
    multiple = model.metrics.get(str(tokens[k].value))
    if multiple is None or multiple.input_unit.name != "倍":
        return None
    return 1, [Token("metric", multiple.key, tokens[i].text, tokens[i].start)]


def averaged_move(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """the average [daily] move of banks: an average of the signed change, the change itself (a move
    compared alone, moved more than 5%, may be either way, and is left to refuse)."""
    if kind_at(tokens, i) != "agg" or tokens[i].value != "avg":
        return None
    j = i + 1 + (kind_at(tokens, i + 1) == "daily_values")
    if kind_at(tokens, j) != "moved":
        return None
    change = Token("change_word", "gain", tokens[j].text, tokens[j].start)
    return j + 1 - i, [*tokens[i:j], change]


def averaged_most_per_day(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[industries that] averaged the most traded value per day: the superlative of the average daily
    flow, said as 'the highest average daily traded value' is (a flow alone: per day says its days)."""
    if kind_at(tokens, i) != "agg" or tokens[i].value != "avg" or kind_at(tokens, i + 1) != "super":
        return None
    if not traded_flow(model, tokens, i + 2) or kind_at(tokens, i + 3) != "per_day":
        return None
    daily = Token("daily_values", "daily", tokens[i + 3].text, tokens[i + 3].start)
    return 4, [tokens[i + 1], tokens[i], daily, tokens[i + 2]]


# "a day" / "per day" after an averaged figure: each day's value averaged, as the average says
PER_DAY_SAID = {"day", "per day", "a day"}


def averaging_amount(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """averaging more than 10% turnover [a day]: the amount said between the verb of averaging and its
    figure is the figure's average compared (average turnover above 10%); "a day" restates that the
    days' values are averaged."""
    if kind_at(tokens, i) != "agg" or tokens[i].value != "avg" or not tokens[i].text.startswith("averag"):
        return None
    if [kind_at(tokens, i + k) for k in (1, 2, 3)] != ["cmp", "number", "metric"]:
        return None
    end = i + 4 + (0 <= i + 4 < len(tokens) and tokens[i + 4].text in PER_DAY_SAID)
    return end - i, [tokens[i], tokens[i + 3], tokens[i + 1], tokens[i + 2]]


def traded_flow(model: SemanticModel, tokens: list[Token], j: int) -> bool:
    """A day's traded flow (the traded value, the volume), which adds up over stocks and days."""
    if kind_at(tokens, j) != "metric":
        return False
    metric = model.metrics.get(str(tokens[j].value))
    return metric is not None and metric.table == "daily" and metric.unit_kind in {"money", "shares"}


def _is_metric(tokens: list[Token], j: int, metric: str) -> bool:
    return kind_at(tokens, j) == "metric" and tokens[j].value == metric
