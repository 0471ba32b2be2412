"""Sustained comparisons: ROE连续三年超过15%, for four consecutive years, 近3个报告期… → `Sustained`."""

from __future__ import annotations

from backend.domain.language.ir import Compare, Condition, Frequency, Sustained, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.frequency import decided_by_the_day
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

STOCKS_ASKED = {"count_unit", "cond", "and"}  # which stocks / banks that … and …: no figure asked of them
PERIOD_OF_UNIT = {"year": "year", "annual_reports": "year", "report": "report", "quarter": "report",
                  "day": "day", "trading_day": "day"}  # fmt: skip


def sustained(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """A comparison with a count of periods after it (or before it) holds in each of them."""
    token = tokens[i]
    each_day = _each_of_last_days(model, tokens, i)
    if each_day is not None:
        return each_day
    if token.kind == "cond" and isinstance(token.value, Compare):
        found = period_count(tokens, i + 1)
        if found is None and kind_at(tokens, i + 1) == "number" and kind_at(tokens, i + 2) == "consecutive":
            # for four consecutive years
            swapped = [tokens[i + 2], tokens[i + 1], *tokens[i + 3 : i + 5]]
            inner = period_count(swapped, 0)
            found = (inner[0], inner[1], i + 1 + inner[2]) if inner else None
            if found is not None:
                return found[2] - i, [synthetic("cond", Sustained(token.value, found[0], found[1]),
                                                tokens[i : found[2]])]  # fmt: skip
        if found is not None:
            n, period, end = found
            return end - i, [synthetic("cond", Sustained(token.value, n, period), tokens[i:end])]
        return None
    run_of_days = _consecutive_days_then_condition(model, tokens, i)
    if run_of_days is not None:
        return run_of_days
    each_year = _each_of_recent_years(model, tokens, i)
    if each_year is not None:
        return each_year
    found = period_count(tokens, i)
    if (
        found is not None
        and kind_at(tokens, found[2]) == "cond"
        and isinstance(tokens[found[2]].value, Compare)
    ):
        n, period, end = found
        condition = Sustained(tokens[end].value, n, period)
        return end + 1 - i, [synthetic("cond", condition, tokens[i : end + 1])]
    return None


def _consecutive_days_then_condition(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """连续3天涨幅超过5%: the time pass read 3天 as a window; with 连续 before it, the day's comparison
    holds on each of those trading days. 最近 before 连续 says the run's own days again."""
    k = i + (tokens[i].kind == "recent")
    days = _days_said(tokens, k + 1)
    if days is None:
        return None
    j = k + (2 if kind_at(tokens, k + 1) == "timespec" else 3)
    j += kind_at(tokens, j) == "per_day"  # 连续3天每天涨幅都超过3%: each of them, said again
    j += kind_at(tokens, j) == "quantifier" and tokens[j].value == "all"
    if kind_at(tokens, k) != "consecutive" or kind_at(tokens, j) != "cond":
        return None
    condition = _on_each_day(model, tokens[j].value, days)
    if condition is None:
        return None
    j += kind_at(tokens, j + 1) == "quantifier" and tokens[j + 1].value == "all"  # …都, said after it
    return j + 1 - i, [synthetic("cond", condition, tokens[i : j + 1])]


def _each_of_last_days(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """A day's condition, then the days it held on: on each of the last 10 sessions (read by the
    time pass as a window), for 5 consecutive days, 5 days in a row."""
    if tokens[i].kind != "cond":
        return None
    j = i + 1
    days: int | None = None
    if kind_at(tokens, j) == "consecutive" and kind_at(tokens, j + 1) == "timespec":
        if "each" in tokens[j].text and any(token.kind == "count" for token in tokens[:i]):
            return None  # how many hit limit up on each of the last 5 days: a count per day (assembly)
        days, end = _days_said(tokens, j + 1), j + 2
    elif _each_day_of_stocks(tokens, i):
        days, end = _days_said(tokens, j + 1), j + 2  # which stocks rose in each of these 5 sessions
    elif kind_at(tokens, j) == "number" and kind_at(tokens, j + 1) == "consecutive":
        swapped = [tokens[j + 1], tokens[j], *tokens[j + 2 : j + 3]]  # 5 consecutive days
        days, end = _days_said(swapped, 1), j + 3
    elif kind_at(tokens, j) == "number" and kind_at(tokens, j + 2) == "consecutive":
        days, end = _days_said(tokens, j), j + 3  # 5 days in a row
    if days is None:
        return None
    condition = _on_each_day(model, tokens[i].value, days)
    if condition is None:
        return None
    return end - i, [synthetic("cond", condition, tokens[i:end])]


def _each_day_of_stocks(tokens: list[Token], i: int) -> bool:
    """The condition at i + in each / for each + days, where the stocks meeting it are what is asked:
    nothing but stocks and their other conditions is said, so the days are those it held on, never one
    row per day (how many rose in each of them, the turnover for each of them: a figure per day, `group`)."""
    if kind_at(tokens, i + 1) != "per" or kind_at(tokens, i + 2) != "timespec":
        return False
    return all(token.kind in STOCKS_ASKED for k, token in enumerate(tokens) if k < i or k > i + 2)


def _on_each_day(model: SemanticModel, condition: Condition, days: int) -> Condition | None:
    """The condition on each of the last `days` trading days: a comparison of the day's figures (收阳,
    涨幅超过5%), or any other test one day decides (站上20日均线)."""
    if isinstance(condition, Compare) and not (condition.time or condition.agg or condition.other_time):
        daily = model.metrics[condition.metric].kind == "daily"
        return Sustained(condition, days, "day") if daily else None
    if decided_by_the_day(model, condition):
        return Frequency(condition, "every", time=TimeSpec("recent_bars", n=days))
    return None


def _days_said(tokens: list[Token], j: int) -> int | None:
    """3天 after 连续: read by the time pass as a window, or still a number and its day unit."""
    if kind_at(tokens, j) == "timespec":
        window = tokens[j].value
        return window.n if window.label in {"recent_bars", "recent_days"} and window.n else None
    if kind_at(tokens, j) == "number" and is_plain_number(tokens[j]) and tokens[j].value >= 1:
        unit = tokens[j + 1] if kind_at(tokens, j + 1) == "tunit" else None
        return int(tokens[j].value) if unit is not None and unit.value in {"day", "trading_day"} else None
    return None


def _each_of_recent_years(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """过去三年每年净利润都超过10亿: a report figure's comparison in each of the last N annual reports."""
    token = tokens[i]
    years = (
        token.kind == "timespec" and token.value.label == "recent_months" and (token.value.n or 0) % 12 == 0
    )
    each = (
        kind_at(tokens, i + 1) == "per"
        and kind_at(tokens, i + 2) == "tunit"
        and tokens[i + 2].value == "year"
    )
    if not (years and each and kind_at(tokens, i + 3) == "cond"):
        return None
    compare = tokens[i + 3].value
    if not isinstance(compare, Compare) or model.metrics[compare.metric].kind != "report" or compare.time:
        return None
    condition = Sustained(compare, (token.value.n or 0) // 12, "year")
    return 4, [synthetic("cond", condition, tokens[i : i + 4])]


def period_count(tokens: list[Token], j: int) -> tuple[int, str, int] | None:
    """[recent] consecutive N [个] unit, or recent N [个] report periods → (N, period, next index)."""
    recent = kind_at(tokens, j) == "recent"
    j += recent
    consecutive = kind_at(tokens, j) == "consecutive"
    # 最近4个报告期净利润同比增速都超过20%: the last N reports, each of them, as 连续 says
    if not consecutive and not (recent and _report_unit(tokens, j + 1)):
        return None if recent else _periods_in_a_row(tokens, j)
    j += consecutive
    if kind_at(tokens, j) != "number":
        return None
    n = int(tokens[j].value)
    j += 1
    if kind_at(tokens, j) == "count_unit":
        j += 1
    if kind_at(tokens, j) == "annual":
        return n, "year", j + 1
    if kind_at(tokens, j) != "tunit":
        return None
    period = PERIOD_OF_UNIT.get(tokens[j].value)
    if period is None or n < 1:
        return None
    return n, period, j + 1


def _periods_in_a_row(tokens: list[Token], j: int) -> tuple[int, str, int] | None:
    """N [个] unit + in a row / straight / consecutively (3 years in a row): the count said first."""
    if kind_at(tokens, j) != "number" or not is_plain_number(tokens[j]):
        return None
    k = j + 1 + (kind_at(tokens, j + 1) == "count_unit")
    period = PERIOD_OF_UNIT.get(tokens[k].value) if kind_at(tokens, k) == "tunit" else None
    if period is None or kind_at(tokens, k + 1) != "consecutive" or tokens[j].value < 1:
        return None
    return int(tokens[j].value), period, k + 2


def _report_unit(tokens: list[Token], j: int) -> bool:
    """[个] 报告期 / report periods / quarters / annual reports after a count."""
    j += kind_at(tokens, j) == "count_unit"
    if kind_at(tokens, j) == "annual":
        return True
    return kind_at(tokens, j) == "tunit" and tokens[j].value in {"report", "annual_reports", "quarter"}
