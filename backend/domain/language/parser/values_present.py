"""有市盈率的科创板公司 / 有股息率的银行股: the stocks that have a value of the figure at all (a loss
maker has no P/E). 有 and 的 are filler words, so the phrase is read before filler is dropped: 有 + a
figure + 的, nothing compared after it (有市盈率低于20的 is a comparison, read by the passes). The
condition names which stocks the question is about, as an entity scope does: a share is of them and
an average compared with is over them. A figure + 为空 (PE TTM为空的) is the stocks with no value of it;
said right after a word for loss makers (亏损股（PE TTM为空的）) it is that word's definition, which then
replaces the word's own reading (a loss in a report).
"""

from __future__ import annotations

from backend.domain.language.ir import Compare, Not
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import synthetic

HAVE_WORDS = {"有", "具有", "带有"}
PE_KEYS = {"pe", "pe_ttm"}  # the figures a loss leaves empty


def values_present(tokens: list[Token]) -> list[Token]:
    """The tokens (filler still in) with each 有 + figure + 的 replaced by a condition `has`, each
    figure + 为空 by its negation."""
    result: list[Token] = []
    k = 0
    while k < len(tokens):
        if _has_value_at(tokens, k):
            metric = str(tokens[k + 1].value)
            condition = Compare(metric, "has", 0.0, text=tokens[k + 1].text)
            result.append(synthetic("cond", condition, tokens[k : k + 3], scope=True))
            k += 3
            continue
        if _no_value_at(tokens, k):
            missing = Not(Compare(str(tokens[k].value), "has", 0.0, text=tokens[k].text))
            if tokens[k].value in PE_KEYS:
                _drop_loss_word_defined(result)
            result.append(synthetic("cond", missing, tokens[k : k + 2], scope=True))
            k += 2
            continue
        result.append(tokens[k])
        k += 1
    return result


def _no_value_at(tokens: list[Token], k: int) -> bool:
    return k + 1 < len(tokens) and tokens[k].kind == "metric" and tokens[k + 1].kind == "no_value"


def _drop_loss_word_defined(result: list[Token]) -> None:
    """亏损股（PE TTM为空的）: the loss word just before (only filler between) is defined by the empty P/E."""
    k = len(result) - 1
    while k >= 0 and result[k].kind == "filler":
        k -= 1
    if k >= 0 and result[k].kind == "profitable" and result[k].value == "<":
        del result[k]


def _has_value_at(tokens: list[Token], k: int) -> bool:
    if k + 2 >= len(tokens):
        return False
    have, figure, of = tokens[k], tokens[k + 1], tokens[k + 2]
    return (
        have.kind == "filler"
        and have.text in HAVE_WORDS
        and figure.kind == "metric"
        and of.kind == "filler"
        and of.text == "的"
    )
