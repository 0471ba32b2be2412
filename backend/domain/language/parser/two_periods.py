"""Two years side by side for one market figure (2024 vs 2025 average daily turnover,
2024年和2025年的日均成交额对比, 2024年和2025年跌停家次对比): one row per year, each the figure over its
own year — read as the two years' window broken down by year."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

# what makes the years the conditions' (2024年和2025年净利润都超过…): left to the passes reading them
# a count of the days an event happened (涨停家次, 涨停次数): a figure of each year too
COUNTED_DAYS = {"stock_days", "occurrence"}
CONDITION_KINDS = {"cmp", "up", "down", "cond", "concept", "between", "all", "growth"}
ASKED_AMOUNT = {"out_unit", "how_much"}  # 是多少亿, is how much: the figure asked, not compared


def two_years_compared(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """year A [和/与/vs/and] year A + 1, with an aggregate of a daily figure said in the question and no
    condition: the window from A's first month to B's last, then 每年 (a row per year). Years further
    apart would also show the years between them, and are left as they are (refused)."""
    if kind_at(tokens, i) != "year":
        return None
    j = i + 1 + (kind_at(tokens, i + 1) in {"to", "and"})
    if kind_at(tokens, j) != "year" or tokens[j].value != tokens[i].value + 1:
        return None
    if kind_at(tokens, j + 1) in {"to", "and"} and kind_at(tokens, j + 2) == "year":
        return None  # three years or more listed
    figure = _daily_aggregate(model, tokens) or any(token.kind in COUNTED_DAYS for token in tokens)
    if not figure or any(_conditions(tokens, k) for k in range(len(tokens))):
        return None
    source = tokens[i : j + 1]
    window = [
        synthetic("month", {"year": tokens[i].value, "month": 1}, source[:1]),
        synthetic("to", "to", source[1:-1] or source[:1]),
        synthetic("month", {"year": tokens[j].value, "month": 12}, source[-1:]),
        synthetic("per", "per", source),
        synthetic("tunit", "year", source),
    ]
    return j + 1 - i, window


def _conditions(tokens: list[Token], k: int) -> bool:
    """A word of a condition at k; 是 before the amount asked (分别是多少亿, 是多少) compares nothing."""
    amount = kind_at(tokens, k + 1) in ASKED_AMOUNT or (
        kind_at(tokens, k + 1) == "agg" and tokens[k + 1].text == "多少"
    )
    asked = kind_at(tokens, k) == "cmp" and amount
    return tokens[k].kind in CONDITION_KINDS and not asked


def _daily_aggregate(model: SemanticModel, tokens: list[Token]) -> bool:
    """An aggregate word right before a daily figure (日均成交额, average daily traded value)."""
    for k, token in enumerate(tokens):
        if token.kind != "agg":
            continue
        after = k + 1 + (kind_at(tokens, k + 1) == "daily_values")
        if kind_at(tokens, after) == "metric" and model.metrics[tokens[after].value].kind == "daily":
            return True
    return False
