"""One row per report period of a span: for each fiscal year from 2021 to 2024, 2021到2024年每年 (each
annual report of the years named), in each of its 2025 reports, each 2025 quarter as reported
(cumulative) (each report period of the year, its figures as stored) → the span's `timespec` and a
`groupby` report_period, as 2025年各报告期 is read by `group`."""

from __future__ import annotations

from backend.domain.language.ir import TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

EACH_YEAR_UNITS = {"year", "annual_reports"}  # 每年 / 各年度 / each of the annual reports


def annual_report_rows(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """for each fiscal year / annual report [from] A to B; A到B年 每年 / 各年度: the annual reports of
    A through B, one row each (a condition said of each year is `each_period`'s, read before)."""
    if kind_at(tokens, i) == "per" and _annual_word(tokens, i + 1):
        start = i + 2 + (kind_at(tokens, i + 2) == "between")
        span = _span(tokens, start)
        return None if span is None else (start + 3 - i, _rows(span, tokens[i : start + 3]))
    span = _span(tokens, i)
    each = kind_at(tokens, i + 3) == "per" and kind_at(tokens, i + 4) == "tunit"
    if span is None or not each or tokens[i + 4].value not in EACH_YEAR_UNITS:
        return None
    return 5, _rows(span, tokens[i : i + 5])


def year_report_rows(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """in each of its 2025 reports / for each 2025 quarter, as reported (cumulative): the report periods
    of the year, one row each; a quarter's figures only when said as stored (cumulative: year to date),
    never a quarter's own figure read off a year-to-date one."""
    year = tokens[i + 1] if kind_at(tokens, i) == "per" and kind_at(tokens, i + 1) == "timespec" else None
    if year is None or year.value.label != "year" or kind_at(tokens, i + 2) != "tunit":
        return None
    unit, used = tokens[i + 2].value, 3
    if unit == "quarter":
        used += kind_at(tokens, i + 3) == "and"  # , as reported (cumulative)
        if kind_at(tokens, i + used) != "agg" or tokens[i + used].text != "cumulative":
            return None
        used += 1
    elif unit != "report":
        return None
    return used, [year, synthetic("groupby", "report_period", tokens[i : i + used])]


def _annual_word(tokens: list[Token], j: int) -> bool:
    """fiscal year / annual report (a time with no year of its own)."""
    return kind_at(tokens, j) == "timespec" and tokens[j].value.label == "annual" and not tokens[j].value.year


def _span(tokens: list[Token], j: int) -> tuple[int, int] | None:
    """year A to/through/到 year B at j, A before B."""
    if [kind_at(tokens, j + k) for k in range(3)] != ["timespec", "to", "timespec"]:
        return None
    first, last = tokens[j].value, tokens[j + 2].value
    if first.label != "year" or last.label not in {"year", "annual"} or not first.year or not last.year:
        return None
    return (first.year, last.year) if first.year < last.year else None


def _rows(span: tuple[int, int], said: list[Token]) -> list[Token]:
    first, last = span
    annual = TimeSpec("annual", year=last, n=last - first + 1)
    return [synthetic("timespec", annual, said), synthetic("groupby", "report_period", [])]
