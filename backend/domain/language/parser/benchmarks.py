"""Comparisons with a benchmark: outperformed the market, beat their industry's average gain, 跑赢大盘,
跑输本行业平均 → the measure (the return, unless one is said) compared with the benchmark's average,
rewritten into the words `versus_group_average` reads (metric cmp [own] [dim] average).

The benchmark is the average of a group the data defines: the market (the question's stocks) or the
stock's own industry, board, exchange, area. An index or another stock has no such average here (the
data holds no index prices), so beating one is refused, naming the words.
"""

from __future__ import annotations

from backend.domain.language.ir import Scope, VersusGroup
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

MEASURES = {"metric", "change_word"}
# a relative clause opened after the subject (industries that have beaten the market): still its subject
RELATIVE_OPENERS = {"that have", "which have", "whose"}


def benchmark_comparison(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    verb = tokens[i]
    if verb.kind != "outperform":
        return None
    subject = i - 1 - (kind_at(tokens, i - 1) == "timespec")
    if kind_at(tokens, subject) == "and" and tokens[subject].text in RELATIVE_OPENERS:
        subject -= 1
    groups = _groups_against_market(tokens, i, subject)
    if groups is not None:
        return groups
    if kind_at(tokens, subject) == "dim":  # which industries outperformed their board: no such average
        raise NotUnderstood(
            f"could not place: '{tokens[subject].text} {verb.text}' (a group's average against the benchmark "
            "is not read; ask for the stocks, or for each group's average)"
        )
    measured = kind_at(tokens, i - 1) in MEASURES or (
        kind_at(tokens, i - 1) == "timespec" and kind_at(tokens, i - 2) in MEASURES
    )
    measure = [] if measured else [synthetic("change_word", "gain", [verb])]  # beat = a higher return
    compared = [*measure, synthetic("cmp", verb.value, [verb])]
    j = i + 1
    if kind_at(tokens, j) == "benchmark":  # the market (average): the question's stocks
        return 2, [*compared, *_average_unless_said(tokens, j + 1, tokens[j])]
    group = j + (kind_at(tokens, j) == "own")
    if kind_at(tokens, group) == "dim":  # its industry [average]
        named = tokens[j : group + 1]
        return group + 1 - i, [*compared, *named, *_average_unless_said(tokens, group + 1, tokens[group])]
    if _is_average(tokens, j):
        return 1, compared
    if kind_at(tokens, j) in {"index", "stock", "scope"} or _names_index_or_stock(tokens, j):
        raise NotUnderstood(
            f"could not place: '{verb.text} {tokens[j].text}' (the data holds no index prices, so a return "
            "against an index or a stock cannot be computed; compare with the market or a group's average)"
        )
    return None


def _groups_against_market(tokens: list[Token], i: int, subject: int) -> Match | None:
    """Which industries outperformed the market average / 跑赢大盘的行业: each group's average return
    against the whole market's (the question's stocks), a filter on the groups (`having`). The group
    is the subject said before the verb, or (Chinese) the word right after the benchmark."""
    if kind_at(tokens, i + 1) != "benchmark":
        return None
    end = i + 2 + _is_average(tokens, i + 2)
    before = kind_at(tokens, subject) == "dim"
    after = kind_at(tokens, end) == "dim"  # never the market's own industry: that is 跑赢本行业
    if not (before or after):
        return None
    verb = tokens[i]
    versus = VersusGroup("pct_chg", str(verb.value))  # the return, against the market's average
    having = synthetic("having", versus, tokens[i:end])
    if before:
        return end - i, [having]
    return end + 1 - i, [having, tokens[end]]  # the group word last: 跑赢大盘的行业有几个 counts them


def _is_average(tokens: list[Token], j: int) -> bool:
    token = tokens[j] if 0 <= j < len(tokens) else None
    if token is None:
        return False
    return (token.kind == "agg" and token.value == "avg") or (
        token.kind == "aggmetric" and token.value[0] == "avg"
    )


def _average_unless_said(tokens: list[Token], j: int, source: Token) -> list[Token]:
    """The benchmark's average, unless the question says it (the market average, 行业平均涨幅)."""
    return [] if _is_average(tokens, j) else [synthetic("agg", "avg", [source])]


def _names_index_or_stock(tokens: list[Token], j: int) -> bool:
    token = tokens[j] if 0 <= j < len(tokens) else None
    return (
        token is not None
        and token.kind == "cond"
        and isinstance(token.value, Scope)
        and (token.value.kind in {"index", "stock"})
    )
