"""A report figure said higher or lower in one period than in another, in English word order: earned
less in Q3 2025 alone than in Q2 2025 alone / less net profit in standalone Q3 2025 than in standalone Q2
2025 / revenue higher in 2024 than in 2023 → the order `versus_other_period` reads (lower single-quarter
net profit in Q3 2025 than in Q2 2025): the direction, [the window once], the figure, the two periods."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

COMPARATIVE_TEXTS = {"higher", "lower"}  # of the up / down words, the ones saying "than"
WINDOWED_TABLES = {"income"}  # a quarter alone is derived only for year-to-date flows


def direction_with_periods(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """figure + more/less/higher/lower, or more/less/higher/lower + figure, then two periods, the window
    word (alone, standalone) said with each or with neither."""
    start = i + _verb_said_before(tokens, i)  # earned less net profit: the verb names the figure again
    if _direction(tokens[start]) and kind_at(tokens, start + 1) == "metric":
        direction, figure = tokens[start], tokens[start + 1]
    elif kind_at(tokens, i) == "metric" and i + 1 < len(tokens) and _direction(tokens[i + 1]):
        figure, direction = tokens[i], tokens[i + 1]
    else:
        return None
    metric = model.metrics[str(figure.value)]
    said = _periods(tokens, start + 2)
    if metric.kind != "report" or said is None:
        return None
    periods, windows, used = said
    if windows and metric.table not in WINDOWED_TABLES:
        return None  # ROE in Q3 alone: no quarter's own figure of a ratio, left to refuse
    up = direction.kind == "up" or (direction.kind == "comparative" and direction.value == ">")
    said_direction = Token("up" if up else "down", direction.value, direction.text, direction.start)
    return start - i + 2 + used, [said_direction, *windows[:1], figure, *periods]


def _verb_said_before(tokens: list[Token], i: int) -> int:
    """1 when a figure's verb (earned) stands before a direction and the same figure (less net profit)."""
    same = kind_at(tokens, i) == "metric" and kind_at(tokens, i + 2) == "metric"
    return int(same and _direction(tokens[i + 1]) and tokens[i].value == tokens[i + 2].value)


def _direction(token: Token) -> bool:
    if token.kind == "comparative":
        return token.value in {"<", ">"}
    return token.kind in {"up", "down"} and token.text in COMPARATIVE_TEXTS


def _periods(tokens: list[Token], j: int) -> tuple[list[Token], list[Token], int] | None:
    """Two periods at j, the same window word before each or after each, or none: (the periods, the
    window words, tokens used)."""
    said: list[Token] = []
    while kind_at(tokens, j + len(said)) in {"timespec", "single_quarter"} and len(said) < 4:
        said.append(tokens[j + len(said)])
    kinds = [token.kind for token in said]
    if kinds[:2] == ["timespec", "timespec"]:
        return said[:2], [], 2
    before = kinds == ["single_quarter", "timespec"] * 2
    after = kinds == ["timespec", "single_quarter"] * 2
    windows = [token for token in said if token.kind == "single_quarter"]
    if not (before or after) or windows[0].value != windows[1].value:
        return None
    return [token for token in said if token.kind == "timespec"], windows, 4
