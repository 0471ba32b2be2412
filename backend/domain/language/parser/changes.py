"""A ranking by the change of one figure between two times: 权重比半年前提高得最多 / 净利润比2024年增加最多的
10家 / 2025年ROE比2024年下降最多 / the largest increase in ROE from Q2 to Q3 / increased their weight the
most since June 30 2025 → an `orderspec` whose Order has `other_time` (compiler/changes.py).

The figure is said once or twice, each time named (the first may be the question's own day), then the
direction and a superlative of size: up + 最多/最大 ranks the largest increase first, down + the same the
largest decrease. A superlative of smallness (增加最少: the smallest rise, or a fall?) is not read. In
English the two times follow the figure: from A to B, between A and B, since A (then to the question's
day). 去年同期 / the same period last year is the first time a year earlier (`same_period_before`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from backend.domain.language.ir import Compare, Order, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, metric_of, synthetic
from backend.domain.language.semantic import SemanticModel

RANKED_FIGURES = {"metric", "change_word"}
# superlatives of the change's size, and of its speed (增长最快: the growth in % of the earlier value)
SIZE_SUPERLATIVES = {"最多", "最大", "most", "largest", "biggest", "greatest"}
SPEED_SUPERLATIVES = {"最快"}


def change_ranking(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[time] figure [time] 比 [figure] time [figure] 增加/提高/下降/减少 最多 [N [只]]."""
    j = i
    first: TimeSpec | None = None
    if kind_at(tokens, j) == "timespec":
        first = tokens[j].value
        j += 1
    if kind_at(tokens, j) not in RANKED_FIGURES:
        return None
    metric = metric_of(tokens[j])
    j += 1
    if first is None and kind_at(tokens, j) == "timespec":
        first = tokens[j].value
        j += 1
    if kind_at(tokens, j) != "than":
        return None
    j += 1
    j += _same_figure(tokens, j, metric)
    if kind_at(tokens, j) != "timespec":
        return None
    other = tokens[j].value
    j += 1
    j += _same_figure(tokens, j, metric)
    ranked = _direction(model, tokens, j, metric)
    if ranked is None or other == first:
        return None
    direction, j, percent = ranked
    limit = 1
    if kind_at(tokens, j) == "number" and tokens[j].value == int(tokens[j].value):
        limit = int(tokens[j].value)
        j += 1 + (kind_at(tokens, j + 1) == "count_unit")
    order = Order(metric, direction, time=first, other_time=other, percent_change=percent)
    return j - i, [synthetic("orderspec", order, tokens[i:j], limit=limit)]


def _same_figure(tokens: list[Token], j: int, metric: str) -> int:
    """1 if the figure is named again at j (权重比半年前的权重…)."""
    return int(kind_at(tokens, j) in RANKED_FIGURES and metric_of(tokens[j]) == metric)


def _direction(
    model: SemanticModel, tokens: list[Token], j: int, metric: str
) -> tuple[str, int, bool] | None:
    """up/down + a superlative of size (or of speed: in %): the order of the change, the index after
    them, and whether in %. A figure that is itself a fall (跌幅) turns the change around: not read."""
    if model.metrics[metric].negated:
        return None
    if kind_at(tokens, j) not in {"up", "down"} or kind_at(tokens, j + 1) != "super":
        return None
    if tokens[j + 1].text not in SIZE_SUPERLATIVES | SPEED_SUPERLATIVES:
        return None
    return ("desc" if tokens[j].kind == "up" else "asc"), j + 2, tokens[j + 1].text in SPEED_SUPERLATIVES


