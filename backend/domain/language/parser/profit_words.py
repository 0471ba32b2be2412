"""Profit and loss said of a report period in everyday words: 前三季度累计是亏的 (累计 restates the
year-to-date figure a report stores), 三季度单季扭亏为盈…二季度单季还亏着 (a swing of one quarter alone
from the loss of an earlier quarter alone that the question names)."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import REPORT_TIME_LABELS, Compare, LossToProfit, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

PROFIT = "n_income_attr_p"
COPULAS = {"是", "为"}  # 累计是亏的: the copula between the word and the sign


def cumulative_profit_sign(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """report period + 累计 + [是] + a profit sign (前三季度累计是亏的, 2025年上半年累计盈利):
    the profit of that report as stored, year to date, so 累计 only restates it. Without a report
    period before it (累计亏损 alone may be the balance sheet's accumulated deficit) it is left to
    refuse."""
    if kind_at(tokens, i) != "agg" or tokens[i].value != "sum" or tokens[i].text != "累计":
        return None
    period = tokens[i - 1].value if kind_at(tokens, i - 1) == "timespec" else None
    if not isinstance(period, TimeSpec) or period.label not in REPORT_TIME_LABELS - {"this_quarter"}:
        return None
    j = i + 1 + (kind_at(tokens, i + 1) == "cmp" and tokens[i + 1].text in COPULAS)
    return (1, []) if kind_at(tokens, j) == "profitable" else None


def quarter_swing_from_named_loss(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """quarter A + 单季 + 扭亏为盈, with a loss of an earlier quarter B alone named in the
    question (三季度单季扭亏为盈…（二季度单季还亏着的那种）): the swing is from that loss, so it adds only
    the profit of quarter A alone — never a second, assumed base (A a year before). With no quarter's
    loss named, a swing of a quarter alone (from the quarter before, or from the same quarter a year
    before?) is left to refuse."""
    quarter = _quarter(tokens, i)
    alone = kind_at(tokens, i + 1) == "single_quarter" and tokens[i + 1].value == "single"
    swing = tokens[i + 2].value if kind_at(tokens, i + 2) == "cond" else None
    if quarter is None or not alone or not isinstance(swing, LossToProfit) or swing.time is not None:
        return None
    losses = [_quarter(tokens, k - 1) for k, token in enumerate(tokens) if _quarter_loss(token)]
    if len(losses) != 1 or losses[0] is None:
        return None
    if quarter.year is None and losses[0].year is not None:
        # 今年一季度单季亏损、二季度单季扭亏为盈: the year said once, with the first quarter, is the second's
        quarter = replace(quarter, year=losses[0].year)
    if not _earlier_in_year(losses[0], quarter):
        return None
    profit = Compare(swing.metric, ">", 0.0, agg="single_quarter", text="0")
    period = synthetic("timespec", quarter, [tokens[i]])
    return 3, [period, synthetic("cond", profit, tokens[i + 1 : i + 3])]


def _quarter(tokens: list[Token], k: int) -> TimeSpec | None:
    value = tokens[k].value if kind_at(tokens, k) == "timespec" else None
    return value if isinstance(value, TimeSpec) and value.label == "quarter" and value.quarter else None


def _quarter_loss(token: Token) -> bool:
    """A loss of a quarter alone (单季亏损, 单季还亏着), its period said before it."""
    loss = token.value if token.kind == "cond" else None
    return (
        isinstance(loss, Compare)
        and loss.metric == PROFIT
        and loss.op == "<"
        and loss.value == 0
        and loss.agg == "single_quarter"
        and loss.time is None
    )


def _earlier_in_year(before: TimeSpec, after: TimeSpec) -> bool:
    """An earlier quarter of the same year (both said with it, or both the latest of their quarter)."""
    return before.year == after.year and (before.quarter or 0) < (after.quarter or 0)
