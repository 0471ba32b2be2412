"""A screener's label followed by its definition, and a profit said again after a loss.

"High dividend value plays - yield over 5% with PE below 8", "低估值：市盈率低于10": a style word with
no threshold of its own (grammar_words.yaml `undefined`: high dividend, low debt, GARP, turnaround) names
what the conditions after a colon or a spaced dash define. The label is then filler: the definition is
what is screened. Only a label said first (before it nothing but filler and scopes: low debt pharma:,
GARP screen in the CSI 300 -), ended by a colon or a dash, with a comparison after it, is read so; a
style word anywhere else (high dividend stocks with PE below 8, high dividend, PE below 8) still refuses.

A candle or an intraday shape named by a label whose conventions differ (`candle_label`: a hammer,
a doji, 十字星, 锤子线) is filler when the question defines it: after the label (and only a day, a scope
or filler between: 今天收出锤子线的沪深300成分股（…）) a colon, a dash or an opening bracket, then a
measure or a condition (Hammers today: lower wick at least 2x the body…). A label said with no
definition stays and refuses naming it.

"Back in the black" (back to profit) is a profit after a loss: read as profitable when a loss is said
before it (lost money in FY23, back in the black in FY24; loss-makers in 2024 back in the black in
2025); with no loss said it is left to refuse, the period of the loss unknown.

Both run on the tokens with their filler still in (the colon is filler). A catalogue term followed by 就是 /
i.e. and a definition (2024年扭亏为盈的，就是2023年年报亏损、2024年年报盈利的) is read by the grammar pass
`term_defined_after`: the definition is screened, the term dropped.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from backend.domain.language.context import DASH_PAUSE
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

# what may stand beside the label before its definition: filler (screen, plays), a scope (pharma, the CSI 300)
LABEL_COMPANIONS = {"filler", "group", "industry", "index", "exchange", "board", "area"}
# kinds that say a condition after the label: a comparison, a profit or a loss
DEFINING_KINDS = {"cmp", "profitable"}
COLONS = {":"}
# the first pause of the question: a colon, a spaced dash, or a comma
_FIRST_PAUSE = re.compile(rf"{DASH_PAUSE.pattern}|[:,]")


def defined_label(tokens: list[Token], question: str) -> list[Token]:
    """The tokens with a leading label (an `undefined` style word) made filler when a colon or a
    dash ends it and a definition follows."""
    end = next((k for k, token in enumerate(tokens) if _ends_label(token)), None)
    if end is None or not any(token.kind == "undefined" for token in tokens[:end]):
        return tokens
    separator = tokens[end]
    ended = separator.text in COLONS or (separator.text == "," and _pauses_with_dash(question))
    if not ended or not any(token.kind in DEFINING_KINDS for token in tokens[end + 1 :]):
        return tokens
    label = [
        replace(token, kind="filler", value=None) if token.kind == "undefined" else token
        for token in tokens[:end]
    ]
    return label + tokens[end:]


# what opens a definition after a candle label: a colon or an opening bracket (a dash is read as a comma)
OPENINGS = {":", "("}
# what may stand between a candle label and its definition: a day, a scope, a word for stocks
CANDLE_COMPANIONS = LABEL_COMPANIONS | {"time", "index", "constituent", "count_unit"}
# what a definition starts with: a measure (a high or a low of a day too) or a condition said in a word
DEFINITION_STARTS = {"metric", "concept", "new_high", "new_low"}  # the day's low: a price


def defined_candle(tokens: list[Token], question: str) -> list[Token]:
    """The tokens with each `candle_label` made filler when a definition follows it."""
    result = list(tokens)
    for k, token in enumerate(tokens):
        if token.kind == "candle_label" and _definition_follows(tokens, k + 1, question):
            result[k] = replace(token, kind="filler", value=None)
    return result


def _definition_follows(tokens: list[Token], j: int, question: str) -> bool:
    while j < len(tokens) and tokens[j].kind in CANDLE_COMPANIONS and tokens[j].text not in OPENINGS:
        j += 1
    if j >= len(tokens):
        return False
    opening = tokens[j].text in OPENINGS or (tokens[j].text == "," and _pauses_with_dash(question))
    said = next((token for token in tokens[j + 1 :] if token.kind != "filler"), None)  # the day's low
    return opening and said is not None and said.kind in DEFINITION_STARTS


def _ends_label(token: Token) -> bool:
    return token.text in COLONS or token.kind not in LABEL_COMPANIONS | {"undefined"}


def _pauses_with_dash(question: str) -> bool:
    """Whether the question's first pause is a dash (a comma pauses as a list would: not a label's end)."""
    folded = " ".join(unicodedata.normalize("NFKC", question).lower().split())
    found = _FIRST_PAUSE.search(folded)
    return found is not None and found.group(0) not in {":", ","}


def profit_after_loss(tokens: list[Token]) -> list[Token]:
    """Each `profit_again` (back in the black) read as profitable when a loss is said before it."""
    result: list[Token] = []
    for token in tokens:
        loss_before = any(said.kind == "profitable" and said.value == "<" for said in result)
        if token.kind == "profit_again" and loss_before:
            token = replace(token, kind="profitable", value=">")
        result.append(token)
    return result


# a time said with the term (2024年扭亏为盈): the definition says the periods again
TERM_TIMES = {"year", "period", "month", "date"}
TERM_KINDS = {"concept", "undefined"}  # a catalogue term (扭亏为盈, 破净) or a style word (turnaround)
TERM_COMPANIONS = LABEL_COMPANIONS - {"filler"} | {"count_unit"}


def term_defined_after(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[time] + a catalogue term + 就是 / i.e. + its definition (2024年扭亏为盈的公司？就是2023年年报亏损、
    2024年年报盈利的; turnaround stocks in 2024, i.e. a loss in FY2023 and a profit in FY2024): the asker's
    definition is what is screened, the term and its time dropped (the definition must read on its own,
    or the question is refused)."""
    kept: list[Token] = []  # a scope said with the term (破净的银行) stays the question's
    j, terms = i, 0
    while kind_at(tokens, j) in TERM_TIMES | TERM_KINDS | TERM_COMPANIONS | {"and"}:
        terms += kind_at(tokens, j) in TERM_KINDS
        if kind_at(tokens, j) in TERM_COMPANIONS:
            kept.append(tokens[j])
        j += 1
    if terms != 1 or kind_at(tokens, i) not in TERM_TIMES | TERM_KINDS:
        return None
    if kind_at(tokens, j) != "defined_as" or j + 1 >= len(tokens):
        return None
    timed = any(token.kind in TERM_TIMES for token in tokens[i:j])
    if timed and not any(token.kind in TERM_TIMES for token in tokens[j + 1 :]):
        return None  # 2025年破净的，就是市净率低于1的: the year said of the term only, never dropped
    return j + 1 - i, kept
