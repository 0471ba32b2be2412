"""One measure against a multiple of another of the same row and unit (a lower shadow at least twice
the real body, 下影线至少是实体的两倍, 下影线是实体的2倍以上): 100 × A ÷ B against 100 × N, as
`part_of` reads a share. The two must be read on one table in one unit (two prices of a bar); any
other pair (market cap three times revenue) is left to the rules that read it or to refuse, and a
multiple said with no comparison (是实体的两倍: exactly?) is left to refuse.

A share of the other said in percent (实体不超过当天振幅的10%, a body at most 10% of the day's range) is
the multiple N ÷ 100. The amplitude (振幅, a percent of the previous close) beside a part of the candle
in yuan is the day's range in yuan, high − low: a body cannot be a share of a percent."""

from __future__ import annotations

from backend.domain.language.ir import Compare
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.comparisons import OPS_ORDERED, factor_at
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import Metric, SemanticModel

# the same day said again before the other measure (实体不超过当天振幅的10%); any other day is not read
SAME_DAY = frozenset({"当天", "当日", "of the day", "the day's"})


def multiple_of_other(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """metric cmp [是] N倍/twice/Nx [of] metric, or metric [cmp] [是] metric [的] N倍 [以上/以下]."""
    if kind_at(tokens, i) != "metric":
        return None
    j = i + 1
    op = str(tokens[j].value) if kind_at(tokens, j) == "cmp" and tokens[j].value in OPS_ORDERED else None
    j += op is not None
    j += _is_copula(tokens, j)  # 至少是实体的两倍: 是 only links the two
    j += _same_day(tokens, j)
    if _factor(tokens, j) is not None and kind_at(tokens, j + 1 + _same_day(tokens, j + 1)) == "metric":
        # at least twice the body, at most 10% of the day's range
        at, end = j, j + 2 + _same_day(tokens, j + 1)
        other = tokens[end - 1]
    elif kind_at(tokens, j) == "metric" and _factor(tokens, j + 1) is not None:
        at, other, end = j + 1, tokens[j], j + 2  # 实体的两倍, 振幅的10%
        after = kind_at(tokens, end) == "cmp" and tokens[end].value in {">=", "<="}  # 两倍以上
        if after and op is None:
            op, end = str(tokens[end].value), end + 1
    else:
        return None
    factor = _factor(tokens, at)
    part = model.metrics[str(tokens[i].value)]
    whole = _in_unit_of(model, part, model.metrics[str(other.value)])
    same_row = part.table == whole.table and part.kind == whole.kind and part.stored_unit == whole.stored_unit
    if op is None or factor is None or not same_row or part.key == whole.key:
        return None
    condition = Compare(part.key, op, 100 * factor, other=whole.key, ratio=True, text=tokens[at].text)
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def _is_copula(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "cmp" and tokens[j].value == "=" and tokens[j].text in {"是", "为"}


def _same_day(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) in {"time", "timespec"} and tokens[j].text in SAME_DAY


def _factor(tokens: list[Token], j: int) -> float | None:
    """A multiple (twice, 2倍) or a share in percent (10%: a tenth) at j."""
    if kind_at(tokens, j) == "number" and tokens[j].extra.get("unit") == "percent":
        return float(tokens[j].value) / 100
    return factor_at(tokens, j)


def _in_unit_of(model: SemanticModel, part: Metric, whole: Metric) -> Metric:
    """The amplitude beside a price measure in yuan: the day's range in yuan (high − low)."""
    if whole.key == "amplitude" and part.table == whole.table and part.stored_unit.name == "元":
        return model.metrics["day_range"]
    return whole
