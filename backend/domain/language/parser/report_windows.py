"""Report figures over a window of their own: 单季净利润 / Q3 2024 alone (a quarter's own figure),
TTM / 近四个季度净利润合计 (trailing four quarters) → a `report_figure` token (metric + window).

Income figures are stored year-to-date; the compiler derives the window (values.py). A comparison
or a ranking reads a `report_figure`; left alone it is a figure shown per stock (the assembly's
`Screen.figures`), never the stored year-to-date figure; over groups or aggregates it is refused.
"""

from __future__ import annotations

from backend.domain.language.ir import Compare, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.readings import TTM_OF
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

WINDOWS = {"single": "single_quarter", "ttm": "ttm"}
# a growth rate said in one word (净利润同比) is the year-on-year change of this figure
GROWTH_OF = {"netprofit_yoy": "n_income_attr_p", "or_yoy": "revenue"}
YEAR_TO_DATE_TABLES = {"income"}  # flows summed from the start of the fiscal year
COMPARISON_TAIL = {"cmp", "number", "between", "betw_end", "to", "and"}


def report_window(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind == "single_quarter" and _year_to_date(model, tokens, i + 1):
        # 单季净利润 / TTM revenue; 近四个季度净利润合计: the trailing sum is what TTM is
        used = 2 + (token.value == "ttm" and kind_at(tokens, i + 2) == "agg" and tokens[i + 2].value == "sum")
        return used, [_figure(tokens[i + 1], WINDOWS[token.value])]
    period_between = kind_at(tokens, i + 1) == "timespec" and _year_to_date(model, tokens, i + 2)
    if token.kind == "single_quarter" and period_between:
        # standalone Q3 2025 revenue: the period said between the window word and its figure
        return 3, [_figure(tokens[i + 2], WINDOWS[token.value]), tokens[i + 1]]
    growth = kind_at(tokens, i + 1) == "metric" and tokens[i + 1].value in GROWTH_OF
    if token.kind == "single_quarter" and token.value == "single" and growth:
        # 单季净利润同比增长: the quarter's own figure against the same quarter a year before
        base = Token("metric", GROWTH_OF[tokens[i + 1].value], tokens[i + 1].text, tokens[i + 1].start)
        said_yoy = Token("yoy", "yoy", "", tokens[i + 1].start)
        return 2, [_figure(base, "single_quarter"), said_yoy]
    if _year_to_date(model, tokens, i):
        # earned more than 2 billion yuan in Q3 2024 alone: the window word follows the quarter
        j = i + 1
        while kind_at(tokens, j) in COMPARISON_TAIL:
            j += 1
        if kind_at(tokens, j) == "timespec" and kind_at(tokens, j + 1) == "single_quarter":
            window = WINDOWS[tokens[j + 1].value]
            return j + 2 - i, [_figure(token, window), *tokens[i + 1 : j + 1]]
    return None


def valuation_basis_after(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """price-to-sales on a TTM basis / dividend yield (trailing twelve months): a valuation with a
    trailing twin, the window said right after it, is that twin (ps_ttm), never the static figure."""
    token = tokens[i]
    said_after = kind_at(tokens, i + 1) == "single_quarter" and tokens[i + 1].value == "ttm"
    if token.kind != "metric" or token.value not in TTM_OF or not said_after:
        return None
    text = f"{token.text} {tokens[i + 1].text}"
    return 2, [Token("metric", TTM_OF[token.value], text, token.start, dict(token.extra))]


def _year_to_date(model: SemanticModel, tokens: list[Token], i: int) -> bool:
    return kind_at(tokens, i) == "metric" and model.metrics[tokens[i].value].table in YEAR_TO_DATE_TABLES


def _figure(metric: Token, window: str) -> Token:
    return Token("report_figure", metric.value, metric.text, metric.start, {"window": window})


def from_quarter_before(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """rose more than 20% from Q2 (after Q3 2025 single-quarter revenue), 比一季度下滑 (after 2025年
    二季度单季净利润): against the quarter right before the one the question names is quarter on quarter
    (环比), its year may be left unsaid; against the same quarter of the year before, its year said (fell
    more than 50% from Q3 2024 after Q3 2025), year on year (同比)."""
    # from standalone Q2: the window said again, of a figure said single-quarter before
    again = kind_at(tokens, i + 1) == "single_quarter" and _window_said(tokens[:i])
    said = _quarter_said(tokens, i + 1 + again)
    against = (kind_at(tokens, i) == "between" and tokens[i].text == "from") or kind_at(tokens, i) == "than"
    if not against or said is None:
        return None
    named = [token.value for token in tokens[:i] if token.kind == "period" and token.value["year"]]
    if len(named) != 1 or named[0]["kind"] != "quarter":
        return None
    year, quarter = named[0]["year"], named[0]["quarter"]
    before = (year, quarter - 1) if quarter > 1 else (year - 1, 4)
    said_year, said_quarter, used = said
    # 比二季度单季: the window said again after the quarter instead
    again = again or (kind_at(tokens, i + 1 + used) == "single_quarter" and _window_said(tokens[:i]))
    used += again
    text = " ".join(token.text for token in tokens[i : i + 1 + used])
    if (said_year, said_quarter) == (year - 1, quarter):  # from Q3 2024 after Q3 2025: year on year
        return 1 + used, [Token("yoy", "yoy", text, tokens[i].start)]
    if (said_year or before[0], said_quarter) != before:
        return None
    return 1 + used, [Token("qoq", "qoq", text, tokens[i].start)]


def _window_said(tokens: list[Token]) -> bool:
    return any(token.kind == "single_quarter" for token in tokens)


def _quarter_said(tokens: list[Token], j: int) -> tuple[int | None, int, int] | None:
    """A quarter's report period (Q1, 2025年一季度) or, after 比, 一季度 read as a number and its unit:
    (year or None, quarter, tokens used)."""
    if kind_at(tokens, j) == "period" and tokens[j].value["kind"] == "quarter":
        return tokens[j].value["year"], tokens[j].value["quarter"], 1
    number = tokens[j] if kind_at(tokens, j) == "number" and not tokens[j].extra.get("unit") else None
    unit = kind_at(tokens, j + 1) == "tunit" and tokens[j + 1].value == "quarter"
    if number is None or not unit or number.value not in {1.0, 2.0, 3.0, 4.0}:
        return None
    return None, int(number.value), 2


def quarter_compared_before(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """2025年三季度单季净利润比二季度低 / 比去年三季度高 / 环比下降 / 同比增长: a quarter's own (or trailing)
    figure said lower or higher than in the quarter right before (or the same quarter a year before),
    nothing by how much: the two values compared (negative ones too), never the year-to-date growth
    rate nor one that has no value after a loss."""
    figure = tokens[i]
    quarter = tokens[i - 1].value if i > 0 and tokens[i - 1].kind == "timespec" else None
    if figure.kind != "report_figure" or quarter is None or quarter.label != "quarter":
        return None
    if figure.extra.get("window") not in {"single_quarter", "ttm"}:  # a growth rate (环比增速) is a rate
        return None
    if quarter.year is None:  # 三季度 with no year: the latest such report, its quarter before unsaid
        return None
    against = kind_at(tokens, i + 1)
    said_op = kind_at(tokens, i + 2)
    if against not in {"qoq", "yoy"} or said_op not in {"comparative", "up", "down"}:
        return None
    if said_op == "comparative" and tokens[i + 2].value not in {"<", ">"}:
        return None
    if kind_at(tokens, i + 3) in COMPARISON_TAIL | {"yoy", "qoq"}:
        return None  # 比二季度下滑20%以上: by how much, a growth rate (compare)
    op = {"up": ">", "down": "<"}.get(said_op, str(tokens[i + 2].value))
    year, number = quarter.year, quarter.quarter or 0
    other = (year - 1, number) if against == "yoy" else ((year, number - 1) if number > 1 else (year - 1, 4))
    other_time = TimeSpec("quarter", year=other[0], quarter=other[1])
    condition = Compare(
        str(figure.value), op, 0.0, other=str(figure.value), time=quarter, other_time=other_time,
        agg=str(figure.extra["window"]),
    )  # fmt: skip
    return 3, [synthetic("cond", condition, tokens[i : i + 3])]
