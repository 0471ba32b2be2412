"""A cumulative word (累计, 累积, cumulative) adds a figure up over days or a report period: said where
the question has neither (累计换手率最高的10只股票, the highest cumulative turnover), nothing is there
to accumulate over, and the word would be dropped for one day's value. Such a question is refused
naming the word; with a window (最近5天累计换手率) or a report figure (year to date) it is read.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from backend.domain.language.ir import (
    Frequency,
    GrowthStreak,
    LossToProfit,
    Screen,
    Sustained,
    Technical,
    TimeSpec,
)
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.semantic import SemanticModel

CUMULATIVE_WORDS = {"累计", "累积", "cumulative", "cumulatively"}
# conditions that span days of their own (a streak's run, a frequency's window): 连续4天下跌且累计跌幅超过10%
SPANNING = (Technical, GrowthStreak, LossToProfit, Sustained, Frequency)


def cumulative_words(tokens: list[Token]) -> list[str]:
    """The cumulative words said (before any pass reads them)."""
    return [
        t.text for t in tokens if t.kind == "agg" and t.value == "sum" and t.text.lower() in CUMULATIVE_WORDS
    ]


def refuse_cumulative_on_one_day(words: list[str], screen: Screen, model: SemanticModel) -> None:
    if words and not _spans_time(screen, model):
        said = ", ".join(f"'{word}'" for word in words)
        raise NotUnderstood(f"could not place: {said} (a total over days needs the days: say a window)")


def _spans_time(node: Any, model: SemanticModel) -> bool:
    """A window of days, a report figure or a condition spanning days anywhere in the screen."""
    if isinstance(node, TimeSpec):
        return not node.is_single_day
    if isinstance(node, SPANNING):
        return True
    if isinstance(node, str):
        metric = model.metrics.get(node.rsplit(":", 1)[-1])  # a group ordering: agg:<fn>:<metric>
        return metric is not None and metric.kind == "report"
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        children: Any = [getattr(node, field.name) for field in dataclasses.fields(node)]
    elif isinstance(node, list | tuple):
        children = node
    else:
        return False
    return any(_spans_time(child, model) for child in children)
