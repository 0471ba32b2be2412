"""A value said before the figure it bounds (千亿市值以上, 500亿以上市值, 过千亿市值的公司,
30倍以上市盈率): the same as the figure said first (市值千亿以上), which the comparison rules read. Only
a number whose unit fits that figure (money before a money figure, % before a rate, 倍 before a
multiple) is moved, and only when no figure stands before it whose value it could be
(市盈率20倍以上市值…: the 20 is the P/E's)."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import Metric, SemanticModel

# the comparison words said after their number (千亿以上, 5%以下): the others stand before it (超过千亿)
AFTER_NUMBER = {"以上", "及以上", "或以上", "以下", "及以下", "或以下", "以内", "及以内"}
ORDERED = {">", ">=", "<", "<="}
# what the value could belong to when it stands right before it: a figure, a comparison, a move, a day
CLAIMS_VALUE = {"metric", "aggmetric", "report_figure", "change_word", "cmp", "number", "up", "down",
                "between", "to", "timespec", "date", "month", "year", "yoy", "qoq", "quantifier"}  # fmt: skip
# what after the moved figure would make it the subject of another comparison (过千亿市值超过…)
COMPARED_AFTER = {"cmp", "number", "up", "down", "yoy", "qoq", "doubled", "between", "single_quarter"}


def value_before_figure(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """number + figure + 以上/以下 → figure number 以上; number 以上 figure → the same; 超过 number figure
    → figure 超过 number."""
    if kind_at(tokens, i - 1) in CLAIMS_VALUE:
        return None
    if kind_at(tokens, i) == "number" and _fits(model, tokens[i], tokens, i + 1) and _after(tokens, i + 2):
        return 3, [tokens[i + 1], tokens[i], tokens[i + 2]]  # 千亿市值以上
    if kind_at(tokens, i) == "number" and _after(tokens, i + 1) and _fits(model, tokens[i], tokens, i + 2):
        if kind_at(tokens, i + 3) in COMPARED_AFTER:
            return None
        return 3, [tokens[i + 2], tokens[i], tokens[i + 1]]  # 500亿以上市值
    # 超过千亿市值, more than 100 billion yuan of revenue (other English forms such as sub-1x P/S on a TTM
    # basis are read by the rules of multiples, with the window said after the figure)
    before = kind_at(tokens, i) == "cmp" and tokens[i].value in ORDERED and tokens[i].text not in AFTER_NUMBER
    # in English only an amount (more than 100 billion yuan of revenue): a money figure has no multiple
    english = tokens[i].text.isascii() and not _amount(tokens, i + 1)
    if (
        before
        and not english
        and kind_at(tokens, i + 1) == "number"
        and _fits(model, tokens[i + 1], tokens, i + 2)
    ):
        if kind_at(tokens, i + 3) in COMPARED_AFTER:
            return None
        return 3, [tokens[i + 2], tokens[i], tokens[i + 1]]  # 过千亿市值
    return None


def _amount(tokens: list[Token], k: int) -> bool:
    """A number said with a unit of money or shares (100 billion yuan, 1亿股)."""
    return kind_at(tokens, k) == "number" and tokens[k].extra.get("unit") in {"money", "shares"}


def _after(tokens: list[Token], k: int) -> bool:
    """以上 / 以下 said after the number, with no number of its own after it."""
    said = kind_at(tokens, k) == "cmp" and tokens[k].text in AFTER_NUMBER
    return said and kind_at(tokens, k + 1) != "number"


def _fits(model: SemanticModel, number: Token, tokens: list[Token], k: int) -> bool:
    """The token at k is a figure, and the number says a unit of that figure's kind."""
    if kind_at(tokens, k) != "metric" or str(tokens[k].value) not in model.metrics:
        return False
    return unit_fits(model.metrics[str(tokens[k].value)], number)


def unit_fits(metric: Metric, number: Token) -> bool:
    """A number whose own unit names the figure's kind: money (亿, 万元) for an amount, % for a rate,
    倍 for a multiple; a bare number fits nothing (千亿 yes, 20 no)."""
    unit = str(number.extra.get("unit", ""))
    if unit == "percent":
        return metric.percent
    if unit == "times":
        return metric.input_unit.name == "倍"
    if unit in {"money", "shares"} or number.extra.get("scaled"):
        return metric.unit_kind in {"money", "shares"} and unit in {"", metric.unit_kind}
    return False
