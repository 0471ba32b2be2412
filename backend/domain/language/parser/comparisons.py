"""Comparisons: 市盈率低于15, 收盘价高于开盘价, 上涨超过5%, 净利润同比增长, 涨停, 翻倍 → `cond` tokens.

Every number is converted here to the stored unit of its metric (100亿 of market cap → 1e6), so
the IR and the QST never carry a number in the question's unit.
"""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import (
    Compare,
    Condition,
    GrowthStreak,
    LossToProfit,
    Scope,
    Sustained,
    Technical,
    TimeSpec,
    VersusGroup,
)
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.break_words import break_operator, is_break_word
from backend.domain.language.parser.changes import relative_change
from backend.domain.language.parser.composition import LIST_DIMENSIONS
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.readings import TTM_OF
from backend.domain.language.parser.rewriting import Match, kind_at, metric_of, says_window, synthetic
from backend.domain.language.parser.sustained import period_count
from backend.domain.language.semantic import Metric, SemanticModel

YOY_OF = {"n_income_attr_p": "netprofit_yoy", "n_income": "netprofit_yoy", "revenue": "or_yoy",
          "total_revenue": "or_yoy"}  # fmt: skip
GROWTH_RATES = set(YOY_OF.values())
BASE_OF = {"or_yoy": "revenue", "netprofit_yoy": "n_income_attr_p"}  # the figure a growth rate is of
OPS_ORDERED = {">", ">=", "<", "<="}
STREAK_LENGTHS = {"longest_up_streak", "longest_down_streak"}  # window measures counted in days
VS_PREVIOUS_CLOSE = {"open": "open_pct", "high": "high_pct", "low": "low_pct", "close": "pct_chg"}
FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "between": "between"}
# the dimensions a stock's own group is named by (its industry, board, exchange, area, listing year)
GROUP_DIMENSIONS = {"industry", "market", "exchange", "area", "list_year"}

# (operator, first number, second number of a range, index after the phrase)
ComparisonTail = tuple[str, Token, Token | None, int]


MEASURES = {"metric", "aggmetric", "change_word", "report_figure"}
# what may stand between a figure and its comparison: its time, 同比 / 环比, a move word, an aggregate
FIGURE_MODIFIERS = {"timespec", "yoy", "qoq", "growth_rate", "up", "down", "agg", "daily_values",
                    "quantifier"}  # fmt: skip
# 也 (also) between a figure and what is said of it (营收同比也增长50%以上, 市净率也低于1): the figure is
# still the subject, the condition AND-ed with the others as any is
ALSO_WORDS = {"也"}
# 又 said the same way once a connective has opened the figure's clause (PE不到10倍、毛利率又高于30%):
# "and also", never "again" (涨停、又涨停 names no figure and stays refused)
ALSO_AFTER_CONNECTIVE = {"又"}
CLAUSE_CONNECTIVES = {"、", "，", ",", "而", "且", "而且", "并且", "同时"}
# words naming a growth rate itself: a move said of one (增速下降) is the rate's change, not the figure's
RATE_NOUNS = ("增速", "增长率", "增幅", "增长速度", "增长幅度")
PREDICATE_KINDS = {"up", "down", "cmp", "number", "between", "doubled", "yoy", "qoq", "growth_rate",
                   "quantifier"}  # fmt: skip


PROFIT_FIGURE = "n_income_attr_p"
PRICE_MEASURES = {"close", "pct_chg"}  # the measures whose up / down is the price's move
OPEN_MOVES = {"高开": ">", "低开": "<"}  # the open's direction against the previous close, in one word
SIZED = {"cmp", "number", "super", "top", "bottom", "order", "dir", "per", "agg"}  # the gap's size asked
LOSS_WORDS = {"loss", "losses", "a loss", "net loss"}  # 'loss' alone is first the decline of a price


