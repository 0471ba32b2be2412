"""Built-in parser: typed tokens → Screen, by grammar passes over the token list (NaLIR-style).

Each pass recognises one family of phrases (listing dates, technical conditions, time scopes,
entity scopes, comparisons, aggregates, orderings) and replaces the tokens it used by one synthetic
token. Whatever is left at the end must be harmless (connectors, a stray unit word) or the question
is refused with the words that could not be placed: the parser never guesses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import (
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    GrowthStreak,
    Not,
    Order,
    Scope,
    Screen,
    Sustained,
    Technical,
    TimeSpec,
)
from backend.domain.language.lexicon import Token, tokenize
from backend.domain.language.semantic import Metric

DEFAULT_SURGE_DAYS = 5
DEFAULT_SURGE_FACTOR = 2.0
YOY_OF = {"n_income_attr_p": "netprofit_yoy", "n_income": "netprofit_yoy", "revenue": "or_yoy",
          "total_revenue": "or_yoy"}  # fmt: skip
PRICE_MOVE_METRICS = {"close", "pct_chg"}
OPS_ORDERED = {">", ">=", "<", "<="}
VS_PREVIOUS_CLOSE = {"open": "open_pct", "high": "high_pct", "low": "low_pct", "close": "pct_chg"}


# Tokens that may remain after all passes without changing the meaning.
HARMLESS = {
    *("count_unit", "to", "betw_end", "per", "constituent", "listed", "annual", "order", "recent", "after"),
    *("before", "dir", "consecutive", "and", "top", "between", "yoy", "early"),
}


class NotUnderstood(Exception):
    """The question (or a part of it, named in the message) could not be mapped."""


Rule = Callable[[list[Token], int], tuple[int, list[Token]] | None]


def _synthetic(kind: str, value: Any, source: list[Token], **extra: Any) -> Token:
    text = " ".join(token.text for token in source)
    return Token(kind, value, text, source[0].start if source else 0, dict(extra))


def _rewrite(tokens: list[Token], rule: Rule) -> list[Token]:
    result: list[Token] = []
    index = 0
    while index < len(tokens):
        matched = rule(tokens, index)
        if matched is None:
            result.append(tokens[index])
            index += 1
            continue
        # a rule may look back: it returns how many already-emitted tokens it replaces (negative start)
        consumed, replacement = matched
        result.extend(replacement)
        index += consumed
    return result


def _kind(tokens: list[Token], index: int) -> str:
    return tokens[index].kind if 0 <= index < len(tokens) else ""


def _is_plain_number(token: Token) -> bool:
    return token.kind == "number" and not token.extra.get("unit") and not token.extra.get("scaled")


class Parser:
    def __init__(self, context: LanguageContext) -> None:
        self.context = context
        self.model = context.model
        codes = {stock.symbol: stock.ts_code for stock in context.stocks if stock.symbol}
        codes.update({stock.ts_code.split(".")[0]: stock.ts_code for stock in context.stocks})
        self.codes = codes

    # --- entry point ----------------------------------------------------------------------------
    def parse(self, question: str) -> Screen:
        tokens = [
            token for token in tokenize(question, self.context.lexicon, self.codes) if token.kind != "stop"
        ]
        unknown = [token.text for token in tokens if token.kind == "unknown"]
        if unknown:
            raise NotUnderstood("could not map: " + ", ".join(f"'{word}'" for word in _merge_words(unknown)))
        if not tokens:
            raise NotUnderstood(
                "the question asks for nothing the engine knows (no metric, entity or condition)"
            )
        for rule in (
            self._listing,
            self._ma_cross_ma,
            self._moving_average,
            self._new_high_low,
            self._streak,
            self._volume_surge,
            self._time,
            self._scope,
            self._scope_lists,
            self._negated_scope,
            self._aggregate_metric,
            self._compare,
            self._price_move,
            self._profitable,
            self._sustained,
            self._ordering,
            self._group,
        ):
            tokens = _rewrite(tokens, rule)
        return self._assemble(tokens)

    # --- listing date -----------------------------------------------------------------------------
    def _listing(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        if token.kind in {"year", "date", "month"}:
            # 2020年以后上市 / 2020年上市 / 2019年之前上市
            j = i + 1
            direction = None
            if _kind(tokens, j) in {"after", "before", "early"}:
                direction = tokens[j].kind if tokens[j].kind != "early" else tokens[j].value
                j += 1
            if _kind(tokens, j) == "listed":
                scope = self._list_date_scope(token, direction, english=False)
                return j + 1 - i, [_synthetic("cond", scope, tokens[i : j + 1])]
            return None
        if token.kind == "listed" or (token.kind == "dim" and token.value == "list_date"):
            j = i + 1
            if _kind(tokens, j) == "dim" and tokens[j].value == "list_date":
                j += 1
            if _kind(tokens, j) in {"after", "before", "early", "cmp"} and _kind(tokens, j + 1) in {
                "year",
                "date",
                "month",
            }:
                word = tokens[j]
                direction = (
                    word.kind
                    if word.kind in {"after", "before"}
                    else (
                        word.value if word.kind == "early" else ("after" if ">" in word.value else "before")
                    )
                )
                english = word.text.isascii() and word.text != "since"
                scope = self._list_date_scope(tokens[j + 1], direction, english=english)
                return j + 2 - i, [_synthetic("cond", scope, tokens[i : j + 2])]
            if _kind(tokens, j) in {"year", "date", "month"}:  # listed in 2020
                scope = self._list_date_scope(tokens[j], None, english=False)
                return j + 1 - i, [_synthetic("cond", scope, tokens[i : j + 1])]
            # 上市超过5年 / listed for more than 5 years / 上市不满1年
            if (
                _kind(tokens, j) == "cmp"
                and _kind(tokens, j + 1) == "number"
                and _kind(tokens, j + 2) == "tunit"
            ):
                unit = tokens[j + 2].value
                if unit in {"year", "month"}:
                    years = tokens[j + 1].value / (12 if unit == "month" else 1)
                    op = tokens[j].value
                    scope = Scope("listed_years", op=op, number=years)
                    return j + 3 - i, [_synthetic("cond", scope, tokens[i : j + 3])]
        return None

    def _list_date_scope(self, token: Token, direction: str | None, *, english: bool) -> Condition:
        first, last = _period_bounds(token)
        if direction == "after":
            return Scope("list_date", op=">" if english else ">=", day=last if english else first)
        if direction == "before":
            return Scope("list_date", op="<", day=first)
        return BoolOp("and", (Scope("list_date", op=">=", day=first), Scope("list_date", op="<=", day=last)))

    # --- technical conditions ---------------------------------------------------------------------
    def _window_length(self, tokens: list[Token], j: int) -> tuple[int, int] | None:
        """`N [日|天|周|交易日]` at j → (bars, tokens used)."""
        if _kind(tokens, j) == "ma_n":
            return tokens[j].value, 1
        if _kind(tokens, j) != "number" or not _is_plain_number(tokens[j]) or tokens[j].value < 1:
            return None
        n = int(tokens[j].value)
        if _kind(tokens, j + 1) == "tunit":
            unit = tokens[j + 1].value
            if unit == "week":
                return n * 5, 2
            if unit == "month":
                return n * 21, 2
            if unit in {"day", "trading_day"}:
                return n, 2
            return None
        return n, 1

    def _ma_cross_ma(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        """5日均线上穿20日均线 / the 10-day moving average crossed below the 30-day moving average."""
        first = self._window_length(tokens, i)
        if first is None:
            return None
        j = i + first[1]
        if tokens[j - 1].kind != "ma_n":
            if _kind(tokens, j) != "ma":
                return None
            j += 1
        if _kind(tokens, j) not in {"cross_above", "cross_below"}:
            return None
        kind = "ma_golden_cross" if tokens[j].kind == "cross_above" else "ma_death_cross"
        second = self._window_length(tokens, j + 1)
        if second is None:
            return None
        end = j + 1 + second[1]
        if tokens[end - 1].kind != "ma_n":
            if _kind(tokens, end) != "ma":
                return None
            end += 1
        return end - i, [_synthetic("cond", Technical(kind, first[0], float(second[0])), tokens[i:end])]

    def _moving_average(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        start = i
        if _kind(tokens, i) == "metric" and tokens[i].value in PRICE_MOVE_METRICS:
            i += 1
        verb = tokens[i] if i < len(tokens) else None
        if verb is None:
            return None
        kind = {
            "cross_above": "ma_cross_above",
            "cross_below": "ma_cross_below",
            "stand_above": "ma_above",
        }.get(verb.kind)
        if kind is None and verb.kind == "cmp" and verb.value in {">", ">=", "<", "<="}:
            kind = "ma_above" if ">" in verb.value else "ma_below"
        j = i + 1
        if kind is None and verb.kind == "between":  # 在60日均线上方
            kind = "position"
        if kind is None:
            return None
        length = self._window_length(tokens, j)
        if length is None:
            return None
        n, used = length
        j += used
        if tokens[j - 1].kind != "ma_n":
            if _kind(tokens, j) != "ma":
                return None
            j += 1
        if kind == "position":
            if _kind(tokens, j) not in {"above_pos", "below_pos"}:
                return None
            kind = "ma_above" if tokens[j].kind == "above_pos" else "ma_below"
            j += 1
        elif _kind(tokens, j) in {"above_pos", "below_pos"}:
            j += 1
        return j - start, [_synthetic("cond", Technical(kind, n), tokens[start:j])]

    def _new_high_low(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        start = i
        if _kind(tokens, i) == "metric" and tokens[i].value in PRICE_MOVE_METRICS:
            i += 1
        if _kind(tokens, i) == "recent":
            i += 1
        length = self._window_length(tokens, i)
        if length is None:
            return None
        n, used = length
        j = i + used
        if _kind(tokens, j) not in {"new_high", "new_low"}:
            return None
        kind = "n_day_high" if tokens[j].kind == "new_high" else "n_day_low"
        return j + 1 - start, [_synthetic("cond", Technical(kind, n), tokens[start : j + 1])]

    def _streak(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        allowed = {"number", "tunit", "up", "down", "metric", "yoy", "consecutive", "surge"}
        if tokens[i].kind not in allowed:
            return None
        # the run must contain a `consecutive` word; find the maximal run starting at i
        end = i
        while end < len(tokens) and tokens[end].kind in allowed and end - i < 7:
            end += 1
        run = tokens[i:end]
        kinds = [token.kind for token in run]
        if "consecutive" not in kinds:
            return None
        volume = any(token.kind == "metric" and token.value == "vol" for token in run)
        directions = {"up", "down", "surge"} if volume else {"up", "down"}  # 成交量连续3天放大
        direction_index = next((k for k, token in enumerate(run) if token.kind in directions), None)
        if direction_index is None:
            return None
        numbers = [k for k, token in enumerate(run) if token.kind == "number" and _is_plain_number(token)]
        if not numbers:
            return None
        units = [k for k, token in enumerate(run) if token.kind == "tunit"]
        unit = run[units[0]].value if units else "day"
        unit = {"report": "quarter", "annual_reports": "year", "trading_day": "day"}.get(unit, unit)
        metrics = [k for k, token in enumerate(run) if token.kind == "metric"]
        last_needed = max([direction_index, numbers[0], kinds.index("consecutive"), *units[:1]])
        if unit in {"year", "quarter"}:
            if not metrics:
                return None
            metric_index = metrics[0]
            metric = self.model.metrics[run[metric_index].value]
            if metric.kind != "report":
                return None
            last_needed = max(last_needed, metric_index)
            condition: Condition = GrowthStreak(
                metric=self._growth_base(metric.key),
                years=int(run[numbers[0]].value),
                direction="up" if run[direction_index].kind == "up" else "down",
                period="quarter" if unit == "quarter" else "year",
            )
        else:
            # a metric after the direction word belongs to the next phrase (连续3天上涨的股票中市盈率…) and is
            # left out of the run; one before it must be a price or the volume
            metric_before = metrics and metrics[0] < direction_index
            if metric_before and run[metrics[0]].value not in PRICE_MOVE_METRICS | {"vol"}:
                return None
            rising = run[direction_index].kind in {"up", "surge"}
            if volume:
                kind = "volume_up_streak" if rising else "volume_down_streak"
            else:
                kind = "up_streak" if rising else "down_streak"
            condition = Technical(kind, int(run[numbers[0]].value))
        # a leading metric of another phrase must not be swallowed
        if (
            run[0].kind == "metric"
            and unit not in {"year", "quarter"}
            and run[0].value not in PRICE_MOVE_METRICS | {"vol"}
        ):
            return None
        # English "up 3 days in a row": the direction word may come first
        used = last_needed + 1
        if _kind(tokens, i + used) in {"cmp", "between"}:
            return None  # 连续三个报告期营收同比增长超过20%: a sustained comparison, not a streak
        return used, [_synthetic("cond", condition, run[:used])]

    def _growth_base(self, metric: str) -> str:
        """净利润同比连续增长 → grow the underlying figure, not the growth rate."""
        reverse = {"netprofit_yoy": "n_income_attr_p", "or_yoy": "revenue"}
        return reverse.get(metric, metric)

    def _volume_surge(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        if token.kind == "surge":
            # 放量 alone, optionally with "N日均量的k倍"
            n, surge_factor, end = self._surge_details(tokens, i + 1)
            return end - i, [_synthetic("cond", Technical("volume_surge", n, surge_factor), tokens[i:end])]
        if not (token.kind == "metric" and token.value == "vol"):
            return None
        j = i + 1
        while _kind(tokens, j) in {"time", "cmp", "between"}:  # "volume today is more than"
            j += 1
        factor = self._times(tokens, j)
        if factor is not None:
            j += 1
        if _kind(tokens, j) in {"top", "recent", "before"}:  # 前5日均量
            j += 1
        length = self._window_length(tokens, j)
        if length is not None:
            n, used = length
            j += used
            if _kind(tokens, j) == "avg_volume":
                j += 1
            elif _kind(tokens, j) == "agg" and tokens[j].value == "avg":
                j += 1
                if _kind(tokens, j) == "metric" and tokens[j].value == "vol":
                    j += 1
            else:
                return None
        elif _kind(tokens, j) in {"avg_volume", "agg"} and (
            tokens[j].kind == "avg_volume" or tokens[j].value == "avg"
        ):
            # "their average volume of the previous 20 days"
            j += 1
            if _kind(tokens, j) == "metric" and tokens[j].value == "vol":
                j += 1
            if _kind(tokens, j) in {"recent", "top", "before"}:
                j += 1
            length = self._window_length(tokens, j)
            if length is None:
                return None
            n, used = length
            j += used
        else:
            return None
        if factor is None:
            factor = self._times(tokens, j)
            if factor is not None:
                j += 1
            else:
                factor = 1.0
        if _kind(tokens, j) == "cmp" and tokens[j].value in {">=", ">"}:
            j += 1
        if _kind(tokens, j) == "surge":
            j += 1
        return j - i, [_synthetic("cond", Technical("volume_surge", n, factor), tokens[i:j])]

    def _times(self, tokens: list[Token], j: int) -> float | None:
        """A multiple: 2倍, 3 times, twice."""
        if _kind(tokens, j) == "twice":
            return float(tokens[j].value)
        if _kind(tokens, j) == "number" and tokens[j].extra.get("unit") == "times":
            return float(tokens[j].value)
        return None

    def _surge_details(self, tokens: list[Token], j: int) -> tuple[int, float, int]:
        n, factor = DEFAULT_SURGE_DAYS, DEFAULT_SURGE_FACTOR
        length = self._window_length(tokens, j)
        if length is not None and _kind(tokens, j + length[1]) == "avg_volume":
            n = length[0]
            j += length[1] + 1
            if _kind(tokens, j) == "number" and tokens[j].extra.get("unit") == "times":
                factor = tokens[j].value
                j += 1
        elif _kind(tokens, j) == "number" and tokens[j].extra.get("unit") == "times":
            factor = tokens[j].value
            j += 1
        return n, factor, j

    # --- time -------------------------------------------------------------------------------------
    def _time(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        spec: TimeSpec | None = None
        used = 1
        if token.kind == "date" and _kind(tokens, i + 1) == "to" and _kind(tokens, i + 2) == "date":
            # "between A and B" compares the two days; "A至B" covers the days from A to B
            label = "date_span" if _kind(tokens, i - 1) == "between" else "date_range"
            spec = TimeSpec(label, day=token.value, end_day=tokens[i + 2].value)
            used = 3
        elif token.kind == "date":
            spec = TimeSpec("date", day=token.value)
        elif token.kind == "period":
            value = token.value
            label = "annual" if value["kind"] == "annual" else "quarter"
            spec = TimeSpec(
                label, year=value["year"], quarter=value["quarter"] if label == "quarter" else None
            )
        elif token.kind == "month":
            spec = TimeSpec("month", year=token.value["year"], month=token.value["month"])
        elif token.kind == "year":
            spec = TimeSpec("year", year=token.value)
            if _kind(tokens, i + 1) == "annual":
                spec = TimeSpec("annual", year=token.value)
                used = 2
        elif token.kind == "time":
            spec = TimeSpec(token.value)
        elif token.kind == "annual":
            spec = TimeSpec("annual")
        elif token.kind == "recent":
            j = i + 1
            n = 1
            if _kind(tokens, j) == "number" and _is_plain_number(tokens[j]):
                n = int(tokens[j].value)
                j += 1
            if _kind(tokens, j) != "tunit" or n < 1:
                return None
            windows = {
                "day": ("recent_days", n),
                "trading_day": ("recent_bars", n),
                "week": ("recent_weeks", n),
                "month": ("recent_months", n),
                "quarter": ("recent_months", 3 * n),
                "year": ("recent_months", 12 * n),
            }
            if tokens[j].value not in windows:
                return None  # "近3个报告期" is a count of reports, read by the sustained-condition pass
            label, count = windows[tokens[j].value]
            spec = TimeSpec(label, n=count)
            used = j + 1 - i
        elif token.kind == "number" and _is_plain_number(token) and _kind(tokens, i + 1) == "tunit":
            # "5日涨幅", "20-day average turnover", "5个交易日": N bars in technical style
            unit = tokens[i + 1].value
            follows_metric = _kind(tokens, i + 2) in {"metric", "agg", "change_word", "gainers"}
            if unit == "trading_day" or (unit == "day" and follows_metric):
                spec = TimeSpec("recent_bars", n=int(token.value))
                used = 2
        if spec is None:
            return None
        return used, [_synthetic("timespec", spec, tokens[i : i + used])]

    # --- entity scopes ----------------------------------------------------------------------------
    def _scope(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        kinds = {"exchange": "exchange", "board": "board", "industry": "industry", "group": "group",
                 "index": "index", "stock": "stock"}  # fmt: skip
        if token.kind not in kinds:
            return None
        used = 1
        if token.kind == "index" and _kind(tokens, i + 1) == "constituent":
            used = 2
        own_dimension = {
            "exchange": "exchange",
            "board": "market",
            "industry": "industry",
            "group": "industry",
        }
        grouped = _kind(tokens, i - 1) == "per"  # "in each new-energy industry" keeps its grouping word
        if (
            not grouped
            and _kind(tokens, i + 1) == "dim"
            and tokens[i + 1].value == own_dimension.get(token.kind)
        ):
            used = 2  # "Shanghai exchange", "银行 行业"
        scope = Scope(kinds[token.kind], values=(str(token.value),))
        return used, [_synthetic("scope", scope, tokens[i : i + used])]

    def _scope_lists(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        """银行和证券 / SSE or SZSE → one scope with several values."""
        if tokens[i].kind != "scope":
            return None
        scope: Scope = tokens[i].value
        j = i + 1
        values = list(scope.values)
        while _kind(tokens, j) in {"and", "or", "to"} and _kind(tokens, j + 1) == "scope":
            other: Scope = tokens[j + 1].value
            compatible = {scope.kind, other.kind} <= {"industry", "group"} or other.kind == scope.kind
            if not compatible:
                break
            if other.kind != scope.kind:
                values = list(self._industries_of(scope.kind, values)) + list(
                    self._industries_of(other.kind, other.values)
                )
                scope = Scope("industry", values=tuple(values))
            else:
                values.extend(other.values)
                scope = Scope(scope.kind, values=tuple(values))
            j += 2
        if j == i + 1:
            return None
        return j - i, [_synthetic("scope", scope, tokens[i:j])]

    def _industries_of(self, kind: str, values: Any) -> tuple[str, ...]:
        if kind == "group":
            return tuple(name for value in values for name in self.model.industry_groups[value].industries)
        return tuple(values)

    def _negated_scope(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        if tokens[i].kind == "not" and _kind(tokens, i + 1) == "scope":
            return 2, [_synthetic("cond", Not(tokens[i + 1].value), tokens[i : i + 2])]
        if tokens[i].kind == "scope":
            return 1, [_synthetic("cond", tokens[i].value, tokens[i : i + 1], scope=True)]
        return None

    # --- aggregates -------------------------------------------------------------------------------
    def _aggregate_metric(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        if token.kind == "single_quarter" and _kind(tokens, i + 1) == "metric":
            # 单季净利润: the quarter's own figure, not the year-to-date one
            named = tokens[i + 1]
            if self.model.metrics[named.value].table == "income":
                return 2, [Token("metric", named.value, named.text, named.start, {"single_quarter": True})]
        measured = {"metric", "change_word"}
        if token.kind in {"agg", "super", "per_day"} and _kind(tokens, i + 1) == "daily_values":
            # "average daily turnover", "最大单日涨幅": aggregate each day's value
            rest = self._aggregate_metric([token, *tokens[i + 2 :]], 0)
            if rest is not None:
                used, produced = rest
                return used + 1, [*produced, _synthetic("daily_values", "daily", [tokens[i + 1]])]
        if token.kind == "per_day" and "average" in token.text and _kind(tokens, i + 1) in measured:
            # "Daily average pct change": one average per day
            aggregate = _synthetic("aggmetric", ("avg", self._metric_of(tokens[i + 1])), tokens[i : i + 2])
            return 2, [aggregate, _synthetic("per_day", "trade_date", [token])]
        if (
            token.kind == "super"
            and _kind(tokens, i + 1) in measured
            and _kind(tokens, i + 2) in {"cmp", "between"}
        ):
            # 近10个交易日最大单日涨幅超过15%: the window's maximum is compared
            fn = "max" if token.value == "desc" else "min"
            return 2, [_synthetic("aggmetric", (fn, self._metric_of(tokens[i + 1])), tokens[i : i + 2])]
        pair = _kind(tokens, i + 1) in {"and", "to"} and _kind(tokens, i + 2) == "super"
        if token.kind == "super" and pair and _kind(tokens, i + 3) in measured:
            # Highest and lowest closing price: both aggregates
            metric = self._metric_of(tokens[i + 3])
            first = "max" if token.value == "desc" else "min"
            second = "max" if tokens[i + 2].value == "desc" else "min"
            return 4, [
                _synthetic("aggmetric", (first, metric), tokens[i : i + 4]),
                _synthetic("aggmetric", (second, metric), tokens[i : i + 4]),
            ]
        if token.kind == "agg" and token.value != "count":
            j = i + 1
            if _kind(tokens, j) == "timespec":
                j += 1
            if _kind(tokens, j) in {"metric", "change_word"}:
                metric = self._metric_of(tokens[j])
                return j + 1 - i, [
                    _synthetic(
                        "aggmetric", (token.value, metric), tokens[i : j + 1], time=self._time_in(tokens[i:j])
                    )
                ]
        if (
            token.kind in {"metric", "change_word"}
            and _kind(tokens, i + 1) == "agg"
            and tokens[i + 1].value != "count"
        ):
            return 2, [
                _synthetic("aggmetric", (tokens[i + 1].value, self._metric_of(token)), tokens[i : i + 2])
            ]
        if token.kind == "agg" and token.value == "count":
            return 1, [_synthetic("count", None, [token])]
        return None

    def _metric_of(self, token: Token) -> str:
        return "pct_chg" if token.kind == "change_word" else str(token.value)

    def _time_in(self, tokens: list[Token]) -> TimeSpec | None:
        for token in tokens:
            if token.kind == "timespec":
                return token.value
        return None

    # --- comparisons ------------------------------------------------------------------------------
    def _compare(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        if token.kind not in {"metric", "aggmetric", "change_word"}:
            return None
        if token.kind == "aggmetric":
            agg, metric_key = token.value
        else:
            agg, metric_key = None, self._metric_of(token)
        time = token.extra.get("time")
        j = i + 1
        yoy = False
        direction = ""
        kept: list[Token] = []  # markers that belong to the whole question, passed through
        while _kind(tokens, j) in {"timespec", "yoy", "up", "down", "agg", "daily_values"}:
            if tokens[j].kind == "daily_values":
                kept.append(tokens[j])
            elif tokens[j].kind == "timespec":
                time = tokens[j].value
            elif tokens[j].kind == "yoy":
                yoy = True
            elif tokens[j].kind in {"up", "down"}:
                direction = tokens[j].kind
                yoy = yoy or self.model.metrics[metric_key].kind == "report"
            elif tokens[j].kind == "agg" and tokens[j].value != "count":
                agg = tokens[j].value
            j += 1
        metric = self.model.metrics[metric_key]
        if yoy and metric_key in YOY_OF:
            metric = self.model.metrics[YOY_OF[metric_key]]
        held = self._period_count(tokens, j)  # ROE连续三年超过15%: the comparison holds in each period
        if held is not None:
            j = held[2]
        if _kind(tokens, j) == "cmp" and _kind(tokens, j + 1) == "metric" and tokens[j].value in OPS_ORDERED:
            other = self.model.metrics[tokens[j + 1].value]
            if other.kind == metric.kind and other.stored_unit == metric.stored_unit:  # 收盘价高于开盘价
                condition = Compare(metric.key, tokens[j].value, 0.0, time=time, other=other.key)
                return j + 2 - i, [_synthetic("cond", condition, tokens[i : j + 2])]
        parsed = self._comparison_tail(tokens, j)
        if parsed is None:
            if direction and metric.key in {"netprofit_yoy", "or_yoy"}:
                # 净利润同比增长 / revenue declined year over year → growth above / below zero
                op = ">" if direction == "up" else "<"
                condition = Compare(metric.key, op, 0.0, time=time, text="0")
                return j - i, [_synthetic("cond", condition, tokens[i:j])]
            return None
        op, first, second, end = parsed
        if _kind(tokens, end) == "vs_prev_close" and metric.key in VS_PREVIOUS_CLOSE:
            metric = self.model.metrics[VS_PREVIOUS_CLOSE[metric.key]]  # opened 5% above the previous close
            end += 1
        if token.extra.get("single_quarter"):
            agg = "single_quarter"
        if agg == "sum" and metric.key == "pct_chg":
            agg = None  # 累计涨幅 = the gain over the window
        compare = self._make_compare(metric, op, first, second, time, agg)
        result: Condition = compare if held is None else Sustained(compare, held[0], held[1])
        return end - i, [_synthetic("cond", result, tokens[i:end]), *kept]

    def _comparison_tail(self, tokens: list[Token], j: int) -> tuple[str, Token, Token | None, int] | None:
        """cmp N | between N and M | N cmp-postfix | 在 N 以上 | N 到 M 之间."""
        kind = _kind(tokens, j)
        if kind == "cmp" and _kind(tokens, j + 1) == "number":
            op = tokens[j].value
            first = tokens[j + 1]
            end = j + 2
            if _kind(tokens, end) == "cmp" and tokens[end].value in {">=", "<="} and op in {"=", ">", "<"}:
                op = tokens[end].value if op == "=" else op
                end += 1
            if (_kind(tokens, end) == "to" and _kind(tokens, end + 1) == "number"
                    and (_kind(tokens, end + 2) == "betw_end" or op == "=")):  # fmt: skip
                second = tokens[end + 1]
                end += 2 + (_kind(tokens, end + 2) == "betw_end")
                return "between", first, second, end
            return op, first, None, end
        if kind == "between" and _kind(tokens, j + 1) == "number":
            first = tokens[j + 1]
            if _kind(tokens, j + 2) == "to" and _kind(tokens, j + 3) == "number":
                end = j + 4 + (_kind(tokens, j + 4) == "betw_end")
                return "between", first, tokens[j + 3], end
            if _kind(tokens, j + 2) == "cmp":
                return tokens[j + 2].value, first, None, j + 3
            return None
        if kind == "number":
            first = tokens[j]
            if _kind(tokens, j + 1) == "cmp" and tokens[j + 1].value in {">=", "<="}:
                return tokens[j + 1].value, first, None, j + 2
            if (
                _kind(tokens, j + 1) == "to"
                and _kind(tokens, j + 2) == "number"
                and _kind(tokens, j + 3) == "betw_end"
            ):
                return "between", first, tokens[j + 2], j + 4
        return None

    def _shared_unit(self, first: Token, second: Token | None) -> Token:
        if second is not None and not first.extra.get("unit") and not first.extra.get("scaled"):
            return Token(first.kind, first.value, first.text, first.start, dict(second.extra))
        return first

    def _stored_value(self, metric: Metric, token: Token) -> float:
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

    def _make_compare(
        self,
        metric: Metric,
        op: str,
        first: Token,
        second: Token | None,
        time: TimeSpec | None,
        agg: str | None,
    ) -> Compare:
        value = self._stored_value(metric, self._shared_unit(first, second))
        value2 = self._stored_value(metric, second) if second is not None else None
        if metric.negated:  # 跌幅超过5% → pct_chg < -5
            flipped = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "between": "between"}[op]
            if op == "between" and value2 is not None:
                value, value2 = -value2, -value
            else:
                value = -value
            return Compare(metric.column, flipped, value, value2, time=time, agg=agg, text=first.text)
        return Compare(metric.key, op, value, value2, time=time, agg=agg, text=first.text)

    def _price_move(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        """上涨超过5% / fell more than 3% / 跌超3% → a pct_chg comparison (over a window if one is given)."""
        j = i
        time = None
        if _kind(tokens, j) == "timespec":
            time = tokens[j].value
            j += 1
        if _kind(tokens, j) not in {"up", "down"}:
            return None
        direction = tokens[j].kind
        j += 1
        if _kind(tokens, j) == "timespec":
            time = tokens[j].value
            j += 1
        if _kind(tokens, j) == "per" and _kind(tokens, j + 1) in {"cmp", "number"}:  # fell by more than 9%
            j += 1
        parsed = self._comparison_tail(tokens, j)
        if parsed is None:
            if _kind(tokens, j) == "number" and tokens[j].extra.get("unit") == "percent":  # 上涨5%
                parsed = (">=", tokens[j], None, j + 1)
            else:
                sign = Compare("pct_chg", ">" if direction == "up" else "<", 0.0, time=time, text="0")
                return j - i, [_synthetic("cond", sign, tokens[i:j])]
        op, first, second, end = parsed
        if first.extra.get("unit") not in {"percent", ""}:
            return None
        metric = self.model.metrics["pct_chg" if direction == "up" else "decline"]
        condition = self._make_compare(metric, op, first, second, time, None)
        return end - i, [_synthetic("cond", condition, tokens[i:end])]

    def _profitable(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        if tokens[i].kind == "price_limit":  # 涨停 / limit down: closed at the board's daily price limit
            return 1, [_synthetic("cond", Technical(str(tokens[i].value), 1), tokens[i : i + 1])]
        if tokens[i].kind == "doubled":  # doubled / 翻倍: a gain of at least 100% over the question's window
            condition = Compare("pct_chg", ">=", float(tokens[i].value), text=tokens[i].text)
            return 1, [_synthetic("cond", condition, tokens[i : i + 1])]
        if tokens[i].kind != "profitable":
            return None
        used = 1
        if _kind(tokens, i + 1) == "metric" and tokens[i + 1].value in {"n_income_attr_p", "n_income"}:
            used = 2  # "positive net profit"
        condition = Compare("n_income_attr_p", tokens[i].value, 0.0, text="0")
        return used, [_synthetic("cond", condition, tokens[i : i + used])]

    # --- "in each of the last N periods" -------------------------------------------------------------
    def _period_count(self, tokens: list[Token], j: int) -> tuple[int, str, int] | None:
        """[recent] consecutive N [个] unit → (N, period, next index)."""
        if _kind(tokens, j) == "recent":
            j += 1
        if _kind(tokens, j) != "consecutive" or _kind(tokens, j + 1) != "number":
            return None
        n = int(tokens[j + 1].value)
        j += 2
        if _kind(tokens, j) == "count_unit":
            j += 1
        if _kind(tokens, j) == "annual":
            return n, "year", j + 1
        if _kind(tokens, j) != "tunit":
            return None
        period = {"year": "year", "annual_reports": "year", "report": "report", "quarter": "report",
                  "day": "day", "trading_day": "day"}.get(tokens[j].value)  # fmt: skip
        if period is None or n < 1:
            return None
        return n, period, j + 1

    def _sustained(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        if token.kind == "cond" and isinstance(token.value, Compare):
            found = self._period_count(tokens, i + 1)
            if found is None and _kind(tokens, i + 1) == "number" and _kind(tokens, i + 2) == "consecutive":
                # for four consecutive years
                swapped = [tokens[i + 2], tokens[i + 1], *tokens[i + 3 : i + 5]]
                inner = self._period_count(swapped, 0)
                found = (inner[0], inner[1], i + 1 + inner[2]) if inner else None
                if found is not None:
                    return found[2] - i, [_synthetic("cond", Sustained(token.value, found[0], found[1]),
                                                     tokens[i : found[2]])]  # fmt: skip
            if found is not None:
                n, period, end = found
                return end - i, [_synthetic("cond", Sustained(token.value, n, period), tokens[i:end])]
            return None
        found = self._period_count(tokens, i)
        if (
            found is not None
            and _kind(tokens, found[2]) == "cond"
            and isinstance(tokens[found[2]].value, Compare)
        ):
            n, period, end = found
            condition = Sustained(tokens[end].value, n, period)
            return end + 1 - i, [_synthetic("cond", condition, tokens[i : end + 1])]
        return None

    # --- ordering and limits ----------------------------------------------------------------------
    def _ordering(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        # metric [time] super|top N|order [dir]
        if token.kind in {"metric", "aggmetric", "change_word"}:
            j = i + 1
            time = token.extra.get("time")
            while _kind(tokens, j) in {"timespec", "order"}:
                if tokens[j].kind == "timespec":
                    time = tokens[j].value
                j += 1
            direction: str | None = None
            limit: int | None = None
            if _kind(tokens, j) == "super":
                direction = tokens[j].value
                limit = 1
                j += 1
            elif _kind(tokens, j) in {"top", "bottom"} and _kind(tokens, j + 1) == "number":
                direction = "desc" if tokens[j].kind == "top" else "asc"
                limit = int(tokens[j + 1].value)
                j += 2
            elif _kind(tokens, j) == "dir":
                direction = tokens[j].value
                j += 1
            elif tokens[j - 1].kind == "order":
                direction = "desc"
            if direction is None:
                return None
            if _kind(tokens, j) == "order":
                j += 1
            if (
                _kind(tokens, j) in {"top", "bottom"} and _kind(tokens, j + 1) == "number"
            ):  # 涨幅排名前10 / 从高到低前10
                limit = int(tokens[j + 1].value)
                j += 2
            return j - i, [self._order_token(token, direction, limit, time, tokens[i:j])]
        # super|top N [by] metric
        if token.kind in {"super", "top", "bottom", "order", "per", "gainers"}:
            j = i
            ranked_dimension: Token | None = None
            direction = None
            limit = None
            if token.kind == "super":
                direction, limit = token.value, 1
                j += 1
                if _kind(tokens, j) == "number":
                    limit = int(tokens[j].value)
                    j += 1
            elif token.kind in {"top", "bottom"} and _kind(tokens, j + 1) == "number":
                direction = "desc" if token.kind == "top" else "asc"
                limit = int(tokens[j + 1].value)
                j += 2
                if _kind(tokens, j) == "super":
                    direction = tokens[j].value
                    j += 1
            elif token.kind == "order" or (
                token.kind == "per" and _kind(tokens, i + 1) in {"metric", "aggmetric", "change_word"}
            ):
                j += 1
                direction = "desc"
                if token.kind == "order" and _kind(tokens, j) == "dim":
                    ranked_dimension = tokens[j]  # "Rank industries by …": the industries are the groups
                    j += 1
            elif token.kind == "gainers":
                gain = Token("metric", "pct_chg", token.text, token.start)
                return 1, [self._order_token(gain, token.value, None, None, [token])]
            if direction is None:
                return None
            skipped: list[Token] = []  # "the 5 largest CSI 300 constituents by market cap": the scope stays
            while _kind(tokens, j) == "cond" and tokens[j].extra.get("scope"):
                skipped.append(tokens[j])
                j += 1
            if _kind(tokens, j) == "count_unit":
                j += 1
            if _kind(tokens, j) == "gainers":
                direction = tokens[j].value if token.kind != "bottom" else "asc"
                if token.kind == "super":  # biggest losers = the largest declines
                    direction = tokens[j].value
                metric_token = Token("metric", "pct_chg", tokens[j].text, tokens[j].start)
                return j + 1 - i, [self._order_token(metric_token, direction, limit, None, tokens[i : j + 1])]
            if _kind(tokens, j) in {"per", "order"} and _kind(tokens, j + 1) in {
                "metric",
                "aggmetric",
                "change_word",
            }:
                j += 1
            time = None
            if _kind(tokens, j) == "timespec":
                time = tokens[j].value
                j += 1
            if _kind(tokens, j) not in {"metric", "aggmetric", "change_word"}:
                return None
            metric_token = tokens[j]
            j += 1
            if _kind(tokens, j) == "timespec" and not tokens[j].value.is_single_day:
                time = tokens[j].value  # "gain over the last 20 days"; a single day stays the question's day
                j += 1
            if _kind(tokens, j) == "dir":
                direction = tokens[j].value
                j += 1
            if _kind(tokens, j) == "order":
                j += 1
            order = self._order_token(metric_token, direction, limit, time, tokens[i:j])
            produced = [*skipped, order]
            return j - i, produced if ranked_dimension is None else [*produced, ranked_dimension]
        return None

    def _order_token(
        self,
        metric_token: Token,
        direction: str,
        limit: int | None,
        time: TimeSpec | None,
        source: list[Token],
    ) -> Token:
        if metric_token.kind == "aggmetric":
            fn, metric_key = metric_token.value
            key = f"agg:{fn}:{metric_key}"
            time = time or metric_token.extra.get("time")
            if time is not None and not time.is_single_day and self.model.metrics[metric_key].kind == "daily":
                order = Order(metric_key, direction, time=time, agg=fn)
                return _synthetic("orderspec", order, source, limit=limit)
            return _synthetic("orderspec", Order(key, direction), source, limit=limit)
        metric_key = self._metric_of(metric_token)
        metric = self.model.metrics[metric_key]
        if metric.negated:
            direction = "asc" if direction == "desc" else "desc"
            metric_key = metric.column
        return _synthetic("orderspec", Order(metric_key, direction, time=time), source, limit=limit)

    # --- grouping ---------------------------------------------------------------------------------
    def _group(self, tokens: list[Token], i: int) -> tuple[int, list[Token]] | None:
        token = tokens[i]
        if token.kind == "per" and _kind(tokens, i + 1) == "dim":
            return 2, [_synthetic("groupby", tokens[i + 1].value, tokens[i : i + 2])]
        if token.kind == "per" and _kind(tokens, i + 1) == "cond" and _kind(tokens, i + 2) == "dim":
            # in each new-energy industry: the scope stays, the grouping is by industry
            scope = tokens[i + 1]
            return 3, [scope, _synthetic("groupby", tokens[i + 2].value, tokens[i : i + 3])]
        count_filter = _kind(tokens, i + 1) == "number" and _kind(tokens, i + 2) == "count_unit"
        if token.kind == "cmp" and count_filter and not tokens[i + 1].extra.get("unit"):
            # "only industries with more than 10 such stocks": a filter on the group's count
            condition = Compare("stock_count", token.value, float(tokens[i + 1].value), agg="count")
            return 3, [_synthetic("having", condition, tokens[i : i + 3])]
        if token.kind == "each_stock":
            return 1, [_synthetic("groupby", "ts_code", [token])]
        return None

    # --- assembly ---------------------------------------------------------------------------------
    def _assemble(self, tokens: list[Token]) -> Screen:
        screen = Screen()
        conditions: list[tuple[Condition, bool, str]] = []  # (condition, is entity scope, connector before)
        connector = "and"
        pending_not = False
        pending_direction: str | None = None
        condition_starts: list[int] = []
        per_day = False
        all_of = False
        times: list[Token] = []
        limit_numbers: list[int] = []
        leftovers: list[Token] = []
        dims: list[str] = []
        for token in tokens:
            kind = token.kind
            if kind == "cond":
                condition: Condition = token.value
                if pending_not:
                    condition = Not(condition)
                    pending_not = False
                conditions.append((condition, bool(token.extra.get("scope")), connector))
                condition_starts.append(token.start)
                connector = "and"
            elif kind == "or":
                connector = "or"
            elif kind == "not":
                pending_not = True
            elif kind == "timespec":
                times.append(token)
            elif kind == "orderspec":
                if screen.order is not None:
                    raise NotUnderstood(f"two orderings in one question: '{token.text}'")
                screen.order = token.value
                if token.extra.get("limit") is not None:
                    screen.limit = token.extra["limit"]
            elif kind == "groupby":
                screen.group_by = token.value
            elif kind == "aggmetric":
                fn, metric = token.value
                screen.aggregates.append(Aggregate(fn, metric))
                if token.extra.get("time") is not None:
                    times.append(_synthetic("timespec", token.extra["time"], [token]))
            elif kind == "count":
                screen.aggregates.append(Aggregate("count"))
            elif kind == "count_move":  # 上涨家数 / number of decliners
                screen.aggregates.append(Aggregate(str(token.value), "pct_chg"))
            elif kind == "having":
                screen.having.append(token.value)
            elif kind == "per_day" or (kind == "consecutive" and "each" in token.text):
                per_day = True
            elif kind == "all_of":
                all_of = True
            elif kind == "daily_values":
                screen.daily_values = True
            elif kind == "out_unit":
                screen.display_unit = float(token.value)
            elif kind in {"metric", "change_word"}:
                metric = self._metric_of(token)
                if self.model.metrics[metric].negated:
                    metric = self.model.metrics[metric].column
                if metric not in screen.outputs:
                    screen.outputs.append(metric)
            elif kind == "dim":
                dims.append(token.value)
            elif kind == "number" and not token.extra.get("unit") and float(token.value).is_integer():
                limit_numbers.append(int(token.value))
            elif kind == "dir" and screen.order is None:
                pending_direction = token.value
            elif kind in HARMLESS or (kind == "cmp" and token.value == "="):
                continue
            else:
                leftovers.append(token)
        if pending_not:
            raise NotUnderstood("'not' is not followed by a condition the engine can negate")
        if leftovers:
            raise NotUnderstood("could not place: " + ", ".join(f"'{token.text}'" for token in leftovers[:5]))
        if screen.order is None and pending_direction is not None:
            # 各行业成交额合计，按从高到低排列: order by the one aggregate (or metric) asked about
            if screen.aggregates and screen.aggregates[0].metric:
                first = screen.aggregates[0]
                screen.order = Order(f"agg:{first.fn}:{first.metric}", pending_direction)
            elif screen.outputs and screen.outputs[0] in self.model.metrics:
                screen.order = Order(screen.outputs[0], pending_direction)
        self._whole_set_aggregates(screen, all_of, conditions)
        ordered_by_aggregate = screen.order is not None and screen.order.metric.startswith("agg:")
        if per_day and screen.group_by is None and (screen.aggregates or ordered_by_aggregate):
            screen.group_by = "trade_date"
        for dim in dims:
            if screen.group_by is None and (screen.aggregates or screen.having or ordered_by_aggregate):
                screen.group_by = dim
            elif dim not in screen.outputs and dim != screen.group_by:
                screen.outputs.append(dim)
        if ordered_by_aggregate and screen.group_by is None and screen.order is not None:
            # 日均成交额最大的股票: without groups the aggregate runs over each stock's window
            _prefix, fn, metric_key = screen.order.metric.split(":", 2)
            if metric_key in self.model.metrics and self.model.metrics[metric_key].kind == "daily":
                screen.order = Order(metric_key, screen.order.direction, time=screen.order.time, agg=fn)
                ordered_by_aggregate = False
        has_count_unit = any(t.kind == "count_unit" for t in tokens)
        if len(limit_numbers) > 1 or (limit_numbers and screen.order is None and not has_count_unit):
            raise NotUnderstood("could not place the number(s): " + ", ".join(str(n) for n in limit_numbers))
        if limit_numbers and (screen.order is None or screen.limit in {None, 1}):
            screen.limit = limit_numbers[0]
        if (
            screen.group_by
            and screen.limit is not None
            and screen.order is not None
            and not ordered_by_aggregate
        ):
            screen.per_group_limit, screen.limit = screen.limit, None
        if screen.group_by:
            kept = []
            for condition, is_scope, connector in conditions:
                if isinstance(condition, Compare) and condition.agg and (condition.time is None):
                    screen.having.append(condition)
                else:
                    kept.append((condition, is_scope, connector))
            conditions = kept
        conditions = _attach_second_times(conditions, condition_starts, times)
        screen.where = _combine(conditions)
        self._place_times(screen, times)
        return screen

    def _whole_set_aggregates(
        self, screen: Screen, all_of: bool, conditions: list[tuple[Condition, bool, str]]
    ) -> None:
        """'Total market cap of all bank stocks' → a sum; 'highest close of one stock' → a max."""
        plain = screen.order is None and not screen.aggregates and screen.group_by is None
        metrics = [name for name in screen.outputs if name in self.model.metrics]
        if all_of and plain and len(metrics) == 1:
            screen.aggregates.append(Aggregate("sum", metrics[0]))
            screen.outputs.remove(metrics[0])
            return
        one_stock = [c for c, is_scope, _ in conditions if isinstance(c, Scope) and c.kind == "stock"]
        order = screen.order
        if (order is not None and screen.limit == 1 and len(one_stock) == 1 and len(one_stock[0].values) == 1
                and not screen.aggregates and order.metric in self.model.metrics):  # fmt: skip
            screen.aggregates.append(Aggregate("max" if order.direction == "desc" else "min", order.metric))
            screen.daily_values = True
            screen.order, screen.limit = None, None

    def _place_times(self, screen: Screen, times: list[Token]) -> None:
        specs: list[TimeSpec] = []
        for token in times:
            if token.value not in specs:
                specs.append(token.value)
        if not specs:
            return
        report_like = {"year", "annual", "quarter", "last_year", "year_before"}
        daily_specs = [spec for spec in specs if spec.label not in report_like]
        report_specs = [spec for spec in specs if spec.label in report_like]
        if len(report_specs) > 1:
            # "2023年和2024年净利润都…": one condition over several periods is not in the grammar yet
            words = ", ".join(f"'{token.text}'" for token in times if token.value in report_specs)
            raise NotUnderstood(
                f"several report periods ({words}) for one question: ask about one period at a time"
            )
        metrics = self.model.metrics
        kinds = {
            metrics[c.metric].kind for c in _compares(screen.where) if c.metric in metrics and c.time is None
        }
        if report_specs and (daily_specs or ("daily" in kinds and "report" in kinds)):
            # 2025年9月8日 … 2024年净利润 / "PE below 30 or 2024 revenue growth": the year belongs to the
            # fundamentals, the trading day (latest unless given) to the market data
            screen.time = daily_specs[0] if daily_specs else TimeSpec()
            screen.where = [
                _with_report_time(condition, report_specs[0], metrics) for condition in screen.where
            ]
            return
        screen.time = specs[0]


def _compares(conditions: list[Condition]) -> list[Compare]:
    found: list[Compare] = []
    for condition in conditions:
        if isinstance(condition, Compare):
            found.append(condition)
        elif isinstance(condition, BoolOp):
            found.extend(_compares(list(condition.items)))
        elif isinstance(condition, Not):
            found.extend(_compares([condition.item]))
    return found


def _with_report_time(condition: Condition, spec: TimeSpec, metrics: dict[str, Metric]) -> Condition:
    if (
        isinstance(condition, Compare)
        and condition.time is None
        and metrics[condition.metric].kind == "report"
    ):
        return replace(condition, time=spec)
    if isinstance(condition, BoolOp):
        return BoolOp(condition.op, tuple(_with_report_time(item, spec, metrics) for item in condition.items))
    if isinstance(condition, Not):
        return Not(_with_report_time(condition.item, spec, metrics))
    return condition


REPORT_LIKE = {"year", "annual", "quarter", "last_year", "year_before"}


def _attach_second_times(
    conditions: list[tuple[Condition, bool, str]], starts: list[int], times: list[Token]
) -> list[tuple[Condition, bool, str]]:
    """近10个交易日涨幅超过20%且今日换手率大于10%: the first market time is the question's; a later,
    different one belongs to the comparison written next to it."""
    market_times = [token for token in times if token.value.label not in REPORT_LIKE]
    if not market_times:
        return conditions
    first = market_times[0].value
    result = list(conditions)
    for token in market_times[1:]:
        if token.value == first:
            continue
        candidates = [
            k for k, (condition, is_scope, _c) in enumerate(result)
            if isinstance(condition, Compare) and condition.time is None and not is_scope
        ]  # fmt: skip
        if not candidates:
            continue
        nearest = min(candidates, key=lambda k: (abs(starts[k] - token.start), starts[k] < token.start))
        condition, is_scope, connector = result[nearest]
        assert isinstance(condition, Compare)
        result[nearest] = (replace(condition, time=token.value), is_scope, connector)
    return result


def _combine(conditions: list[tuple[Condition, bool, str]]) -> list[Condition]:
    """Entity scopes are AND-ed at top level; other conditions follow AND-before-OR precedence."""
    scopes = [condition for condition, is_scope, _connector in conditions if is_scope]
    rest = [(condition, connector) for condition, is_scope, connector in conditions if not is_scope]
    if not rest:
        return scopes
    groups: list[list[Condition]] = [[rest[0][0]]]
    for condition, connector in rest[1:]:
        if connector == "or":
            groups.append([condition])
        else:
            groups[-1].append(condition)
    if len(groups) == 1:
        return scopes + groups[0]
    disjuncts = tuple(group[0] if len(group) == 1 else BoolOp("and", tuple(group)) for group in groups)
    return [*scopes, BoolOp("or", disjuncts)]


def _period_bounds(token: Token) -> tuple[date, date]:
    if token.kind == "date":
        return token.value, token.value
    if token.kind == "month":
        year, month = token.value["year"], token.value["month"]
        next_first = date(year + (month == 12), month % 12 + 1, 1)
        return date(year, month, 1), date.fromordinal(next_first.toordinal() - 1)
    year = int(token.value)
    return date(year, 1, 1), date(year, 12, 31)


def _merge_words(words: list[str]) -> list[str]:
    merged: list[str] = []
    for word in words:
        if merged and not word.isascii() and not merged[-1].isascii():
            merged[-1] += word
        else:
            merged.append(word)
    return merged
