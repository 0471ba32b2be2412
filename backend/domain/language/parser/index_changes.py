"""Index membership at a time of its own and its changes: 2024年6月底在沪深300里、现在已经被调出,
removed from the CSI 300 since June 2024, in the CSI 300 at some point during 2025.

A membership said with its own day reads the snapshot in force that day; a change compares it with
the membership on the question's day (removed: in then, not now; added: not then, in now); "at some
point during" a window is membership of any snapshot inside it. Runs after the scope passes, which
turn 沪深300(成分股) into a `cond` Scope.
"""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import BoolOp, Condition, Not, Scope, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel


def index_membership(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    return (
        _membership_then(tokens, i)
        or _change_since(tokens, i)
        or _change_at_rebalance(tokens, i)
        or _at_some_point(tokens, i)
    )


def _change_at_rebalance(tokens: list[Token], i: int) -> Match | None:
    """added to INDEX at the December 2025 rebalance / 2025年12月调整时被调入INDEX: the change over that
    month — the snapshot in force on its last trading day against the one on the month before's."""
    if kind_at(tokens, i) == "index_change" and kind_at(tokens, i + 3) == "rebalance":
        change, scope_at, month_at = i, i + 1, i + 2
    elif kind_at(tokens, i + 1) == "rebalance" and kind_at(tokens, i + 2) == "index_change":
        change, scope_at, month_at = i + 2, i + 3, i
    else:
        return None
    scope = _index_scope(tokens, scope_at)
    if scope is None or kind_at(tokens, month_at) != "timespec":
        return None
    month = tokens[month_at].value
    if month.label != "month" or month.year is None or month.month is None:
        return None
    before = (month.year, month.month - 1) if month.month > 1 else (month.year - 1, 12)
    then = replace(scope, time=TimeSpec("period_end", year=before[0], month=before[1]))
    now = replace(scope, time=TimeSpec("period_end", year=month.year, month=month.month))
    return 4, [synthetic("cond", _change(then, now, tokens[change].value), tokens[i : i + 4])]


def _index_scope(tokens: list[Token], j: int) -> Scope | None:
    token = tokens[j] if 0 <= j < len(tokens) else None
    if token is None or token.kind != "cond" or not isinstance(token.value, Scope):
        return None
    scope = token.value
    return scope if scope.kind == "index" and scope.time is None else None


def _membership_then(tokens: list[Token], i: int) -> Match | None:
    """A在INDEX里 [、现在已经被调出]: the membership on day A, and the change since then if said."""
    if kind_at(tokens, i) != "timespec" or not tokens[i].value.is_single_day:
        return None
    if kind_at(tokens, i + 1) != "between":
        return None
    scope = _index_scope(tokens, i + 2)
    if scope is None:
        return None
    then = replace(scope, time=tokens[i].value)
    k = i + 3 + (kind_at(tokens, i + 3) == "and")
    if kind_at(tokens, k) == "timespec" and tokens[k].value.label == "latest":
        k += 1
    if kind_at(tokens, k) == "index_change" and _index_scope(tokens, k + 1) in {None, scope}:
        k += _index_scope(tokens, k + 1) is not None  # 被调出沪深300 names the index again
        return k + 1 - i, [synthetic("cond", _change(then, scope, tokens[k].value), tokens[i : k + 1])]
    return 3, [synthetic("cond", then, tokens[i : i + 3], scope=True)]


def _change_since(tokens: list[Token], i: int) -> Match | None:
    """removed from INDEX since A / A以来被调出INDEX: in the index at A's start, not now (added: the
    other way round)."""
    if kind_at(tokens, i) == "index_change" and kind_at(tokens, i + 2) == "timespec":
        scope, change, since, used = _index_scope(tokens, i + 1), tokens[i].value, tokens[i + 2].value, 3
    elif kind_at(tokens, i) == "timespec" and kind_at(tokens, i + 1) == "index_change":
        scope, change, since, used = _index_scope(tokens, i + 2), tokens[i + 1].value, tokens[i].value, 3
    else:
        return None
    if scope is None or since.label != "since" or since.day is None:
        return None
    then = replace(scope, time=TimeSpec("date", day=since.day))
    return used, [synthetic("cond", _change(then, scope, change), tokens[i : i + used])]


def _at_some_point(tokens: list[Token], i: int) -> Match | None:
    """INDEX at some point during 2025 / 2025年曾经在INDEX里: a member of any snapshot of the window."""
    if (
        kind_at(tokens, i) == "cond"
        and kind_at(tokens, i + 1) == "any"
        and kind_at(tokens, i + 2) == "timespec"
    ):
        scope, window = _index_scope(tokens, i), tokens[i + 2].value
        used = 3
    elif kind_at(tokens, i) == "timespec" and kind_at(tokens, i + 1) == "any":
        j = i + 2 + (kind_at(tokens, i + 2) == "between")
        scope, window = _index_scope(tokens, j), tokens[i].value
        used = j + 1 - i
    else:
        return None
    if scope is None or window.is_single_day:
        return None
    ever = replace(scope, op="any", time=window)
    return used, [synthetic("cond", ever, tokens[i : i + used], scope=True)]


def _change(then: Scope, now: Scope, change: str) -> Condition:
    if change == "removed":
        return BoolOp("and", (then, Not(now)))
    return BoolOp("and", (Not(then), now))