def swing(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[swung] from a loss in 2023 to a profit in 2024: the net profit's sign in each period, AND-ed
    (any two periods, either direction; 扭亏为盈 alone is the catalogue's year-on-year concept)."""
    j = i + (kind_at(tokens, i) == "swing")
    if kind_at(tokens, j) != "between" or tokens[j].text != "from":
        return None
    first = _profit_sign(tokens, j + 1)
    if first is None or kind_at(tokens, j + 2) != "timespec" or kind_at(tokens, j + 3) != "to":
        return None
    second = _profit_sign(tokens, j + 4)
    if second is None or second == first or kind_at(tokens, j + 5) != "timespec":
        return None
    before = Compare(PROFIT_FIGURE, first, 0.0, time=tokens[j + 2].value, text="0")
    after = Compare(PROFIT_FIGURE, second, 0.0, time=tokens[j + 5].value, text="0")
    end = j + 6
    return end - i, [
        synthetic("cond", before, tokens[i : j + 3]),
        synthetic("cond", after, tokens[j + 3 : end]),
    ]


def doubled_between_periods(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """[at least / more than] doubled [their] [full-year] EPS in 2024 vs 2023: the figure of the
    first period at least twice (more than twice) that of the second, which must be positive (a loss
    that deepens is no doubling) — one report figure, two periods, any figure (EPS has no stored
    growth rate)."""
    said_op = kind_at(tokens, i) == "cmp" and tokens[i].value in OPS_ORDERED
    j = i + said_op
    if kind_at(tokens, j) != "doubled" or (said_op and tokens[i].value not in {">", ">="}):
        return None
    dated_before = kind_at(tokens, j + 1) == "timespec" and not _yearless_annual(tokens, j + 1)
    k = j + 1 + (kind_at(tokens, j + 1) == "timespec")  # full-year EPS / Q3 2025 revenue
    if kind_at(tokens, k) != "metric" or model.metrics[str(tokens[k].value)].kind != "report":
        return None
    periods = [k + 1] if dated_before else [k + 1, k + 2]  # Q3 2025 revenue vs Q3 2024 / EPS in 2024 vs 2023
    if any(kind_at(tokens, p) != "timespec" for p in periods):
        return None
    later = tokens[j + 1].value if dated_before else tokens[k + 1].value
    earlier = _as_annual(tokens[periods[-1]].value)
    metric, op = str(tokens[k].value), (str(tokens[i].value) if said_op else ">=")
    factor = 100 + float(tokens[j].value)  # doubled: 200% of the earlier figure
    grown = Compare(metric, op, factor, other=metric, ratio=True, time=_as_annual(later), other_time=earlier,
                    text=tokens[j].text)  # fmt: skip
    base = Compare(metric, ">", 0.0, time=earlier, text="0")
    end = periods[-1] + 1
    return end - i, [
        synthetic("cond", grown, tokens[i : end - 1]),
        synthetic("cond", base, tokens[end - 1 : end]),
    ]


def doubled_from_period(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """FY2024 net profit more than doubled from a profitable FY2023 / 2024年净利润比2023年翻倍以上: the
    figure's later period said with it, the earlier after from / 比 (a base said profitable restates
    the doubling's own positive base; a loss-making one is left to refuse)."""
    k = i + (kind_at(tokens, i) == "timespec")
    if kind_at(tokens, k) != "metric" or model.metrics[str(tokens[k].value)].kind != "report":
        return None
    later_at = i if k > i else k + 1
    j = k + 1 + (later_at == k + 1)
    if kind_at(tokens, later_at) != "timespec":
        return None
    said_op = kind_at(tokens, j) == "cmp" and tokens[j].value in {">", ">="}
    doubled_at = j + said_op
    if kind_at(tokens, doubled_at) == "doubled" and kind_at(tokens, doubled_at + 1) in {"between", "than"}:
        # …doubled from [a profitable] FY2023
        earlier_at = doubled_at + 2 + _profitable_base(tokens, doubled_at + 2)
        end = earlier_at + 1
    elif not said_op and kind_at(tokens, j) == "than":  # 比[盈利的]2023年翻倍[以上]
        earlier_at = j + 1 + _profitable_base(tokens, j + 1)
        doubled_at = earlier_at + 1
        end = doubled_at + 1 + _at_least_after(tokens, doubled_at + 1)
    else:
        return None
    if kind_at(tokens, earlier_at) != "timespec" or kind_at(tokens, doubled_at) != "doubled":
        return None
    metric, op = str(tokens[k].value), (str(tokens[j].value) if said_op else ">=")
    earlier = _as_annual(tokens[earlier_at].value)
    later = _as_annual(tokens[later_at].value)
    factor = 100 + float(tokens[doubled_at].value)  # doubled: 200% of the earlier figure
    grown = Compare(metric, op, factor, other=metric, ratio=True, time=later, other_time=earlier,
                    text=tokens[doubled_at].text)  # fmt: skip
    base = Compare(metric, ">", 0.0, time=earlier, text="0")
    return end - i, [
        synthetic("cond", grown, tokens[i:end]),
        synthetic("cond", base, tokens[earlier_at : earlier_at + 1]),
    ]


def _profitable_base(tokens: list[Token], k: int) -> bool:
    """a profitable FY2023 / 盈利的2023年: the base said positive (a loss-making one is not skipped)."""
    return kind_at(tokens, k) == "profitable" and tokens[k].value == ">"


def _as_annual(time: TimeSpec) -> TimeSpec:
    """A bare year beside a report figure is that year's annual report (2024 vs 2023: FY2024, FY2023)."""
    return TimeSpec("annual", year=time.year) if time.label == "year" else time


def _yearless_annual(tokens: list[Token], k: int) -> bool:
    """full-year / annual said with no year of its own (the years follow the figure)."""
    if kind_at(tokens, k) != "timespec":
        return False
    return bool(tokens[k].value.label == "annual" and tokens[k].value.year is None)


def swing_after(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """swung to a profit in FY2024 after losing money in FY2023: the profit's sign in each period said
    (the period before named, not assumed to be the year before), AND-ed."""
    swung = tokens[i].value if kind_at(tokens, i) == "cond" else None
    if not isinstance(swung, LossToProfit) or swung.time is not None or kind_at(tokens, i + 1) != "timespec":
        return None
    if kind_at(tokens, i + 2) != "after" or kind_at(tokens, i + 4) != "timespec":
        return None
    if _profit_sign(tokens, i + 3) != "<":
        return None
    after = Compare(swung.metric, ">", 0.0, time=tokens[i + 1].value, text="0")
    before = Compare(swung.metric, "<", 0.0, time=tokens[i + 4].value, text="0")
    return 5, [synthetic("cond", after, tokens[i : i + 2]), synthetic("cond", before, tokens[i + 2 : i + 5])]


def swing_from_named_loss(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """去年亏损、今年前三季度扭亏为盈 / a loss in 2023, back in profit in 2024: the loss's period is
    named, so the swing adds only the profit of its own period — never a second, assumed base (the
    same period a year before) on top of the one said."""
    if kind_at(tokens, i) != "timespec" or kind_at(tokens, i + 1) != "cond":
        return None
    loss = tokens[i + 1].value
    named_loss = isinstance(loss, Compare) and loss.metric == PROFIT_FIGURE and loss.op == "<"
    if not named_loss or loss.time is not None:
        return None
    j = i + 2 + (kind_at(tokens, i + 2) == "and")
    dated = kind_at(tokens, j) == "timespec" and kind_at(tokens, j + 1) == "cond"
    swung = tokens[j + 1].value if dated else None
    if not isinstance(swung, LossToProfit) or swung.time is not None or swung.metric != loss.metric:
        return None
    before = replace(loss, time=_as_annual(tokens[i].value))
    after = Compare(swung.metric, ">", 0.0, time=_as_annual(tokens[j].value), text="0")
    said_loss, said_swing = tokens[i : i + 2], tokens[j : j + 2]
    return j + 2 - i, [synthetic("cond", before, said_loss), synthetic("cond", after, said_swing)]


def _profit_sign(tokens: list[Token], k: int) -> str | None:
    """'<' for a loss (a loss, loss-making), '>' for a profit (a profit, profitable)."""
    token = tokens[k] if 0 <= k < len(tokens) else None
    if token is None:
        return None
    if token.kind == "profitable":
        return str(token.value)
    if token.kind == "metric" and token.value == PROFIT_FIGURE:
        return ">"
    if token.text in LOSS_WORDS:
        return "<"
    return None


def part_of(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """流通股占总股本比例低于60% / float shares as a percentage of total shares below 60%: one measure
    in % of another of the same unit, read on the same day or report period; 最高价比最低价高出10%以上
    is the same ratio above 110%."""
    said = [kind_at(tokens, k) for k in range(i, i + 3)]
    if said == ["metric", "cmp", "number"]:
        return _percent_of(model, tokens, i)
    if said not in (["metric", "part_of", "metric"], ["metric", "than", "metric"]):
        return None
    part, whole = model.metrics[str(tokens[i].value)], model.metrics[str(tokens[i + 2].value)]
    if part.table != whole.table or part.unit_kind != whole.unit_kind:
        return None  # a share of two figures read apart, or of two units, is not in the grammar
    if said[1] == "than":
        return _ratio_above(tokens, i, part.key, whole.key)
    j = i + 3 + (kind_at(tokens, i + 3) == "share")  # 比例 / 比重
    percent = kind_at(tokens, j + 1) == "number" and tokens[j + 1].extra.get("unit") == "percent"
    if kind_at(tokens, j) != "cmp" or tokens[j].value not in OPS_ORDERED or not percent:
        return None
    condition = Compare(part.key, tokens[j].value, float(tokens[j + 1].value), other=whole.key, ratio=True,
                        text=tokens[j + 1].text)  # fmt: skip
    return j + 2 - i, [synthetic("cond", condition, tokens[i : j + 2])]


def _percent_of(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """float market cap under 60% of total market cap: the part cmp N% of the whole (same table and
    unit), the ratio read as in 流通市值占总市值比例低于60%."""
    number = tokens[i + 2]
    if not number.extra.get("of") or kind_at(tokens, i + 3) != "metric":
        return None
    if tokens[i + 1].value not in OPS_ORDERED:
        return None
    part, whole = model.metrics[str(tokens[i].value)], model.metrics[str(tokens[i + 3].value)]
    if part.table != whole.table or part.unit_kind != whole.unit_kind:
        raise NotUnderstood(
            f"'{number.text} of {tokens[i + 3].text}': a part of a figure read apart or in another unit"
        )
    condition = Compare(part.key, tokens[i + 1].value, float(number.value), other=whole.key, ratio=True,
                        text=number.text)  # fmt: skip
    return 4, [synthetic("cond", condition, tokens[i : i + 4])]


def _ratio_above(tokens: list[Token], i: int, part: str, whole: str) -> Match | None:
    """A 比 B 高出 N% [以上] / 低 N% [以下]: 100 × A ÷ B against 100 ± N; with no number, A above
    (below) B (收盘价比开盘价高)."""
    j = i + 3
    if kind_at(tokens, j) != "comparative":
        return None
    percent = kind_at(tokens, j + 1) == "number" and tokens[j + 1].extra.get("unit") == "percent"
    if not percent:
        if kind_at(tokens, j + 1) == "number":
            return None  # 高出5元: a difference, not read here
        plain = Compare(part, str(tokens[j].value), 0.0, other=whole)
        return 4, [synthetic("cond", plain, tokens[i : j + 1])]
    higher = tokens[j].value == ">"
    end = j + 2
    inclusive = kind_at(tokens, end) == "cmp" and tokens[end].value in {">=", "<="}  # 以上 / 以下
    end += inclusive
    op = (">=" if inclusive else ">") if higher else ("<=" if inclusive else "<")
    level = 100 + float(tokens[j + 1].value) * (1 if higher else -1)
    condition = Compare(part, op, level, other=whole, ratio=True, text=tokens[j + 1].text)
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def bare_price(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """stocks under 5 yuan / 5元以下的股票: a price in plain yuan compared with no measure named is
    the share price, so the close is read into the phrase for `compare`."""
    if kind_at(tokens, i - 1) in MEASURES | {"cmp"}:
        return None
    plain_yuan = [k for k in (i, i + 1) if kind_at(tokens, k) == "number" and _is_plain_yuan(tokens[k])]
    said = (kind_at(tokens, i) == "cmp" and plain_yuan == [i + 1]) or (
        plain_yuan == [i] and kind_at(tokens, i + 1) == "cmp"
    )
    ranged = (  # trading between 10 and 20 yuan: the second number names the unit of both
        kind_at(tokens, i) == "between"
        and kind_at(tokens, i + 1) == "number"
        and kind_at(tokens, i + 2) == "to"
        and kind_at(tokens, i + 3) == "number"
        and _is_plain_yuan(tokens[i + 3])
    )
    if ranged:
        return 1, [Token("metric", "close", "", tokens[i].start), tokens[i]]
    if not said:
        return None
    price = Token("metric", "close", "", tokens[i].start)
    return 2, [price, tokens[i], tokens[i + 1]]


def _is_plain_yuan(token: Token) -> bool:
    return (
        token.extra.get("unit") == "money"
        and float(token.extra.get("factor", 1.0)) == 1.0
        and not token.extra.get("scaled")
    )


def compare(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """metric [time] [同比] [连续N年] cmp value: one comparison (sustained over periods if counted)."""
    token = tokens[i]
    if token.kind not in {"metric", "aggmetric", "change_word", "report_figure"}:
        return None
    if token.kind == "aggmetric":
        agg, metric_key = token.value
    else:
        agg, metric_key = None, metric_of(token)
    time = token.extra.get("time")
    j = i + 1
    yoy = False
    qoq = False
    direction = ""
    growth_named = False
    kept: list[Token] = []  # markers that belong to the whole question, passed through
    while kind_at(tokens, j) in FIGURE_MODIFIERS or also_before_predicate(tokens, j):
        if tokens[j].kind in {"daily_values", "quantifier"}:  # 都 is judged once the periods are known
            kept.append(tokens[j])
        elif tokens[j].kind == "timespec":
            time = tokens[j].value
        elif tokens[j].kind == "yoy":
            yoy = True
        elif tokens[j].kind == "qoq":
            qoq = True
        elif tokens[j].kind == "growth_rate":  # 营收同比增速超过20%: the growth, no direction of its own
            growth_named = True
        elif tokens[j].kind in {"up", "down"}:
            direction = tokens[j].kind
            yoy = yoy or model.metrics[metric_key].kind == "report"
        elif tokens[j].kind == "agg" and tokens[j].value != "count":
            agg = tokens[j].value
        j += 1
    if agg == "sum" and (yoy or qoq or growth_named):
        return None  # 净利润合计同比增长: the total's own growth, never each company's stored rate
    metric = model.metrics[metric_key]
    if growth_named and not qoq:  # 营业收入同比增幅: the year-on-year growth of a report figure
        if metric.kind != "report" or (metric_key not in YOY_OF and metric_key not in GROWTH_RATES):
            return None
        yoy = True
    if qoq:  # 单季营收环比增长超过20%: the quarter's own figure against the quarter before
        if metric.table != "income":
            return None
        yoy, agg = False, "qoq"
    if direction and (growth_named or token.text.endswith(RATE_NOUNS)):
        return None  # 净利润增速下降: the rate slowed, or the figure fell? left to refuse
    if yoy and metric_key in YOY_OF:
        metric = model.metrics[YOY_OF[metric_key]]
    window = token.extra.get("window") if token.kind == "report_figure" else None
    if yoy and window is not None:  # 单季净利润同比: the quarter alone against the same quarter a year before
        window = "single_yoy" if window == "single_quarter" else None
    if kind_at(tokens, j) == "profitable" and not direction and (agg == "qoq" or window):
        # 单季营收环比为负 / 单季净利润同比为正: the sign of the derived figure, never the net profit's
        condition = Compare(metric_key, tokens[j].value, 0.0, time=time, agg=agg or window, text="0")
        return j + 1 - i, [synthetic("cond", condition, tokens[i : j + 1]), *kept]
    said_sign = kind_at(tokens, j) in {"profitable", "nonzero"}  # body non-zero: other than zero
    if said_sign and token.kind == "metric" and agg is None and not direction:
        # 净利润同比为正 / gross margin positive: the measure's own sign (its growth when 同比 is said),
        # never the net profit's that the sign word alone would name
        condition = Compare(metric.key, tokens[j].value, 0.0, time=time, text="0")
        return j + 1 - i, [synthetic("cond", condition, tokens[i : j + 1]), *kept]
    held = period_count(tokens, j)  # ROE连续三年超过15%: the comparison holds in each period
    if held is not None:
        j = held[2]
        if kind_at(tokens, j) == "quantifier" and tokens[j].value == "all":  # 换手率连续3天都在10%以上
            kept.append(tokens[j])
            j += 1
    # 收盘价高于开盘价, 收盘价等于最高价: against another column of the same row
    if (
        kind_at(tokens, j) == "cmp"
        and kind_at(tokens, j + 1) == "metric"
        and tokens[j].value in {*OPS_ORDERED, "="}
    ):
        other = model.metrics[tokens[j + 1].value]
        if other.kind == metric.kind and other.stored_unit == metric.stored_unit:  # 收盘价高于开盘价
            condition = Compare(metric.key, tokens[j].value, 0.0, time=time, other=other.key)
            return j + 2 - i, [synthetic("cond", condition, tokens[i : j + 2])]
    said_op = (
        kind_at(tokens, j) == "cmp" and tokens[j].value in OPS_ORDERED and kind_at(tokens, j + 1) == "doubled"
    )
    if kind_at(tokens, j + said_op) == "doubled" and (metric.key in GROWTH_RATES or metric.key in YOY_OF):
        # 净利润同比翻倍 / net profit doubled in 2024 / more than doubled YoY: its year-on-year growth
        # >= 100% (> 100% for "more than"); a YoY said after it restates the growth
        op, doubled = (tokens[j].value if said_op else ">="), tokens[j + said_op]
        end = j + said_op + 1
        end += not said_op and _at_least_after(tokens, end)  # 翻倍以上: the >= already read
        said_after = kind_at(tokens, end)  # more than doubled from Q2 / year on year
        against = _doubled_against(token, doubled, agg or window, said_after)
        grown = metric_key if against else YOY_OF.get(metric.key, metric.key)
        condition = Compare(grown, op, float(doubled.value), time=time, text=doubled.text, agg=against)
        end += said_after == "yoy" or (said_after == "qoq" and against == "qoq")
        return end - i, [synthetic("cond", condition, tokens[i:end])]
    if kind_at(tokens, j + 1) == "number" and is_break_word(tokens[j]):  # 市净率破1, 股价跌破10元
        broken = break_operator(tokens[j], metric.key, tokens[j + 1])
        if broken is None:
            return None  # 股价破10元: the side is unsaid, left to refuse
        parsed: ComparisonTail | None = broken, tokens[j + 1], None, j + 2
    else:
        parsed = comparison_tail(tokens, j)
    if parsed is None:
        if direction and metric.key in GROWTH_RATES:
            # 净利润同比增长 / revenue declined year over year → growth above / below zero
            op = ">" if direction == "up" else "<"
            condition = Compare(metric.key, op, 0.0, time=time, text="0")
            return j - i, [synthetic("cond", condition, tokens[i:j])]
        return None
    op, first, second, end = parsed
    if kind_at(tokens, end) == "occurrence":
        return None  # 成交量至少3次创20日新高: the number counts the times, it is no volume
    if kind_at(tokens, end) == "yoy" and (yoy or metric_key in YOY_OF or metric_key in GROWTH_RATES):
        # grew 30% year over year; rev growth > 30% yoy (the growth rate is already year on year)
        metric = model.metrics[YOY_OF.get(metric_key, metric.key)]
        end += 1
    if kind_at(tokens, end) == "qoq" and model.metrics[metric_key].table == "income":
        metric, agg = model.metrics[metric_key], "qoq"  # grew 20% quarter on quarter
        end += 1
    percent = first.extra.get("unit") == "percent"
    if (
        not direction
        and percent
        and kind_at(tokens, end) in {"up", "down"}
        and metric.key in VS_PREVIOUS_CLOSE
    ):
        direction = tokens[end].kind  # opened more than 3% higher: the direction said after the size
        end += 1
    moved = direction and percent and not yoy
    if kind_at(tokens, end) == "vs_prev_close" and metric.key in VS_PREVIOUS_CLOSE:
        metric = model.metrics[VS_PREVIOUS_CLOSE[metric.key]]  # opened 5% above the previous close
        end += 1
    elif moved and metric.key in VS_PREVIOUS_CLOSE:
        # opened down 1% or more: the day's price against the previous close, its sign the direction's
        metric = model.metrics[VS_PREVIOUS_CLOSE[metric.key]]
    elif kind_at(tokens, end) == "vs_open" and metric.key == "close" and first.extra.get("unit") == "percent":
        metric = model.metrics["body_pct"]  # closing more than 8% above the open
        end += 1
    if token.kind == "report_figure" and metric.key in GROWTH_RATES:
        # 单季净利润同比增长 / standalone revenue up 30% YoY: the quarter alone against the same
        # quarter a year before; a trailing figure's growth is not read
        if token.extra["window"] != "single_quarter":
            return None
        metric, agg = model.metrics[metric_key], "single_yoy"
    elif token.kind == "report_figure" and agg != "qoq":
        agg = token.extra["window"]
    if agg == "sum" and metric.key == "pct_chg":
        agg = None  # 累计涨幅 = the gain over the window
    if first.extra.get("unit") == "times" and (metric.key in GROWTH_RATES or agg in {"qoq", "single_yoy"}):
        if direction != "up" or second is not None:
            return None  # 同比下降一倍: a growth rate in 倍 read only as 增长了N倍
        first = _times_as_percent(first)  # 同比增长了一倍以上: a growth of 100% or more
    days_unit = kind_at(tokens, end) == "tunit" and tokens[end].value in {"day", "trading_day"}
    if agg in STREAK_LENGTHS and days_unit:
        end += 1  # 最长连涨天数超过12天: the unit a streak is counted in
    comparison = _make_compare(metric, op, first, second, time, agg)
    growth = metric.key in YOY_OF.values() or agg in {"qoq", "single_yoy"}
    signed = growth or (moved and metric.key in VS_PREVIOUS_CLOSE.values())
    if direction == "down" and signed and comparison.value >= 0:
        # 营收同比下滑超过20%: a growth rate below −20%, not above +20%
        second_value = -comparison.value2 if comparison.value2 is not None else None
        comparison = replace(comparison, op=FLIPPED[op], value=-comparison.value, value2=second_value)
    result: Condition = comparison if held is None else Sustained(comparison, held[0], held[1])
    return end - i, [synthetic("cond", result, tokens[i:end]), *kept]


JOINING = {"和", "与", "及", "以及", "and", "&"}


def shared_comparison(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """revenue and net profit both up more than 50% YoY / 营收和净利润都增长30%以上: one comparison
    said of two metrics holds for each of them (their conditions AND-ed)."""
    both = kind_at(tokens, i + 3) == "quantifier" and tokens[i + 3].value == "all"
    # 营收、净利润(都)同比增长30%以上: a list comma between two bare metrics joins them like 和 (read
    # otherwise, the first metric was only shown and its condition silently dropped)
    joined = kind_at(tokens, i + 1) in {"and", "to"} and tokens[i + 1].text in JOINING | {"、"}
    if tokens[i].kind != "metric" or not joined or kind_at(tokens, i + 2) != "metric":
        return None
    tail = i + 3 + both
    first = compare(model, [_growth_said_once(tokens[i], tokens[i + 2]), *tokens[tail:]], 0)
    second = compare(model, [tokens[i + 2], *tokens[tail:]], 0)
    if first is None or second is None or first[0] != second[0] or first[0] < 2:
        return None
    if tokens[i + 1].text == "、" and not both and not _same_scale(model, first[1][0], second[1][0]):
        return None  # 显示市值、市盈率低于10: a figure shown, then another's condition
    end = tail + first[0] - 1
    return end - i, [*first[1], tokens[i + 1], *second[1]]


def _growth_said_once(first: Token, second: Token) -> Token:
    """营收和净利润增速 / revenue and net profit growth: the growth word said once, after the second
    figure, is the first's too (its year-on-year growth rate, never the figure itself)."""
    if first.value in YOY_OF and second.value in GROWTH_RATES:
        return replace(first, value=YOY_OF[str(first.value)])
    return first


def _same_scale(model: SemanticModel, first: Token, second: Token) -> bool:
    """Whether one threshold can be said of both compared metrics: the same kind of unit (two growth
    rates, two multiples), never a money amount beside a ratio."""
    one, other = _subject(first.value)[0], _subject(second.value)[0]
    if one is None or other is None or one not in model.metrics or other not in model.metrics:
        return False
    scales = [(model.metrics[key].unit_kind, model.metrics[key].percent) for key in (one, other)]
    return scales[0] == scales[1]


def elided_subject(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """revenue rose every year from 2021 through 2024 and topped 10 billion yuan in 2024 / 市值超过100亿
    且低于500亿: a comparison with no metric of its own is said of the previous condition's metric,
    when the number's unit fits that metric (a money amount never compares with a growth rate)."""
    joined = kind_at(tokens, i + 1) == "and" or (
        kind_at(tokens, i + 1) == "to" and tokens[i + 1].text in JOINING
    )
    if kind_at(tokens, i) != "cond" or not joined:
        return None
    metric_key, own_time = _subject(tokens[i].value)
    parsed = comparison_tail(tokens, i + 2)
    if metric_key is None or parsed is None or metric_key not in model.metrics:
        return None
    op, first, second, end = parsed
    metric = model.metrics[metric_key]
    if metric_key in BASE_OF and not _unit_fits(metric, first):
        metric = model.metrics[BASE_OF[metric_key]]  # 营收同比增长超过20%且超过100亿: the revenue itself
    if not _unit_fits(metric, first):
        return None
    time = own_time
    if kind_at(tokens, end) == "timespec":
        time = tokens[end].value
        end += 1
    condition = _make_compare(metric, op, first, second, time, None)
    return end - i, [tokens[i], tokens[i + 1], synthetic("cond", condition, tokens[i + 2 : end])]


# what stands between a count said after the first and the figure compared (its elided comparisons)
COUNTED_COMPARISON_WORDS = {"and", "to", "count", "cmp", "number", "between", "betw_end"}


def elided_counted_subject(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """How many have a P/E under 10, how many between 10 and 20, and how many above 50 / 市盈率低于10的
    有多少家，高于50的有多少家: each count after the first says its comparison of the same figure."""
    english = kind_at(tokens, i) == "count" and not tokens[i].extra
    chinese = kind_at(tokens, i) == "and" and kind_at(tokens, i - 1) == "count"
    if not english and not chinese:
        return None
    k = i - 1
    while (
        kind_at(tokens, k) in COUNTED_COMPARISON_WORDS
    ):  # over the counts said before it, back to the figure
        k -= 1
    parsed = comparison_tail(tokens, i + 1)
    if k < 0 or kind_at(tokens, k) != "cond" or parsed is None:
        return None
    metric_key, own_time = _subject(tokens[k].value)
    op, first, second, end = parsed
    if metric_key is None or metric_key not in model.metrics or (chinese and kind_at(tokens, end) != "count"):
        return None
    metric = model.metrics[metric_key]
    if not _unit_fits(metric, first):
        return None
    condition = _make_compare(metric, op, first, second, own_time, None)
    return end - i, [tokens[i], synthetic("cond", condition, tokens[i + 1 : end])]


def _subject(condition: object) -> tuple[str | None, TimeSpec | None]:
    if isinstance(condition, Compare) and condition.other is None and condition.agg is None:
        return condition.metric, condition.time
    if isinstance(condition, GrowthStreak):
        return condition.metric, condition.time
    if isinstance(condition, Sustained):
        return condition.compare.metric, condition.compare.time
    return None, None


def _unit_fits(metric: Metric, number: Token) -> bool:
    unit = number.extra.get("unit", "")
    if unit == "percent":
        return metric.percent
    if unit in {"money", "shares"} or number.extra.get("scaled"):
        return not metric.percent and metric.input_unit.name != "倍"
    if unit == "times":
        return metric.input_unit.name == "倍"
    return True


# the figure a price is a multiple of → that multiple: 15x earnings is the P/E, 2x sales the P/S
MULTIPLE_OF = {"n_income_attr_p": "pe", "n_income": "pe", "revenue": "ps", "total_revenue": "ps"}


def multiple_of_measure(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """below 0.6x book / less than 3 times trailing sales / under 15x earnings: cmp N times a
    valuation base = the multiple (P/B, P/S TTM, P/E …) compared with N. Only a metric counted in
    倍, or a figure a multiple is taken of (MULTIPLE_OF), takes a multiple. A part or a multiple said
    in words (below half of book value, more than twice book) is that number; "trailing" before the
    earnings or sales (under 20x trailing earnings) is the TTM multiple."""
    # trading above twice book: a verb of standing above is the comparison
    op = ">" if tokens[i].kind == "stand_above" else tokens[i].value if tokens[i].kind == "cmp" else None
    if op not in OPS_ORDERED:
        return None
    number = tokens[i + 1] if kind_at(tokens, i + 1) in {"number", "fraction", "twice"} else None
    if number is None or (number.kind == "number" and number.extra.get("unit") != "times"):
        return None
    trailing = kind_at(tokens, i + 2) == "recent" and tokens[i + 2].text == "trailing"
    at = i + 2 + trailing
    if kind_at(tokens, at) != "metric":
        return None
    base = metric_of(tokens[at])
    if number.kind != "number" and base not in MULTIPLE_OF and base != "pb":
        return None  # half of / twice a figure that is no valuation base (twice the PE) is left alone
    key = MULTIPLE_OF.get(base, base)
    if trailing:
        if base not in MULTIPLE_OF:
            return None
        key = TTM_OF[key]
    metric = model.metrics[key]
    if metric.input_unit.name != "倍":
        return None
    condition = Compare(metric.key, op, float(number.value), text=number.text)
    return at + 1 - i, [synthetic("cond", condition, tokens[i : at + 1])]


def price_move(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """上涨超过5% / fell more than 3% / 跌超3% → a pct_chg comparison (over a window if one is given).
    After another measure (volume up today, 净利润上涨) the move is that measure's, never the price's."""
    if kind_at(tokens, i) == "metric" and tokens[i].value not in PRICE_MEASURES:
        return _measure_since_yesterday(model, tokens, i)
    if _said_of_measure(tokens, i):
        return None  # not read above: left for the leftovers to refuse
    j = i
    time = None
    if kind_at(tokens, j) == "timespec":
        time = tokens[j].value
        j += 1
    if kind_at(tokens, j) not in {"up", "down"}:
        return None
    direction = tokens[j].kind
    j += 1
    if kind_at(tokens, j) == "timespec" and time is None:
        # a time after the move is its own only when none came before: 昨天上涨今天下跌 (today the fall's)
        time = tokens[j].value
        j += 1
    if kind_at(tokens, j) == "per" and kind_at(tokens, j + 1) in {"cmp", "number"}:  # fell by more than 9%
        j += 1
    if (
        kind_at(tokens, j) == "agg"
        and tokens[j].value == "avg"
        and kind_at(tokens, j + 1) in {"", "timespec", "and"}
    ):
        # which industries were up on average over the last 5 sessions: the average move's sign
        averaged = Compare("pct_chg", ">" if direction == "up" else "<", 0.0, time=time, agg="avg", text="0")
        return j + 1 - i, [synthetic("cond", averaged, tokens[i : j + 1])]
    parsed = comparison_tail(tokens, j)
    if parsed is None:
        if kind_at(tokens, j) == "number" and tokens[j].extra.get("unit") == "percent":  # 上涨5%
            parsed = (">=", tokens[j], None, j + 1)
        else:
            sign = Compare("pct_chg", ">" if direction == "up" else "<", 0.0, time=time, text="0")
            return j - i, [synthetic("cond", sign, tokens[i:j])]
    op, first, second, end = parsed
    if first.extra.get("unit") not in {"percent", ""}:
        return None
    metric = model.metrics["pct_chg" if direction == "up" else "decline"]
    condition = _make_compare(metric, op, first, second, time, None)
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def _measure_since_yesterday(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """volume up today / turnover down today: the day's measure above (below) the day before's; a size
    (volume up 50%) or another day is not read here."""
    measure = model.metrics.get(str(tokens[i].value))
    if not _said_of_measure(tokens, i + 1 + (kind_at(tokens, i + 1) == "timespec")):
        return None
    j = i + 1
    time = tokens[j].value if kind_at(tokens, j) == "timespec" else None
    j += time is not None
    if measure is None or measure.kind != "daily" or kind_at(tokens, j) not in {"up", "down"}:
        return None
    op = ">" if tokens[j].kind == "up" else "<"
    j += 1
    if time is None and kind_at(tokens, j) == "timespec":
        time, j = tokens[j].value, j + 1
    if kind_at(tokens, j) in {"cmp", "number", "per"} or (time is not None and time.label != "latest"):
        return None
    condition = Compare(measure.key, op, 0.0, other=measure.key, time=TimeSpec("latest"),
                        other_time=TimeSpec("yesterday"), text="0")  # fmt: skip
    return j - i, [synthetic("cond", condition, tokens[i:j])]


def _doubled_against(figure: Token, doubled: Token, agg: str | None, said_after: str) -> str | None:
    """单季净利润比二季度翻倍 / standalone net profit doubled from Q2 / 单季营收同比翻倍: a quarter's own
    figure doubled against the quarter before (qoq) or the same quarter a year before (single_yoy), a growth
    of that derived figure, never the year-to-date YoY; None for a figure said as stored (its YoY)."""
    if figure.kind != "report_figure":
        return None
    qoq = agg == "qoq" or said_after == "qoq"
    yoy = agg == "single_yoy" or said_after == "yoy"
    if figure.extra["window"] != "single_quarter" or qoq == yoy:  # TTM, or against which period?
        raise NotUnderstood(f"'{figure.text}' '{doubled.text}': doubled against which period? say 环比 / "
                            "比上季度 or 同比 of a quarter alone")  # fmt: skip
    return "qoq" if qoq else "single_yoy"


def _times_as_percent(number: Token) -> Token:
    """增长了N倍: the figure grew by N times itself, a growth rate of N × 100%."""
    return replace(number, value=float(number.value) * 100, extra={**number.extra, "unit": "percent"})


def also_word(tokens: list[Token], j: int) -> bool:
    """也 at j, or 又 right after a figure that opens a clause after a connective (、毛利率又高于30%)."""
    if kind_at(tokens, j) == "and" and tokens[j].text in ALSO_WORDS:
        return True
    if kind_at(tokens, j) != "again" or tokens[j].text not in ALSO_AFTER_CONNECTIVE:
        return False
    k = j - 2 - (kind_at(tokens, j - 2) == "timespec")  # 、今年前三季度营收又转正增长
    opened = kind_at(tokens, k) == "and" and tokens[k].text in CLAUSE_CONNECTIVES and k > 0
    return kind_at(tokens, j - 1) in MEASURES and opened


def also_before_predicate(tokens: list[Token], j: int) -> bool:
    """也 (又) at j, with what is said of the figure before it right after it (营收也涨了30%)."""
    return also_word(tokens, j) and kind_at(tokens, j + 1) in PREDICATE_KINDS


def _said_of_measure(tokens: list[Token], i: int) -> bool:
    """A move word right after a measure that is not the price (volume up, 净利润上涨, volume today up,
    成交量也放大), nothing but a day or 也 between them; after words skipped as filler (volume of stocks
    up 5%) the move is the stocks'."""
    k = i - 1 - also_word(tokens, i - 1)
    k -= kind_at(tokens, k) == "timespec"
    if i >= len(tokens) or kind_at(tokens, k) != "metric" or tokens[k].value in PRICE_MEASURES:
        return False
    if tokens[k].text in OPEN_MOVES:
        return False  # 低开收绿: the open's direction said in one word, then the day's close (its own move)
    return all(tokens[m + 1].start - (tokens[m].start + len(tokens[m].text)) <= 1 for m in range(k, i))


def _at_least_after(tokens: list[Token], k: int) -> bool:
    """翻倍以上 / doubled or more: an "at least" after a doubling, with no number of its own, restates
    its >=."""
    return kind_at(tokens, k) == "cmp" and tokens[k].value == ">=" and kind_at(tokens, k + 1) != "number"


def _doubles_a_figure(model: SemanticModel, tokens: list[Token], i: int) -> bool:
    """[more than] doubled + [a period] + a report figure: the company doubled that figure."""
    j = i + (kind_at(tokens, i) == "cmp")
    if kind_at(tokens, j) != "doubled":
        return False
    k = j + 1 + (kind_at(tokens, j + 1) == "timespec")
    return kind_at(tokens, k) == "metric" and model.metrics[str(tokens[k].value)].kind == "report"


def single_word_conditions(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """Conditions said in one word: 涨停 / limit down, 翻倍 / doubled, 盈利 / profitable."""
    if tokens[i].kind == "price_limit":  # closed at the board's daily price limit
        return 1, [synthetic("cond", Technical(str(tokens[i].value), 1), tokens[i : i + 1])]
    if _doubles_a_figure(model, tokens, i):
        return None  # doubled their EPS: the figure's growth, never the price (left to refuse if unread)
    if tokens[i].kind == "doubled":  # a gain of at least 100% over the question's window
        condition = Compare("pct_chg", ">=", float(tokens[i].value), text=tokens[i].text)
        used = 1 + _at_least_after(tokens, i + 1)
        return used, [synthetic("cond", condition, tokens[i : i + used])]
    price = kind_at(tokens, i) == "metric" and tokens[i].value == "close"  # 股价腰斩: the price said
    j = i + price
    of_figure = kind_at(tokens, i - 1) in {"metric", "report_figure"}
    halved = kind_at(tokens, j) == "halved" and (price or not of_figure)
    if halved and says_window(tokens):
        # 腰斩: the price down at least 50% over the question's window; a figure halved, or no window
        # said (no base to fall from), is left unread
        condition = Compare("pct_chg", "<=", float(tokens[j].value), text=tokens[j].text)
        return j + 1 - i, [synthetic("cond", condition, tokens[i : j + 1])]
    if tokens[i].kind == "cmp" and kind_at(tokens, i + 1) == "doubled":  # more than doubled: > 100%
        doubled = tokens[i + 1]
        condition = Compare("pct_chg", tokens[i].value, float(doubled.value), text=doubled.text)
        return 2, [synthetic("cond", condition, tokens[i : i + 2])]
    if _bare_open_move(tokens, i):  # 今天低开 / 高开 with no size: the open below / above the last close
        op = OPEN_MOVES[tokens[i].text]
        return 1, [synthetic("cond", Compare("open_pct", op, 0.0, text="0"), tokens[i : i + 1])]
    alone = tokens[i].kind == "single_quarter" and kind_at(tokens, i + 1) == "profitable"  # 单季亏损
    j = i + alone
    if tokens[j].kind != "profitable":
        return None
    used = j + 1 - i
    signed = _signed_measure(model, tokens, j)
    if signed is not None:  # positive YoY net profit growth, positive ROE: that measure's sign
        metric, end = signed
        return end - i, [synthetic("cond", Compare(metric, ">", 0.0, text="0"), tokens[i:end])]
    if kind_at(tokens, j + 1) == "metric" and tokens[j + 1].value in {"n_income_attr_p", "n_income"}:
        used += 1  # "positive net profit"
    window = tokens[i] if alone else None
    kept = []  # loss-making [companies] on a TTM basis: the window said after (the stock noun kept)
    k = i + used + (kind_at(tokens, i + used) == "count_unit")
    if window is None and kind_at(tokens, k) == "single_quarter":
        window, kept, used = tokens[k], tokens[i + used : k], k + 1 - i
    # 单季亏损 / a TTM net loss: the quarter's own or the trailing four quarters' profit
    agg = None if window is None else ("ttm" if window.value == "ttm" else "single_quarter")
    if window is None and _quarter_among_quarters_alone(tokens, i + used):
        agg = "single_quarter"  # …up 50% q/q, only names with a profitable Q2: Q2 alone
    condition = Compare("n_income_attr_p", tokens[j].value, 0.0, text="0", agg=agg)
    return used, [synthetic("cond", condition, tokens[i : i + used]), *kept]


def _quarter_among_quarters_alone(tokens: list[Token], k: int) -> bool:
    """A profit sign said with a quarter (a profitable Q2) in a question that compares quarters alone
    (standalone, q/q): that quarter's own profit, as the comparison reads its quarters."""
    said_quarter = kind_at(tokens, k) == "timespec" and tokens[k].value.label == "quarter"
    if not said_quarter or tokens[k].value.quarter == 4:
        return False
    return any(
        token.kind == "cond"
        and isinstance(token.value, Compare)
        and token.value.agg in {"single_quarter", "qoq"}
        for token in tokens
    )


def _signed_measure(model: SemanticModel, tokens: list[Token], j: int) -> tuple[str, int] | None:
    """'positive' [YoY] + a report measure other than the profit itself (positive YoY net profit
    growth, positive YoY revenue): the measure (its growth when YoY is said) and where it ends."""
    if tokens[j].text != "positive":
        return None
    yoy = kind_at(tokens, j + 1) == "yoy"
    k = j + 1 + yoy
    if kind_at(tokens, k) != "metric" or (tokens[k].value in {"n_income_attr_p", "n_income"} and not yoy):
        return None
    metric = model.metrics[str(tokens[k].value)]
    if yoy and metric.key in YOY_OF:
        metric = model.metrics[YOY_OF[metric.key]]
    if metric.kind != "report" or (yoy and metric.key not in GROWTH_RATES):
        return None
    return metric.key, k + 1


def _bare_open_move(tokens: list[Token], i: int) -> bool:
    """低开 / 高开 said as what the day did, not as the measure ranked or compared (低开超过3%, 高开最多,
    按高开排序 are the size of the gap, read by the passes that rank and compare)."""
    if tokens[i].kind != "metric" or tokens[i].text not in OPEN_MOVES:
        return False
    return kind_at(tokens, i + 1) not in SIZED and kind_at(tokens, i - 1) not in SIZED


def comparison_tail(tokens: list[Token], j: int) -> ComparisonTail | None:
    """cmp N | between N and M | N cmp-postfix | 在 N 以上 | N 到 M 之间."""
    kind = kind_at(tokens, j)
    if kind == "cmp" and kind_at(tokens, j + 1) == "number":
        op = tokens[j].value
        first = tokens[j + 1]
        end = j + 2
        if kind_at(tokens, end) == "cmp" and tokens[end].value in {">=", "<="} and op in {"=", ">", "<"}:
            op = tokens[end].value if op == "=" else op
            end += 1
        if (kind_at(tokens, end) == "to" and kind_at(tokens, end + 1) == "number"
                and (kind_at(tokens, end + 2) == "betw_end" or op == "=")):  # fmt: skip
            second = tokens[end + 1]
            end += 2 + (kind_at(tokens, end + 2) == "betw_end")
            return "between", first, second, end
        return op, first, None, end
    if kind == "between" and kind_at(tokens, j + 1) == "number":
        first = tokens[j + 1]
        if kind_at(tokens, j + 2) == "to" and kind_at(tokens, j + 3) == "number":
            end = j + 4 + (kind_at(tokens, j + 4) == "betw_end")
            return "between", first, tokens[j + 3], end
        if kind_at(tokens, j + 2) == "cmp":
            return tokens[j + 2].value, first, None, j + 3
        return None
    if kind == "number":
        first = tokens[j]
        if kind_at(tokens, j + 1) == "cmp" and tokens[j + 1].value in {">=", "<="}:
            return tokens[j + 1].value, first, None, j + 2
        if kind_at(tokens, j + 1) == "to" and kind_at(tokens, j + 2) == "number":
            if kind_at(tokens, j + 3) == "betw_end":
                return "between", first, tokens[j + 2], j + 4
            if _has_unit(tokens[j + 2]):  # 总市值100亿到500亿: a range of the figure, 之间 unsaid
                return "between", first, tokens[j + 2], j + 3
    return None


def _has_unit(number: Token) -> bool:
    """A number said with its unit (500亿, 20倍, 10%, 20元), a figure rather than a count or a rank."""
    return bool(number.extra.get("unit") or number.extra.get("scaled"))


def _make_compare(
    metric: Metric, op: str, first: Token, second: Token | None, time: TimeSpec | None, agg: str | None
) -> Compare:
    value = _stored_value(metric, _shared_unit(first, second))
    value2 = _stored_value(metric, second) if second is not None else None
    if metric.negated:  # 跌幅超过5% → pct_chg < -5
        if op == "between" and value2 is not None:
            value, value2 = -value2, -value
        else:
            value = -value
        return Compare(metric.column, FLIPPED[op], value, value2, time=time, agg=agg, text=first.text)
    return Compare(metric.key, op, value, value2, time=time, agg=agg, text=first.text)


def _shared_unit(first: Token, second: Token | None) -> Token:
    """介于10亿到20亿 written 10到20亿: the first number takes the unit of the second."""
    if second is not None and not first.extra.get("unit") and not first.extra.get("scaled"):
        return Token(first.kind, first.value, first.text, first.start, dict(second.extra))
    return first


def _stored_value(metric: Metric, token: Token) -> float:
    """The number of a question in the metric's stored unit (the classic silent error)."""
    value = float(token.value)
    unit = token.extra.get("unit", "")
    factor = float(token.extra.get("factor", 1.0))
    if unit in {"percent", "times"}:
        return value
    if unit in {"money", "shares"} or token.extra.get("scaled"):
        base_per_unit = 1.0
        if (
            unit not in {"money", "shares"}
            and metric.unit_kind == "shares"
            and metric.input_unit.name == "手"
        ):
            base_per_unit = 100.0  # 成交量大于100万 = 100万手
        return value * factor * base_per_unit / metric.stored_unit.factor
    return value * metric.input_unit.factor / metric.stored_unit.factor


# a verb of trading whose measure is the one its object names (traded more than the average trading value)
TRADED = {"traded", "trades", "trading"}


def _scoped(tokens: list[Token]) -> bool:
    """The question names its stocks (banks, SSE stocks): 'the market' or 'all stocks' is not them."""
    return any(token.kind == "cond" and token.extra.get("scope") for token in tokens)


def _is_multiple(tokens: list[Token], j: int) -> bool:
    """twice / three times / 2x the average: a factor said before the average."""
    if kind_at(tokens, j) == "twice":
        return True
    return kind_at(tokens, j) == "number" and tokens[j].extra.get("unit") == "times"


def _names_own_group(tokens: list[Token], j: int) -> bool:
    """The group named before its dimension word (the baijiu industry average) is the stocks' own
    group when the question's stocks are that one group's (baijiu stocks): the same as 'its'."""
    named = tokens[j].value if kind_at(tokens, j) == "cond" and tokens[j].extra.get("scope") else None
    if not isinstance(named, Scope) or len(named.values) != 1 or kind_at(tokens, j + 1) != "dim":
        return False
    if LIST_DIMENSIONS.get(named.kind) != tokens[j + 1].value:
        return False
    return any(token.value == named for k, token in enumerate(tokens) if k != j and token.kind == "cond")


def versus_group_average(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """metric [time] cmp [本/所在/its] [dim] 平均 [metric]: 市盈率低于行业平均, 涨幅跑赢本行业平均,
    P/E below its industry average, above the market average (no dimension: the question's stocks)."""
    if tokens[i].kind not in {"metric", "change_word"}:
        return None
    metric = model.metrics[metric_of(tokens[i])]
    j = i + 1
    time = None
    if kind_at(tokens, j) == "timespec":
        time = tokens[j].value
        j += 1
    if kind_at(tokens, j) == "than":  # 比所在行业平均涨幅高出5个百分点以上
        return _beyond_group_average(model, tokens, i, j + 1, metric, time)
    if kind_at(tokens, j) != "cmp" or tokens[j].value not in OPS_ORDERED:
        return None
    op = tokens[j].value
    j += 1
    factor = 1.0
    if kind_at(tokens, j) == "fraction" or _is_multiple(tokens, j):  # less than half of / twice the average
        factor = float(tokens[j].value)
        j += 1
    j += kind_at(tokens, j) == "own"
    j += _names_own_group(tokens, j)  # baijiu stocks … above the baijiu industry average
    market = kind_at(tokens, j) == "benchmark" and tokens[j].value == "market"  # the market average
    if market and _scoped(tokens):
        return None  # banks below the market average: not the banks' own average
    j += market
    if tokens[i].text in TRADED and kind_at(tokens, j) == "aggmetric" and tokens[j].value[0] == "avg":
        metric = model.metrics[tokens[j].value[1]]  # traded more than the average trading value
    dimensions = []
    if kind_at(tokens, j) == "dim":
        dimensions.append(tokens[j].value)
        j += 1
    average = tokens[j] if 0 <= j < len(tokens) else None
    if average is None or (average.kind, average.value) not in {
        ("agg", "avg"),
        ("aggmetric", ("avg", metric.key)),
    }:
        return None
    j += 1
    if (
        not dimensions and kind_at(tokens, j + (kind_at(tokens, j) == "own")) == "dim"
    ):  # the average of its industry
        j += 1 + (kind_at(tokens, j) == "own")
        dimensions.append(tokens[j - 1].value)
    if dimensions and dimensions[0] not in GROUP_DIMENSIONS:
        return None
    j += _names(tokens, j, metric)  # 行业平均市盈率的一半
    if kind_at(tokens, j) == "fraction" and factor == 1.0:  # 低于行业平均的一半
        factor = float(tokens[j].value)
        j += 1
    every_stock = kind_at(tokens, j) == "all_of" and kind_at(tokens, j + 1) == "count_unit"
    if every_stock and not dimensions:  # the average of all stocks: the question's own set, unless scoped
        if _scoped(tokens):
            return None
        j += 2
    if metric.negated:  # 跌幅低于行业平均 = the change above the industry's average change
        if factor != 1.0:
            return None
        metric, op = model.metrics[metric.column], FLIPPED[op]
    dimension = dimensions[0] if dimensions else None
    margin, j, time, op = _margin_after_average(model, tokens, j, metric, op, factor, time)
    if margin is None:
        return None
    condition = VersusGroup(metric.key, op, dimension, "avg", time, factor=factor, margin=margin)
    return j - i, [synthetic("cond", condition, tokens[i:j])]


def _margin_after_average(
    model: SemanticModel,
    tokens: list[Token],
    j: int,
    metric: Metric,
    op: str,
    factor: float,
    time: TimeSpec | None,
) -> tuple[float | None, int, TimeSpec | None, str]:
    """[its time] by [more than] N after the average (beat the industry's average move today by more
    than 5 points): the margin, in the metric's stored unit, its sign the comparison's; (0, j, time)
    when none is said; None when a margin is said of a multiple (twice the average by 5?). The
    operator on the margin is inclusive with "at least"."""
    k = j + (time is None and kind_at(tokens, j) == "timespec")
    said = kind_at(tokens, k) == "per" and tokens[k].text == "by"
    threshold, end = _difference(tokens, k) if said else (None, j)
    if threshold is None:
        return 0.0, j, time, op
    if factor != 1.0 or op not in OPS_ORDERED:
        return None, j, time, op
    if k > j:
        time = tokens[j].value
    margin = _stored_value(metric, threshold) * (-1 if op.startswith("<") else 1)
    return margin, end, time, _threshold_op(op[0], tokens, k)


def _beyond_group_average(
    model: SemanticModel, tokens: list[Token], i: int, j: int, metric: Metric, time: TimeSpec | None
) -> Match | None:
    """metric 比 [所在] dim 平均 [metric] 高/低 [N [以上]]: the stock's value against its group's
    average, by more than a margin when one is said."""
    j += kind_at(tokens, j) == "own"
    if kind_at(tokens, j) != "dim" or tokens[j].value not in GROUP_DIMENSIONS:
        return None
    dimension = tokens[j].value
    average = (kind_at(tokens, j + 1), tokens[j + 1].value if j + 1 < len(tokens) else None)
    if average == ("agg", "avg"):
        j += 2 + _names(tokens, j + 2, metric)
    elif average == ("aggmetric", ("avg", metric.key)):  # 行业平均涨幅
        j += 2
    else:
        return None
    if kind_at(tokens, j) in {"comparative", "cmp"} and tokens[j].value in OPS_ORDERED:
        op = tokens[j].value
    elif kind_at(tokens, j) in {"up", "down"}:
        op = ">" if tokens[j].kind == "up" else "<"
    else:
        return None
    threshold, end = _difference(tokens, j + 1)
    margin = 0.0
    if threshold is not None:
        margin = _stored_value(metric, threshold) * (-1 if op.startswith("<") else 1)
        op = _threshold_op(op, tokens, j + 1)
    if metric.negated:
        return None  # 跌幅比行业平均…: say it with the change
    condition = VersusGroup(metric.key, op, dimension, "avg", time, margin=margin)
    return max(end, j + 1) - i, [synthetic("cond", condition, tokens[i : max(end, j + 1)])]


def versus_other_period(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """The same figure in two periods: 2024年净利润比2023年多10亿以上 / 今天收盘价高于昨天收盘价 /
    2024 net profit exceeded their 2023 net profit by more than 1 billion yuan → Compare with
    `other_time` (the difference against the threshold, 0 when none is said)."""
    j = i
    ahead = _direction_before_two_periods(model, tokens, i)
    if ahead is not None:
        return ahead
    times: list[TimeSpec | None] = []
    if kind_at(tokens, j) == "timespec":
        times.append(tokens[j].value)
        j += 1
    named_first = _figure_at(tokens, j)
    if named_first is None:
        return None
    metric = model.metrics[named_first]
    j += 1
    if not times and kind_at(tokens, j) == "timespec":
        times.append(tokens[j].value)
        j += 1
    op: str | None = None
    # 最低价都高于昨日最高价: 都 says the whole bar (even its low) is above, a day against a day
    emphasis = kind_at(tokens, j) == "quantifier" and tokens[j].value == "all"
    j += emphasis
    if kind_at(tokens, j) == "cmp" and tokens[j].value in OPS_ORDERED:  # 高于 / exceeded, then the other
        op = tokens[j].value
    elif kind_at(tokens, j) == "stand_above":  # (the low) stayed above yesterday's high
        op = ">"
    elif kind_at(tokens, j) != "than":  # 比, the other, then the comparative
        return None
    j += 1
    # volume today more than twice yesterday's: a multiple of the other period's figure, only after a
    # comparison word (比昨天多2倍 is left alone: 2 more times, or twice?)
    factor = factor_at(tokens, j) if op is not None else None
    j += factor is not None
    named_again = _names(tokens, j, metric)  # the figure named again: their 2023 net profit
    j += named_again
    if kind_at(tokens, j) != "timespec":
        return None
    if factor is not None:
        _refuse_daily_multiple(tokens[j - 1 - named_again], metric)
    times.append(tokens[j].value)
    j += 1
    other = metric
    if not named_again:
        other = _other_price(model, tokens, j, metric) or metric  # 今日最低价高于昨日最高价
        j += _names(tokens, j, other)
    if factor is None and op is not None and factor_at(tokens, j) is not None:
        # 高于2023年每股收益2倍[以上]: the multiple said after the other period's figure is still a
        # multiple of it (a ratio), never a difference of N in the figure's unit
        factor = factor_at(tokens, j)
        _refuse_daily_multiple(tokens[j], metric)
        j += 1
        if kind_at(tokens, j) == "cmp" and tokens[j].value == {">": ">=", "<": "<="}.get(op):
            op, j = tokens[j].value, j + 1  # 2倍以上: the multiple itself included
    if op is None:
        if kind_at(tokens, j) in {"comparative", "cmp"} and tokens[j].value in OPS_ORDERED:
            op = tokens[j].value
        elif kind_at(tokens, j) in {"up", "down"}:
            op = ">" if tokens[j].kind == "up" else "<"
        else:
            return None
        j += 1
    if len(times) == 1 and times[0] is not None and times[0].is_single_day:
        times.insert(0, None)  # 最低价高于昨日最高价: the question's own day against the day named
    if len(times) != 2 or times[0] == times[1]:
        return None
    if emphasis and not all(time is None or time.is_single_day for time in times):
        return None  # 近5天收盘价都高于…: each day of a window, not a day against a day
    if factor is not None:  # 100 × this period's ÷ the other's, against the multiple in percent
        multiple = Compare(metric.key, op, 100 * factor, other=other.key, time=times[0],
                           text=tokens[i:j][-1].text, other_time=times[1], ratio=True)  # fmt: skip
        if metric.key in NEVER_NEGATIVE:
            return j - i, [synthetic("cond", multiple, tokens[i:j])]
        # FY2024 EPS more than double FY2023's: a multiple of a loss has no direction (3 times −1 is
        # larger or smaller?), so only a report's base above zero is one; a loss base is out
        base = Compare(other.key, ">", 0.0, time=times[1], text="0")
        return j - i, [synthetic("cond", multiple, tokens[i:j]), synthetic("cond", base, tokens[j - 1 : j])]
    if other == metric:  # 比2023年增长50%以上: relative, for a figure that is no rate
        relative = relative_change(model, tokens, j, metric.key, op, times)
        if relative is not None:
            conditions, end = relative
            return end - i, [synthetic("cond", condition, tokens[i:end]) for condition in conditions]
    threshold, end = _difference(tokens, j)
    value = 0.0
    if threshold is not None:
        value = _stored_value(metric, threshold) * (-1 if op == "<" else 1)  # 少10亿以上: below −1e9
        op = _threshold_op(op, tokens, j)
    text = threshold.text if threshold is not None else ""
    condition = Compare(metric.key, op, value, other=other.key, time=times[0], text=text, other_time=times[1])
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def _refuse_daily_multiple(said: Token, metric: Metric) -> None:
    """twice yesterday's move: a day's figure may be a loss of a day too, and no base is said."""
    if metric.key not in NEVER_NEGATIVE and metric.kind == "daily":
        raise NotUnderstood(f"'{said.text}' '{metric.key}': a multiple of a day's figure that can be "
                            "negative is not read")  # fmt: skip


# figures a multiple of another period's value reads plainly (a price, a volume, a size, sales)
NEVER_NEGATIVE = frozenset(
    {"close", "open", "high", "low", "pre_close", "vol", "amount", "turnover_rate", "total_mv", "circ_mv",
     "total_share", "float_share", "total_revenue", "revenue"}
)  # fmt: skip


def factor_at(tokens: list[Token], j: int) -> float | None:
    """twice / double / 3 times / 3x at j: a multiple of what follows."""
    if kind_at(tokens, j) == "twice":
        return float(tokens[j].value)
    if kind_at(tokens, j) == "number" and tokens[j].extra.get("unit") == "times":
        return float(tokens[j].value)
    return None


def _other_price(model: SemanticModel, tokens: list[Token], j: int, metric: Metric) -> Metric | None:
    """Another price of the bar named after the other day (今日最低价高于昨日最高价): a day's price
    compared with a different price of another day, never left behind as a shown column."""
    named = _figure_at(tokens, j)
    if named is None or metric.kind != "daily":
        return None
    other = model.metrics[named]
    same_unit = other.kind == "daily" and other.stored_unit == metric.stored_unit and not other.percent
    return other if same_unit and not metric.percent else None


def _direction_before_two_periods(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """lower revenue in 2024 than in 2021 / lower single-quarter net profit in Q3 2025 than in Q2 2025:
    the comparative before the figure (a quarter alone or TTM compared as such), then the two periods."""
    periods = kind_at(tokens, i + 2) == "timespec" and kind_at(tokens, i + 3) == "timespec"
    figure = kind_at(tokens, i + 1) in {"metric", "report_figure"}
    if kind_at(tokens, i) not in {"up", "down"} or not figure or not periods:
        return None
    metric = metric_of(tokens[i + 1])
    window = tokens[i + 1].extra["window"] if tokens[i + 1].kind == "report_figure" else None
    first, second = tokens[i + 2].value, tokens[i + 3].value
    if first == second:
        return None
    op = ">" if tokens[i].kind == "up" else "<"
    condition = Compare(metric, op, 0.0, other=metric, time=first, other_time=second, agg=window)
    return 4, [synthetic("cond", condition, tokens[i : i + 4])]


def same_periods_again(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """…but higher net profit / 但净利润比2021年高: a second figure compared right after a comparison of
    two periods, its periods left unsaid (or only the other one said), takes that comparison's periods."""
    before = tokens[i - 1].value if i > 0 and tokens[i - 1].kind == "cond" else None
    if not isinstance(before, Compare) or before.other_time is None or before.other != before.metric:
        return None
    j = i + (kind_at(tokens, i) == "and")
    other_time = before.other_time
    op: str | None = None
    metric, end = "", j
    if kind_at(tokens, j) in {"up", "down"} and kind_at(tokens, j + 1) == "metric":  # higher net profit
        op, metric, end = (">" if tokens[j].kind == "up" else "<"), metric_of(tokens[j + 1]), j + 2
    elif kind_at(tokens, j) == "metric":  # 净利润[比2021年]高
        metric, k = metric_of(tokens[j]), j + 1
        if kind_at(tokens, k) == "than" and kind_at(tokens, k + 1) == "timespec":
            other_time, k = tokens[k + 1].value, k + 2
        if kind_at(tokens, k) in {"comparative", "cmp"} and tokens[k].value in OPS_ORDERED:
            op = tokens[k].value
        elif kind_at(tokens, k) in {"up", "down"}:
            op = ">" if tokens[k].kind == "up" else "<"
        end = k + 1
    if op is None or model.metrics[metric].kind != model.metrics[before.metric].kind:
        return None
    condition = Compare(metric, op, 0.0, other=metric, time=before.time, other_time=other_time)
    return end - i, [*tokens[i:j], synthetic("cond", condition, tokens[j:end])]


def _names(tokens: list[Token], j: int, metric: Metric) -> int:
    """1 if the token at j names the same figure again, else 0."""
    return int(_figure_at(tokens, j) in {metric.key, metric.column})


BAR_EXTREMES = {"high": "high", "low": "low"}  # today's low above yesterday's high: the bar's prices


def _figure_at(tokens: list[Token], j: int) -> str | None:
    """The figure a word at j names: a metric word, a change word, or a bare high / low of a day
    (read elsewhere as an N-day high when a window comes with it)."""
    if kind_at(tokens, j) in {"metric", "change_word"}:
        return metric_of(tokens[j])
    if kind_at(tokens, j) in {"new_high", "new_low"}:
        return BAR_EXTREMES.get(tokens[j].text)
    return None


def _difference(tokens: list[Token], j: int) -> tuple[Token | None, int]:
    """By how much (多10亿以上 / by more than 1 billion): the threshold token and the index after it."""
    k = j + (kind_at(tokens, j) == "per")  # by
    k += kind_at(tokens, k) == "cmp"  # more than
    if kind_at(tokens, k) == "number":
        return tokens[k], k + 1 + (kind_at(tokens, k + 1) == "cmp")  # 以上 / 以内
    return None, j


def _threshold_op(op: str, tokens: list[Token], j: int) -> str:
    """The operator on the difference: 以上 / at least include the threshold; otherwise strict, in the
    direction of the comparative (多 → >, 少 → <)."""
    words = [t for t in tokens[j : j + 4] if t.kind == "cmp"]
    inclusive = any(t.value in {">=", "<="} for t in words)
    if op == "<":
        return "<=" if inclusive else "<"
    return ">=" if inclusive else ">"
