"""A condition excluded after it is said: 亏损的不算 / 亏损股除外 / ST股不计入 → NOT the condition.

The words said before what they exclude (不含, 剔除, excluding) are `not` tokens, read by the assembly;
the words closing 除…外 (外, 以外) only close an exclusion opened before, never open one.
"""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

CLOSING_WORDS = {"外", "以外", "之外"}  # 除…外: the exclusion was opened before the condition


def excluded_after(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """cond [股/的公司] + 不算 / 不计 / 除外: the condition negated, written where the exclusion word was."""
    if kind_at(tokens, i) != "cond" or kind_at(tokens, i - 1) == "not":
        return None
    j = i + 1 + (kind_at(tokens, i + 1) == "count_unit")  # 亏损股除外 / 亏损的公司不算
    if kind_at(tokens, j) != "not_after" or tokens[j].text in CLOSING_WORDS:
        return None
    negation = Token("not", "not", tokens[j].text, tokens[j].start)
    return j + 1 - i, [negation, *tokens[i:j]]
