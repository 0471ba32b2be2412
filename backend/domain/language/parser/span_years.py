"""The years of a span said again, put in the order `each_period` reads: 2022到2024三年 (the count of the
years just named) and 每年 said between a report figure and its comparison (2022到2024年ROE每年都超过15%,
said as 2022到2024年每年ROE都超过15%)."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.frequency import RANGE_WORDS
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

YEAR_UNITS = {"year", "annual_reports"}  # 三年 / 三年年报 / three years


def span_count_said_again(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """year A 到 year B + N年 [年报] / the N years [from] A to B: with N the number of years from A through
    B, the span's length said again, dropped (another N is no restatement and is left to refuse); in
    English the unit stays, as 'in each year from A to B' is read."""
    span = _years_in_span(tokens, i)
    if span is not None and _count_of_years(tokens, i + 3) == span:
        return 5, tokens[i : i + 3]
    count = _count_of_years(tokens, i)
    if count is not None and count == _years_in_span(tokens, i + 2 + (kind_at(tokens, i + 2) == "between")):
        return 1, []
    return None


def _years_in_span(tokens: list[Token], i: int) -> int | None:
    """year A 到/to year B at i: how many years it spans, A and B included."""
    span = kind_at(tokens, i) == "year" and kind_at(tokens, i + 2) == "year"
    if not span or kind_at(tokens, i + 1) != "to" or tokens[i + 1].text not in RANGE_WORDS:
        return None
    return int(tokens[i + 2].value) - int(tokens[i].value) + 1


def _count_of_years(tokens: list[Token], i: int) -> int | None:
    """N年 / N年年报 / N years at i: the N."""
    if kind_at(tokens, i) != "number" or tokens[i].extra.get("unit") or kind_at(tokens, i + 1) != "tunit":
        return None
    return int(tokens[i].value) if tokens[i + 1].value in YEAR_UNITS else None


def each_year_after_figure(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """years + report figure + 每年 + [都] comparison: 每年 moved before the figure, where `compare` and
    `each_period` read it (the comparison holds in each year named)."""
    if kind_at(tokens, i - 1) != "timespec" or kind_at(tokens, i) != "metric":
        return None
    if model.metrics[str(tokens[i].value)].kind != "report":
        return None
    each_year = kind_at(tokens, i + 1) == "per" and kind_at(tokens, i + 2) == "tunit"
    each_year = each_year and tokens[i + 2].value == "year"
    if not each_year or kind_at(tokens, i + 3) not in {"quantifier", "cmp"}:
        return None
    return 3, [tokens[i + 1], tokens[i + 2], tokens[i]]
