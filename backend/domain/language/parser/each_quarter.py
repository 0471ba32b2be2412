"""A report condition said of every quarter of a year (2025年每个季度都亏损, 今年以来每个季度单季都亏损,
lost money in every quarter of 2025 so far): it holds for each quarter reported in that year by the question's
day, each quarter's own figure (Q1 as stored, a later quarter its year-to-date less the one before) — a
year-to-date figure would say nothing of the later quarters alone. Only an amount (money) has a quarter
alone; a ratio, or no year said, is left to refuse.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from backend.domain.language.ir import EACH_QUARTER, Compare, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

SAID_BETWEEN = {"single_quarter", "quantifier"}  # 单季, 都 between the quarters and the condition


def every_quarter(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[year] 每个/各 季度 [单季] [都] cond (zh), or cond every/each quarter [of] year (en)."""
    year = _year_of(tokens[i])
    if year is not None and _each_quarter_at(tokens, i + 1):  # 2025年每个季度…都亏损
        j = i + 3
        while kind_at(tokens, j) in SAID_BETWEEN and _said_between(tokens[j]):
            j += 1
        condition = _quarterly(model, tokens, j, year)
        return None if condition is None else (j + 1 - i, [synthetic("cond", condition, tokens[i : j + 1])])
    after = _year_of(tokens[i + 3]) if i + 3 < len(tokens) else None
    if kind_at(tokens, i) == "cond" and _each_quarter_at(tokens, i + 1) and after is not None:
        condition = _quarterly(model, tokens, i, after)  # lost money in every quarter of 2025
        return None if condition is None else (4, [synthetic("cond", condition, tokens[i : i + 4])])
    return None


def _year_of(token: Token) -> int | bool | None:
    """The year a time names whole or from its start (2025, 2025年以来; 今年以来: True, this year's)."""
    spec = token.value if token.kind == "timespec" else None
    if not isinstance(spec, TimeSpec):
        return None
    if spec.label == "year" and spec.year:
        return spec.year
    if spec.label == "since" and spec.day is not None and spec.day == date(spec.day.year, 1, 1):
        return spec.day.year
    return True if spec.label == "this_year" else None


def _each_quarter_at(tokens: list[Token], k: int) -> bool:
    return (
        kind_at(tokens, k) == "per" and kind_at(tokens, k + 1) == "tunit" and tokens[k + 1].value == "quarter"
    )


def _said_between(token: Token) -> bool:
    return token.kind == "single_quarter" or token.value == "all"


def _quarterly(model: SemanticModel, tokens: list[Token], k: int, year: int | bool) -> Compare | None:
    """The condition at k held by each quarter alone, if it is an amount's comparison with no time."""
    condition = tokens[k].value if kind_at(tokens, k) == "cond" else None
    if not isinstance(condition, Compare) or condition.time is not None or condition.other is not None:
        return None
    metric = model.metrics.get(condition.metric)
    if metric is None or metric.kind != "report" or metric.unit_kind != "money":
        return None
    if condition.agg not in {None, "single_quarter"}:
        return None
    own_year = None if year is True else int(year)
    return replace(condition, agg="single_quarter", time=TimeSpec(EACH_QUARTER, year=own_year))
