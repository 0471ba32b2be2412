"""A move by a part of the figure (净利润下滑超过一半, fell by more than half): the part as a percent
change (more than 50% down). A part said elsewhere (超过一半的股票上涨: a share of the stocks;
低于行业平均的一半: a part of an average) is left to the rules that read it."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, says_window
from backend.domain.language.semantic import SemanticModel

MOVES = {"up", "down"}


def move_by_fraction(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """up/down + cmp + 一半 / a third of → the move, the comparison and the part in percent."""
    if tokens[i].kind not in MOVES or kind_at(tokens, i + 1) != "cmp" or kind_at(tokens, i + 2) != "fraction":
        return None
    if kind_at(tokens, i + 3) in {"count_unit", "cond"}:  # 下跌超过一半的股票…: the stocks' share, not a size
        return None
    part = tokens[i + 2]
    percent = Token("number", round(float(part.value) * 100, 6), part.text, part.start, {"unit": "percent"})
    return 3, [tokens[i], tokens[i + 1], percent]


def move_by_multiple(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """涨了5倍以上 / 涨幅超过3倍 / up 5x: a gain of N times the base is N × 100% (涨了5倍: the close six
    times the base, as 翻了两倍 is 200%), read as that percent for `compare`; no comparison said is at
    least. Only a rise of the price (not after another measure: 净利润增长了3倍 is left unread), and never
    a count of days (涨了5天) nor of times (rose 3 times: a count)."""
    if tokens[i].kind != "up" and not (tokens[i].kind == "change_word" and tokens[i].value == "gain"):
        return None
    if kind_at(tokens, i - 1) in {"metric", "report_figure"}:
        return None
    before = kind_at(tokens, i + 1) == "cmp"
    j = i + 1 + before
    if not _is_multiple(tokens, j) or not says_window(tokens):  # a multiple of what base? left unread
        return None
    after = not before and kind_at(tokens, j + 1) == "cmp" and tokens[j + 1].value in {">=", "<="}
    said = tokens[i + 1] if before else tokens[j + 1] if after else None
    op = Token("cmp", said.value, said.text, said.start) if said else Token("cmp", ">=", "", tokens[j].start)
    number = tokens[j]
    percent = Token("number", float(number.value) * 100, number.text, number.start, {"unit": "percent"})
    return j + 1 + after - i, [tokens[i], op, percent]


def _is_multiple(tokens: list[Token], j: int) -> bool:
    """5倍 / 5x: a number in times said as a multiple; '3 times' in English counts occurrences."""
    number = tokens[j] if kind_at(tokens, j) == "number" else None
    return number is not None and number.extra.get("unit") == "times" and not number.text.endswith("times")
