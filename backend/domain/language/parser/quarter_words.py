"""A quarter said by the month it ends (the September 2025 quarter), a quarter's own figure said as "on
its own" (the window word `report_window` reads, as Q3 2025 alone), and "not year-to-date" / 不是累计 said
after a quarter's own figure (the reading it denies, dropped)."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

QUARTER_ENDS = {3: 1, 6: 2, 9: 3, 12: 4}  # the month a quarter's report period ends in


def quarter_on_its_own(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[the] September 2025 quarter → Q3 2025; a quarter + on its own → the quarter and `single_quarter`
    (its own figure, as Q3 2025 alone)."""
    quarter, used = _quarter_at(tokens, i)
    if quarter is None:
        return None
    if kind_at(tokens, i + used) != "own":
        return (used, [quarter]) if used == 2 else None
    alone = Token("single_quarter", "single", tokens[i + used].text, tokens[i + used].start)
    return used + 1, [quarter, alone]


def year_to_date_denied(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[,] not year-to-date / 不是累计的 after a quarter's own figure was said (on its own, 单季): the
    reading it denies is the one already set aside, dropped; with no quarter alone said it is left."""
    j = i + (kind_at(tokens, i) == "and")
    if kind_at(tokens, j) != "not" or not _year_to_date(tokens, j + 1):
        return None
    alone = any(token.kind == "single_quarter" and token.value == "single" for token in tokens[:i])
    return (j + 2 - i, []) if alone else None


def _quarter_at(tokens: list[Token], i: int) -> tuple[Token | None, int]:
    """A quarter's timespec at i (Q3 2025), or a month that ends one + quarter (September 2025 quarter)."""
    if kind_at(tokens, i) != "timespec":
        return None, 0
    spec = tokens[i].value
    if spec.label == "quarter" and spec.year:
        return tokens[i], 1
    said = kind_at(tokens, i + 1) == "tunit" and tokens[i + 1].value == "quarter"
    if spec.label != "month" or not spec.year or spec.month not in QUARTER_ENDS or not said:
        return None, 0
    quarter = TimeSpec("quarter", year=spec.year, quarter=QUARTER_ENDS[spec.month])
    return replace(tokens[i], value=quarter, text=f"{tokens[i].text} {tokens[i + 1].text}"), 2


def _year_to_date(tokens: list[Token], j: int) -> bool:
    """year-to-date / cumulative: the stored figure a quarter's own is told from."""
    if kind_at(tokens, j) == "timespec":
        return tokens[j].value.label == "this_year" and tokens[j].text.replace("-", " ") == "year to date"
    return kind_at(tokens, j) == "agg" and tokens[j].text in {"cumulative", "累计"}