def english_change_ranking(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """largest increase in ROE from Q2 to Q3 / net profit grew the most from 2023 to 2024 /
    increased their weight the most since June 30 2025."""
    if kind_at(tokens, i) == "super" and kind_at(tokens, i + 1) in {"up", "down"}:
        superlative, move, figure, j = i, i + 1, i + 2, i + 3  # largest increase [in] ROE
    elif kind_at(tokens, i) == "super" and kind_at(tokens, i + 2) in {"up", "down"}:
        superlative, figure, move, j = i, i + 1, i + 2, i + 3  # the verb put after a report figure
    elif kind_at(tokens, i) in {"up", "down"} and kind_at(tokens, i + 2) == "super":
        move, figure, superlative, j = i, i + 1, i + 2, i + 3  # increased their weight the most
    elif kind_at(tokens, i) in RANKED_FIGURES and kind_at(tokens, i + 2) == "super":
        figure, move, superlative, j = i, i + 1, i + 2, i + 3  # net profit grew the most
    else:
        return None
    if kind_at(tokens, figure) not in RANKED_FIGURES or kind_at(tokens, move) not in {"up", "down"}:
        return None
    metric = metric_of(tokens[figure])
    if model.metrics[metric].negated or tokens[superlative].text not in SIZE_SUPERLATIVES:
        return None
    times = _english_times(tokens, j)
    if times is None:
        return None
    (first, other), j = times
    direction = "desc" if tokens[move].kind == "up" else "asc"
    order = Order(metric, direction, time=first, other_time=other)
    return j - i, [synthetic("orderspec", order, tokens[i:j], limit=1)]


def _english_times(tokens: list[Token], j: int) -> tuple[tuple[TimeSpec | None, TimeSpec], int] | None:
    """(later time or None for the question's own, earlier time), and the index after them."""
    spec = tokens[j].value if kind_at(tokens, j) == "timespec" else None
    if kind_at(tokens, j) == "between" and kind_at(tokens, j + 1) == "timespec":
        if kind_at(tokens, j + 2) == "to" and kind_at(tokens, j + 3) == "timespec":
            earlier, later = tokens[j + 1].value, tokens[j + 3].value
            return ((later, earlier), j + 4) if later != earlier else None
        return None
    if spec is not None and spec.label in {"date_range", "date_span"} and spec.day and spec.end_day:
        return (TimeSpec("date", day=spec.end_day), TimeSpec("date", day=spec.day)), j + 1
    if spec is not None and spec.label == "since" and spec.day is not None:
        return (None, TimeSpec("date", day=spec.day)), j + 1  # since June 30: that day's value is the base
    return None


def same_period_before(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """比去年同期 / higher than the same period last year: the period the figure before 比 (or the
    comparison) is read at, a year earlier (2025年三季度净利润比去年同期 → Q3 2024). With no dated period
    before it, left to refuse."""
    if kind_at(tokens, i) != "same_period" or kind_at(tokens, i - 1) not in {"than", "cmp"}:
        return None
    for k in (i - 2, i - 3):  # 2025年三季度 净利润 比 / 净利润 2025年三季度 比
        if kind_at(tokens, k) == "timespec":
            earlier = _year_earlier(tokens[k].value)
            return None if earlier is None else (1, [synthetic("timespec", earlier, [tokens[i]])])
    return None


def _year_earlier(time: TimeSpec) -> TimeSpec | None:
    """The same period one year before, for a period named by its year (or a day, or days)."""
    if (
        time.label in {"year", "annual", "quarter", "month", "half", "period_end", "period_start"}
        and time.year
    ):
        return replace(time, year=time.year - 1)
    if time.label in {"date", "date_range", "date_span"} and time.day is not None:
        end_day = _minus_year(time.end_day) if time.end_day is not None else None
        return replace(time, day=_minus_year(time.day), end_day=end_day)
    return None


def _minus_year(day: date) -> date:
    return (
        day.replace(year=day.year - 1, day=28)
        if (day.month, day.day) == (2, 29)
        else day.replace(year=day.year - 1)
    )


def relative_change(
    model: SemanticModel, tokens: list[Token], j: int, metric: str, op: str, times: list[TimeSpec | None]
) -> tuple[list[Compare], int] | None:
    """比2025年6月30日增加50%以上 / 比2023年减少一半以上: a change said in % (or as a part) of a figure that
    is no rate is relative — 100 × later ÷ earlier against 100 ± N, the earlier above zero (a growth
    from a loss is no percentage) — never a difference of N in the figure's unit. A rate (ROE 提高5%)
    is left to the difference (percentage points). Returns the conditions and the index after them."""
    figure = model.metrics[metric]
    if figure.percent or figure.stored_unit.name == "%" or op not in {">", "<"}:
        return None
    k = j + (kind_at(tokens, j) == "per")  # by
    said = [tokens[k]] if kind_at(tokens, k) == "cmp" else []
    k += len(said)
    if kind_at(tokens, k) == "fraction":
        size = 100 * float(tokens[k].value)
    elif kind_at(tokens, k) == "number" and tokens[k].extra.get("unit") == "percent":
        size = float(tokens[k].value)
    else:
        return None
    end = k + 1
    if kind_at(tokens, end) == "cmp":
        said.append(tokens[end])
        end += 1
    inclusive = any(word.value in {">=", "<="} for word in said)
    later, earlier = times
    if op == ">":
        grown = Compare(metric, ">=" if inclusive else ">", 100 + size, other=metric, ratio=True,
                        time=later, other_time=earlier, text=tokens[k].text)  # fmt: skip
    else:
        grown = Compare(metric, "<=" if inclusive else "<", 100 - size, other=metric, ratio=True,
                        time=later, other_time=earlier, text=tokens[k].text)  # fmt: skip
    return [grown, Compare(metric, ">", 0.0, time=earlier, text="0")], end
