"""Numbers and units that must reach the SQL: 市值大于100亿 → total_mv compared with 1,000,000 (万元).

A number after a comparison word is a threshold. With the metric word just before it (semantic
model), the threshold is converted to the metric's stored unit and looked for in comparisons of that
column; a column compared only with a power-of-ten multiple of it is a unit error, with the
threshold the other way round a wrong direction. Without a metric, or when the unit does not fit
the metric (8% of a price is a gain), any usual writing of the number counts: 30% as 30, 0.3, 1.3
or 0.7; 50亿 as 5e9 times any power of ten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import lru_cache
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question, parse_count
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    close,
    columns_of,
    date_value,
    enclosing_select,
    first_argument,
    function_name,
    is_count,
    is_power_of_ten,
    linear_factor,
    number_value,
    strip,
)
from backend.domain.pipeline.validate.checklist.vocabulary import Category, Hit, MetricInfo, Vocabulary


class Side(StrEnum):
    ABOVE = "above"
    BELOW = "below"


# A bare number followed by a time word counts days or years ("高于20日均线"): it is not a threshold.
_TIME_AFTER = re.compile(
    r"\s*(个?交易日|日|天|周|个月|月|年|期|个报告期|(trading )?days?\b|years?\b|weeks?\b|months?\b)"
)
# A comparison sign after a word (margin >60%), not between two numbers (MA5 > MA10 > MA20: an order).
_SIGN = r"(?<![\d)])(?<![\d)]\s)"
_ABOVE = (
    "超过|大于|高于|多于|高出|超出|不低于|不少于|至少|more than|greater than|higher than|larger than|above"
    "|over|exceeding|exceeds|exceeded|exceed|at least|no less than|not less than|突破|超"
    f"|{_SIGN}(?:>=|≥|>|＞)"
)
_BELOW = (
    "低于|小于|少于|不足|不到|不超过|不高于|less than|lower than|smaller than|fewer than|below|under|at most"
    "|no more than|not more than|within|跌破|(?<![突打击])破"
    f"|{_SIGN}(?:<=|≤|<|＜)"
)
# Words that keep the boundary out (超过30 is not 30) or in (至少30 is 30); 以上/以下 and "between" say
# neither for sure.
_STRICT = re.compile(
    r"超过|大于|高于|多于|高出|超出|低于|小于|少于|不足|不到|more than|greater than|higher than|larger than"
    r"|above|over|exceeding|exceeds|exceeded|exceed|less than|lower than|smaller than|fewer than|below|under"
    r"|破|超|>|<|＞|＜"
)
_INCLUSIVE = re.compile(
    r"不低于|不少于|至少|不超过|不高于|at least|no less than|not less than|at most|no more than|not more than"
    r"|>=|<=|≥|≤"
)
# 降幅/减幅 name the size of a fall (净利润同比降幅超过30%: below -30).
_FALLING = re.compile(
    r"下滑|下降|下跌|减少|回落|萎缩|降幅|减幅|跌|\b(?:fell|fall|falls|dropped|drop|declined|decline|decreased|down|lost)\b"
)
# A small English number is read only as a multiple ("three times its average"), never as a count.
_TIMES_WORDS = r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten)(?=\s+times\b)"
# Multiples said as a word (more than triple their average, at least double): the times unit.
_MULTIPLES = {"double": 2, "twice": 2, "triple": 3, "treble": 3, "thrice": 3, "quadruple": 4}
_MULTIPLE_WORDS = rf"\b(?:{'|'.join(_MULTIPLES)})\b"
_TENTHS = "成"  # 三成 = 30%, a Chinese way to write a percentage the semantic model does not list


@dataclass(frozen=True)
class _Patterns:
    compared: re.Pattern[str]  # 超过100亿, above 50 billion yuan
    postfix: re.Pattern[str]  # 10元以上
    between: re.Pattern[str]  # 在10到20之间, between 100 and 200 billion


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


@lru_cache(maxsize=4)
def _patterns(units: tuple[str, ...], tails: tuple[str, ...]) -> _Patterns:
    """Patterns over the unit words of the semantic model (scales, %, 倍, money and share words)."""

    def amount(suffix: str = "") -> str:
        return (
            rf"(?P<num{suffix}>-?\d+(?:,\d{{3}})*(?:\.\d+)?(?![\d.\-/])|[零一二两三四五六七八九十百千]+"
            rf"|{_TIMES_WORDS}|{_MULTIPLE_WORDS})\s*"
            rf"(?:(?P<unit{suffix}>{_alternatives(units)})(?![a-z]))?\s*"
            rf"(?:(?P<tail{suffix}>{_alternatives(tails)})(?![a-z]))?"
        )

    return _Patterns(
        compared=re.compile(rf"(?P<word>{_ABOVE}|{_BELOW})\s*(?:了|约|about |around )?\s*{amount()}"),
        postfix=re.compile(rf"{amount()}\s*(?P<word>以上|以下|以内)"),
        between=re.compile(
            rf"(?:在|介于|between)\s*{amount('1')}\s*(?:到|至|和|与|~|-|and)\s*{amount('2')}\s*(?:之间)?"
        ),
    )


def _vocabulary_patterns(vocabulary: Vocabulary) -> _Patterns:
    tails = (*vocabulary.money_words, *vocabulary.share_units)
    units = (*vocabulary.scale_units, *vocabulary.percent_words, *vocabulary.times_words, *tails, _TENTHS)
    return _patterns(units, tails)


@dataclass(frozen=True)
class Quantity:
    value: float  # as written
    base: float  # in yuan, shares, percent points, or the bare value
    unit: str  # percent / times / money / shares / scale / bare


def _quantity(number: str, unit: str, tail: str, vocabulary: Vocabulary) -> Quantity | None:
    if number.lower() in _MULTIPLES:
        return Quantity(_MULTIPLES[number.lower()], _MULTIPLES[number.lower()], "times")
    value = float(number.replace(",", "")) if re.match(r"-?\d", number) else parse_count(number)
    if value is None:
        return None
    value = float(value)
    shares = vocabulary.share_units
    if unit in vocabulary.percent_words:
        return Quantity(value, value, "percent")
    if unit == _TENTHS:
        return Quantity(value, value * 10, "percent")
    if unit in vocabulary.times_words:
        return Quantity(value, value, "times")
    if unit in vocabulary.scale_units:
        scaled = value * vocabulary.scale_units[unit]
        return (
            Quantity(value, scaled * shares[tail], "shares")
            if tail in shares
            else Quantity(value, scaled, "scale")
        )
    if unit in shares:
        return Quantity(value, value * shares[unit], "shares")
    return Quantity(value, value, "money" if unit else "bare")


def _stored(quantity: Quantity, metric: MetricInfo, falling: bool) -> float | None:
    """The threshold in the metric's stored unit, or None when the unit does not fit the metric.

    A falling metric (跌幅 = -pct_chg) or a falling verb (营收同比下滑超过20%) makes it negative.
    """
    if metric.percent:
        stored = quantity.base if quantity.unit in {"percent", "bare"} else None
    elif metric.unit_kind in {"money", "shares"}:
        fitting = {"scale", "money"} if metric.unit_kind == "money" else {"scale", "shares"}
        if quantity.unit == "bare":
            stored = quantity.value * metric.input_factor / metric.stored_factor
        else:
            stored = quantity.base / metric.stored_factor if quantity.unit in fitting else None
    else:
        stored = quantity.value if quantity.unit in {"bare", "money", "times"} else None
    if stored is None:
        return None
    return -stored if metric.negated != falling else stored


def _bound_writings(stored: float, metric: MetricInfo) -> tuple[float, ...]:
    """Ways to write a threshold on a known metric: its stored value, or a ratio for a percentage."""
    if metric.percent:
        return (stored, -stored, stored / 100, -stored / 100, 1 + stored / 100, 1 - stored / 100)
    return (stored, -stored)


def _writings(quantity: Quantity) -> tuple[float, ...]:
    """Usual ways to write a number whose unit no metric pins down."""
    if quantity.unit == "percent":
        v = quantity.base
        return (v, -v, v / 100, -v / 100, 1 + v / 100, 1 - v / 100)
    if quantity.unit == "times":
        return (quantity.value,)
    scaled = tuple(quantity.base * 10.0**power for power in range(-12, 13))
    return (quantity.value, -quantity.value, *scaled, *(-value for value in scaled))


# Columns a threshold may sit on without being a metric (limits, ranks, counts of rows).
_NOT_METRICS = {"rn", "rank", "n", "cnt", "count", "days", "bars", "row_number"}


@dataclass(frozen=True)
class NumberDetail:
    kind: ClassVar[Kind] = Kind.NUMBER
    value: float
    side: Side  # of the stored column: 跌幅超过5% is pct_chg below -5
    column: str  # "" when no metric column is bound to the number
    stored: float | None  # the threshold in the column's stored unit
    writings: tuple[float, ...]  # forms that count as the number anywhere in the SQL
    # The boundary excluded (超过), included (至少), or not said (以上): whether a row exactly at it
    # changes the answer needs the data (validate/boundary.py).
    strict: bool | None = None
    # With a percentage bound to no metric, or to one in percent points: the stored columns that hold
    # percent points (pct_chg, or_yoy, roe …). 30% compared with one of them (or an aggregate of one
    # that keeps its unit) as 0.3, or a price ratio compared with 30, is a unit error.
    percent_columns: frozenset[str] = frozenset()
    # With a percentage bound to no metric: stored columns in another unit (prices, change, amounts,
    # multiples); one of them compared bare with the points (change > 9 for "gained more than 9%")
    # is not the percentage asked.
    other_unit_columns: frozenset[str] = frozenset()
    # With no metric column: the positive writings of a percentage or multiple (30 %: 30, 0.3, 1.3),
    # which read the way the question says when compared the way it says (a gap above 5% as
    # open / pre_close - 1 > 0.05). Empty when a fall or a negation is said before the number: a fall
    # of 30% is also 1 - close / base > 0.3.
    oriented: tuple[float, ...] = ()
    # A rise or a fall said before the number (涨幅超过5%, gained more than 9.5%), with no word that
    # takes both ways (绝对值, either way, 振幅): abs() of the move drops the side asked.
    signed: bool = False
    # With `oriented` above, an upward word near the number and no downward one (gapped up, 15% above;
    # not 低于, below): the negative writings (-0.05, -5). A plain formula kept below one of them,
    # and nothing compared with a positive one, is the move the other way.
    opposed: tuple[float, ...] = ()
    # A bare number of things counted (more than 3,000 stocks, 超过100只, 上涨家数超过3000): a count
    # (count, countIf, uniq) compared with it only the other way keeps the other side.
    counted: bool = False
    # With no metric column: a fall said before a percentage (lost more than 30%), with no negation.
    # A gain between two days written as a ratio of closes pinned to them (z.close / a.close, z on the
    # later day) compared above the positive number is a rise of that size.
    fall: bool = False

    def _rise_for_fall(self, sql: Sql) -> Finding | None:
        ups = (self.value / 100, self.value, 1 + self.value / 100)
        for comparison in sql.comparisons:
            number = comparison.number
            if number is None or comparison.negated or not any(close(number, up) for up in ups):
                continue
            way = _gain_way(sql, comparison.subject, comparison.select)
            if way is not None and (way > 0) == (comparison.op in {">", ">="}):
                return failed(
                    Attribution.CONDITION,
                    f"the gain between the two days is kept {'above' if way > 0 else 'below'} "
                    f"{_shown(number)}: a rise of {_shown(self.value)}%, the question asks a fall",
                )
        return None

    def _unsigned(self, sql: Sql) -> Finding | None:
        found = [
            c
            for c in sql.comparisons
            if c.number is not None and any(close(c.number, form) for form in self.writings)
        ]
        if found and all(function_name(strip(c.subject)) == "abs" for c in found):
            return failed(
                Attribution.CONDITION,
                f"{_shown(self.value)} is compared with an absolute value: moves the other way count too",
            )
        return None

    def _direction(self, sql: Sql) -> Finding | None:
        """A failure when every comparison of a plain formula with a positive writing of the number
        keeps the other side (振幅超过10% as … * 100 < 10)."""
        wanted = {">", ">="} if self.side is Side.ABOVE else {"<", "<="}
        found = [
            comparison
            for comparison in sql.comparisons
            if comparison.number is not None
            and any(close(comparison.number, form) for form in self.oriented)
            and _plain(comparison.subject)
            and not _bucket_bound(comparison.node)
        ]
        if not found:
            return self._opposed(sql)
        if any(c.negated or c.op in wanted or c.op in {"=", "!="} for c in found):
            return None
        return failed(
            Attribution.CONDITION,
            f"{_shown(found[0].number or 0)} is compared the wrong way (the question says {self.side.value})",
        )

    def _count_direction(self, sql: Sql) -> Finding | None:
        """A failure when every count compared with the number keeps the other side (countIf(…) <
        3000 for more than 3,000 stocks)."""
        wanted = {">", ">="} if self.side is Side.ABOVE else {"<", "<="}
        found = [
            comparison
            for comparison in sql.comparisons
            if comparison.number is not None
            and close(comparison.number, self.value)
            and is_count(strip(comparison.subject))
        ]
        if not found or any(c.negated or c.op in wanted or c.op in {"=", "!="} for c in found):
            return None
        return failed(
            Attribution.CONDITION,
            f"the count is compared with {_shown(self.value)} the wrong way "
            f"(the question says {self.side.value})",
        )

    def _opposed(self, sql: Sql) -> Finding | None:
        """A failure when a plain formula is kept below a negative writing of an upward number
        (open / pre_close - 1 < -0.05 for gapped up more than 5%) and nothing is compared with a
        positive one."""
        found = [
            comparison
            for comparison in sql.comparisons
            if comparison.number is not None
            and any(close(comparison.number, form) for form in self.opposed)
            and _plain(comparison.subject)
        ]
        if not found or any(c.negated or c.op not in {"<", "<="} for c in found):
            return None
        return failed(
            Attribution.CONDITION,
            f"a formula is kept below {_shown(found[0].number or 0)}: a move of {_shown(self.value)}% the "
            f"other way (the question says {self.side.value})",
        )

    def _percent_unit(self, sql: Sql) -> Finding | None:
        points = (self.value, -self.value)
        ratios = tuple(r for r in (self.value / 100, -self.value / 100, 1 + self.value / 100) if r)
        wrong: list[str] = []
        for comparison in sql.comparisons:
            number = comparison.number
            subject = strip(sql.resolve(comparison.subject, comparison.select))
            if number is None:
                continue
            if any(close(number, point) for point in points):
                if isinstance(subject, exp.Column) and subject.name.lower() in self.other_unit_columns:
                    wrong.append(f"{subject.name} (not in percent) is compared with {_shown(number)}")
                    continue
                if not _price_ratio(subject):
                    return None
                wrong.append(f"a price ratio is compared with {_shown(number)} (percent points)")
            elif any(close(number, ratio) for ratio in ratios):
                column = _in_points(subject, self.percent_columns)
                if column is not None:
                    wrong.append(f"{column} (in percent points) is compared with {_shown(number)}")
                elif _price_points(subject):
                    wrong.append(f"a price ratio times 100 (points) is compared with {_shown(number)}")
                else:
                    return None
        if not wrong:
            return None
        return failed(Attribution.UNIT, f"{wrong[0]}; the question says {_shown(self.value)}%")

    def boundary_targets(self) -> set[float]:
        """The number as written, in the stored unit, or as a ratio (not rescaled by powers of ten):
        the constants a comparison at this boundary is written with."""
        exact = {self.value, self.value / 100, 1 + self.value / 100, 1 - self.value / 100}
        exact |= {self.stored} if self.stored is not None else set()
        return {sign * value for value in exact for sign in (1, -1)}

    def _on_other_columns(self, sql: Sql) -> set[str]:
        """Plain stored columns other than the metric's that the number is compared with (pe < 0.8
        where P/B was asked), when every comparison with the number is of that kind."""
        names: set[str] = set()
        for comparison in sql.comparisons:
            if comparison.number is None or not any(close(comparison.number, w) for w in self.writings):
                continue
            subject = comparison.subject
            if not isinstance(subject, exp.Column) or subject.name.lower() in _NOT_METRICS:
                return set()
            names.add(subject.name.lower())
        return names - {self.column}

    def check(self, sql: Sql) -> Finding:
        unsigned = self._unsigned(sql) if self.signed else None
        if unsigned is not None:
            return unsigned
        if not self.column or self.stored is None:
            unit = self._percent_unit(sql) if self.percent_columns else None
            if unit is not None:
                return unit
            turned = self._direction(sql) if self.oriented else None
            turned = turned or (self._count_direction(sql) if self.counted else None)
            turned = turned or (self._rise_for_fall(sql) if self.fall else None)
            if turned is not None:
                return turned
            written = sql.find_number(self.writings)
            if written is not None:
                return passed(f"{_shown(self.value)} appears in the SQL (as {_shown(written)})")
            return failed(Attribution.CONDITION, f"{_shown(self.value)} appears nowhere in the SQL")
        stored = self.stored
        plain: list[_Threshold] = []
        in_formula = False
        for comparison in sql.comparisons:
            if comparison.number is None or self.column not in columns_of(comparison.subject):
                continue
            factor = linear_factor(comparison.subject, self.column)
            if factor is None:
                in_formula = True
                continue
            op = comparison.op if factor > 0 else _MIRROR[comparison.op]
            plain.append(
                _Threshold(
                    comparison.number / factor,
                    op,
                    comparison.negated,
                    comparison.number,
                    _bucket_bound(comparison.node),
                )
            )
        matching = [threshold for threshold in plain if close(threshold.implied, stored)]
        wanted = {">", ">="} if self.side is Side.ABOVE else {"<", "<="}
        if any(threshold.op in wanted or threshold.negated or threshold.bucket for threshold in matching):
            return passed(f"{self.column} is compared with {_shown(stored)}")
        if stored == 0 and plain and all(t.bucket and t.implied > 0 for t in plain):
            return undecided(
                f"{self.column}'s lowest bucket stands open at 0: "
                "what leaves the negative values out (a NULL, a filter elsewhere) is not read"
            )
        if matching:
            return failed(
                Attribution.CONDITION,
                f"{self.column} is compared with {_shown(stored)} the wrong way "
                f"(the question says {self.side.value})",
            )
        # The constants of the column's own comparisons are not the number written somewhere else.
        elsewhere = list(sql.numbers)
        for threshold in plain:
            if threshold.constant in elsewhere:
                elsewhere.remove(threshold.constant)
        written = next((v for v in elsewhere if any(close(v, w) for w in self.writings)), None)
        if written is not None:
            unit = self._percent_unit(sql) if self.percent_columns and not plain else None
            if unit is not None:
                return unit
            others = self._on_other_columns(sql)
            if others and not plain and not in_formula:
                return failed(
                    Attribution.CONDITION,
                    f"{_shown(written)} is a threshold on {', '.join(sorted(others))}, "
                    f"the question names {self.column}",
                )
            if plain:  # compared with something else, or in a formula: not ours to judge
                return undecided(
                    f"{_shown(written)} appears in the SQL, but not as a threshold on {self.column}"
                )
            return passed(f"{_shown(self.value)} appears in the SQL (as {_shown(written)})")
        if plain:
            implied = plain[0].implied
            if stored and is_power_of_ten(abs(implied / stored)):
                return failed(
                    Attribution.UNIT,
                    f"{self.column} is compared with {_shown(implied)}, "
                    f"expected {_shown(stored)} in its stored unit",
                )
            return failed(
                Attribution.CONDITION,
                f"{self.column} is compared with {_shown(implied)}, expected {_shown(stored)}",
            )
        if in_formula:
            return undecided(f"{self.column} is compared only inside formulas with other constants")
        return failed(Attribution.CONDITION, f"no condition compares {self.column} with {_shown(stored)}")


_PRICES = {"close", "open", "high", "low", "pre_close"}
# Aggregates whose result is in the unit of their argument (a variance is in squared units).
_SAME_UNIT = (exp.Avg, exp.Sum, exp.Max, exp.Min, exp.Median, exp.Quantile, exp.Stddev, exp.AnyValue)
_SAME_UNIT_NAMES = {
    "stddevsamp",
    "stddevpop",
    "avgif",
    "maxif",
    "minif",
    "median",
    "medianexact",
    "quantileexact",
}


def _in_points(subject: exp.Expr, percent_columns: frozenset[str]) -> str | None:
    """The percent-point column a subject is, directly or through an aggregate that keeps its unit
    (stddevSamp(pct_chg), avg(roe))."""
    if isinstance(subject, _SAME_UNIT) or function_name(subject) in _SAME_UNIT_NAMES:
        inner = first_argument(subject)
        subject = strip(inner) if inner is not None else subject
    if isinstance(subject, exp.Column) and subject.name.lower() in percent_columns:
        return subject.name.lower()
    return None


def _price_ratio(subject: exp.Expr) -> bool:
    """A ratio of prices not scaled to percent: (high - low) / pre_close, argMax(close) / argMin(close)."""
    if any(number_value(literal) == 100 for literal in subject.find_all(exp.Literal)):
        return False
    return any(
        columns_of(div.this) & _PRICES and columns_of(div.expression) & _PRICES
        for div in subject.find_all(exp.Div)
    )


def _price_points(subject: exp.Expr) -> bool:
    """A ratio of prices scaled to percent points: (high - low) / pre_close * 100,
    (argMax(close, d) / argMin(close, d) - 1) * 100."""
    return any(
        any(number_value(side) == 100 for side in (mul.this, mul.expression))
        and any(
            columns_of(div.this) & _PRICES and columns_of(div.expression) & _PRICES
            for div in mul.find_all(exp.Div)
        )
        for mul in subject.find_all(exp.Mul)
    )


def _pinned_days(select: exp.Select | None) -> dict[str, date]:
    """Table alias → the one day its trade_date is pinned to (a.trade_date = '2025-06-30', in the
    WHERE or a JOIN's ON)."""
    found: dict[str, set[date]] = {}
    for node in select.find_all(exp.EQ) if select is not None else []:
        if enclosing_select(node) is not select:
            continue
        for column, value in ((node.this, node.expression), (node.expression, node.this)):
            day = date_value(value)
            if (
                isinstance(column, exp.Column)
                and column.name.lower() == "trade_date"
                and column.table
                and day
            ):
                found.setdefault(column.table.lower(), set()).add(day)
    return {alias: days.pop() for alias, days in found.items() if len(days) == 1}


def _gain_way(sql: Sql, subject: exp.Expr, select: exp.Select | None) -> int | None:
    """+1 when the subject grows with the gain between two pinned days (later close / earlier close),
    -1 when it shrinks with it, None when the tree does not tell."""
    days = _pinned_days(select)
    subject = strip(subject)
    while isinstance(subject, exp.Round | exp.Paren):  # round(x, 9): the same way
        subject = strip(subject.this)
    if isinstance(subject, exp.Sub) and number_value(subject.expression) is not None:
        subject = strip(subject.this)  # z.close / a.close - 1
    if not isinstance(subject, exp.Div):
        return None
    top, bottom = strip(subject.this), strip(subject.expression)
    if not (isinstance(top, exp.Column) and isinstance(bottom, exp.Column)):
        return None
    if top.name.lower() != "close" or bottom.name.lower() != "close":
        return None
    later, earlier = days.get(top.table.lower()), days.get(bottom.table.lower())
    if later is None or earlier is None or later == earlier:
        return None
    return 1 if later > earlier else -1


def _plain(subject: exp.Expr) -> bool:
    """No sign turned inside: no negation and nothing subtracted from a constant (1 - a / b)."""
    return not any(
        isinstance(node, exp.Neg) or (isinstance(node, exp.Sub) and number_value(node.this) is not None)
        for node in subject.walk()
    )


def _percent_columns(question: Question) -> frozenset[str]:
    return frozenset(
        column
        for metric in question.vocabulary.metrics.values()
        if metric.percent and len(metric.columns) == 1
        for column in metric.columns
    )


@dataclass(frozen=True)
class _Threshold:
    implied: float  # the threshold on the bare column (total_mv / 1e4 > 100 implies 1e6)
    op: str  # on the bare column
    negated: bool
    constant: float  # as written in the SQL
    bucket: bool = False  # a bucketing's bound: its side is set by the order of the branches


def _bucket_bound(node: exp.Expr) -> bool:
    """A condition of a bucketing (multiIf, or CASE with two or more WHENs: 0-20, 20-50, 50+): a branch
    holds only where the earlier ones failed, so its comparison alone does not tell the bucket's side."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, exp.Select):
        if isinstance(parent, exp.Anonymous) and function_name(parent) == "multiif":
            conditions = parent.expressions[:-1:2]
            if len(conditions) >= 2 and any(child is c for c in conditions):
                return True
        if (
            isinstance(child, exp.If)
            and isinstance(parent, exp.Case)
            and len(parent.args.get("ifs") or []) >= 2
        ):
            return True
        child, parent = parent, parent.parent
    return False


_MIRROR = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "!=": "!="}


def _shown(value: float) -> str:
    return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"


def _fallen_through(quantity: Quantity) -> bool:
    """Whether a bare 破 before the quantity reads as falling below it: a small bare level (市净率破1,
    PE破10) is fallen through; a unit or a big round number (市值破1000亿, 破3000点) is a milestone
    crossed upward as often, so it says no side for sure."""
    return quantity.unit in {"bare", "times"} and abs(quantity.value) < 100


def _side(word: str) -> Side:
    return Side.BELOW if re.fullmatch(_BELOW + "|以下|以内", word) else Side.ABOVE


# Things counted after a bare number (3,000 stocks, 100只), or a count named before it (上涨家数超过3000).
_COUNT_NOUN_AFTER = re.compile(
    r"\s*(?:只|家|支|个行业|个板块|\b(?:stocks|companies|names|firms|constituents|members|industries|sectors)\b)"
)
_COUNT_WORD_BEFORE = re.compile(r"(?:家数|只数|个数|数量|\bnumber of\b[^,;]{0,30})\s*(?:的\s*)?$")


def _counted(question: Question, start: int, end: int) -> bool:
    before = re.split(r"[，,。;；]", question.text[max(0, start - 12) : start])[-1]
    return bool(_COUNT_NOUN_AFTER.match(question.text, end) or _COUNT_WORD_BEFORE.search(before))


# The way a percentage moves, said around it: gapped up more than 5%, 15% above its average, 高开3%以上
# (up) — 低于均线15%以上, more than 15% below (down). A drawdown or a loss says neither for sure.
_UPWARD = re.compile(
    r"高于|高出|上方|之上|高开|上涨|站上|突破|\b(?:above|up|higher|rose|risen|gained|advanced|rallied)\b"
)
_DOWNWARD = re.compile(
    r"低于|小于|下方|之下|跌破|低开|下穿|\b(?:below|under|beneath|lower|down|less|short of)\b"
)
_NEGATED_BEFORE = re.compile(
    r"(?:没有|没|未|从未|从不|不曾|并非|\b(?:never|not|no|didn't|did not|none)\b)[^，,。;；]*$"
)


_BOTH_ENDS_KEPT = re.compile(
    r"\s*(?:之间|之内|以内)?\s*[（(]?\s*(?:含|包含|包括|\b(?:inclusive|both inclusive|including both)\b)"
)


def _strictness(question: Question, match: re.Match[str]) -> bool | None:
    """Whether the boundary is excluded; None when not said or under a negation (never fell more
    than 2% keeps −2 in)."""
    before = question.text[max(0, match.start() - 24) : match.start()]
    if _NEGATED_BEFORE.search(before) or re.match(
        r"\s*(?:以上|以下|或以上|或以下)", question.text[match.end() :]
    ):
        return None  # 高出120%以上: the postfix word leaves the boundary open
    if _INCLUSIVE.fullmatch(match["word"]):
        return False
    return True if _STRICT.fullmatch(match["word"]) else None


# "营收和净利润同比增长都超过30%", "both revenue growth and profit growth above 30%": one threshold
# for each metric of the pair.
_PAIRED_GAP = re.compile(r"\s*(?:同比)?(?:增长率?|增速|增幅|growth)?\s*(?:和|与|及|以及|、|and|,)\s*")
_BOTH_AFTER = re.compile(r"都|均|\b(?:both|each)\b")
_BOTH_BEFORE = re.compile(r"\bboth\s*$")


def _paired(question: Question, bound: tuple[Hit, MetricInfo], start: int) -> tuple[Hit, MetricInfo] | None:
    """The metric joined to the bound one by "and" when both/都 says the threshold holds for each."""
    hit = bound[0]
    earlier = [other for other in question.hits_of(Category.METRIC) if other.end <= hit.start]
    if not earlier or not _PAIRED_GAP.fullmatch(question.text[earlier[-1].end : hit.start]):
        return None
    first = earlier[-1]
    both = _BOTH_AFTER.search(question.text, hit.end, start) or _BOTH_BEFORE.search(
        question.text[max(0, first.start - 8) : first.start]
    )
    return (first, question.vocabulary.metrics[first.key]) if both else None


def _bound(question: Question, start: int, end: int | None = None) -> tuple[Hit, MetricInfo] | None:
    """The metric the number is a threshold on: a multiple named right after it (less than 0.6 times
    book value, 低于10倍市盈率) before the metric word ahead of it (trading at …, 股价…)."""
    if end is not None:
        multiple = next(
            (
                hit
                for hit in question.hits_of(Category.METRIC)
                if start < hit.start <= end + 1
                and question.vocabulary.metrics[hit.key].stored_unit in question.vocabulary.times_words
            ),
            None,
        )
        if multiple is not None:
            return multiple, question.vocabulary.metrics[multiple.key]
    return question.metric_before(start, 6 if question.lang is Lang.ZH else 25)


_RISING = re.compile(r"上涨|涨幅|涨超|涨了|涨|\b(?:gained|gains?|rose|rise|risen|climbed|advanced|up)\b")
_BOTH_WAYS = re.compile(
    r"绝对值|振幅|波动|双向|\b(?:abs|absolute|either way|either direction|swings?|moved?)\b"
)


def _signed(question: Question, start: int) -> bool:
    """A rise or a fall said just before the number, and no word that takes both ways."""
    before = question.text[max(0, start - (8 if question.lang is Lang.ZH else 30)) : start]
    moved = _RISING.search(before) or _FALLING.search(before)
    return moved is not None and _BOTH_WAYS.search(question.text) is None


def _constraint(
    question: Question,
    start: int,
    end: int,
    quantity: Quantity,
    side: Side,
    strict: bool | None = None,
    bound: tuple[Hit, MetricInfo] | None = None,
) -> Constraint:
    bound = bound or _bound(question, start, end if quantity.unit == "times" else None)
    metric = bound[1] if bound is not None else None
    falling = bound is not None and _FALLING.search(question.text, bound[0].end, start) is not None
    stored = _stored(quantity, metric, falling) if metric is not None and len(metric.columns) == 1 else None
    if bound is not None and metric is not None and stored is not None:
        column = next(iter(metric.columns))
        flipped = metric.negated != falling
        wanted = side if not flipped else (Side.BELOW if side is Side.ABOVE else Side.ABOVE)
        span = question.span(min(bound[0].start, start), max(bound[0].end, end))  # a multiple may follow
        shown = f"{column} {'>' if wanted is Side.ABOVE else '<'} {_shown(stored)}"
        text = question.says(
            f"{span.text}：{shown}（{metric.stored_unit}）", f"{span.text}: {shown} ({metric.stored_unit})"
        )
        # 涨幅超过50% on percent points: a price ratio compared with 50 is a unit error
        points = _percent_columns(question) if quantity.unit == "percent" and metric.percent else frozenset()
        detail = NumberDetail(
            quantity.value,
            wanted,
            column,
            stored,
            _bound_writings(stored, metric),
            strict,
            points,
            signed=_signed(question, start),
        )
        return Constraint(span, text, question.lang, detail)
    span = question.span(start, end)
    text = question.says(
        f"数值条件“{span.text}”须出现在 SQL 中", f"the threshold in “{span.text}” must appear in the SQL"
    )
    percent = quantity.unit == "percent"
    reach = 12 if question.lang is Lang.ZH else 40
    before = question.text[max(0, start - reach) : start]
    turned = _FALLING.search(before) or _NEGATED_BEFORE.search(before)
    oriented: tuple[float, ...] = ()
    opposed: tuple[float, ...] = ()
    if not turned and percent:
        oriented = (quantity.base, quantity.base / 100, 1 + quantity.base / 100)
        after = re.split(r"[，,。;；]", question.text[end : end + reach])[0]
        upward = _UPWARD.search(before) or _UPWARD.search(after)
        downward = _DOWNWARD.search(before) or _DOWNWARD.search(after)
        if side is Side.ABOVE and quantity.base > 0 and upward and not downward:
            opposed = (-quantity.base, -quantity.base / 100)  # 1 - v/100 may be a share's complement
    elif not turned and quantity.unit == "times":
        oriented = (quantity.value,)
    other_units = frozenset(
        column
        for metric in question.vocabulary.metrics.values()
        if not metric.percent and not metric.derived and len(metric.columns) == 1
        for column in metric.columns
    )
    detail = NumberDetail(
        quantity.value,
        side,
        "",
        None,
        _writings(quantity),
        strict,
        _percent_columns(question) if percent else frozenset(),
        other_units if percent else frozenset(),
        oriented,
        _signed(question, start),
        opposed=opposed,
        counted=quantity.unit == "bare" and not turned and _counted(question, start, end),
        fall=percent and bool(_FALLING.search(before)) and not _NEGATED_BEFORE.search(before),
    )
    return Constraint(span, text, question.lang, detail)


def extract(question: Question) -> list[Constraint]:
    text, vocabulary = question.text, question.vocabulary
    patterns = _vocabulary_patterns(vocabulary)
    found: list[tuple[int, Constraint]] = []
    taken: list[range] = []
    for match in patterns.between.finditer(text):
        # "between 100 and 200 billion": the first number takes the unit of the second.
        low_unit, low_tail = match["unit1"] or match["unit2"] or "", match["tail1"] or match["tail2"] or ""
        low = _quantity(match["num1"], low_unit, low_tail, vocabulary)
        high = _quantity(match["num2"], match["unit2"] or "", match["tail2"] or "", vocabulary)
        if low is None or high is None or (not match["unit2"] and _TIME_AFTER.match(text, match.end())):
            continue
        taken.append(range(match.start(), match.end()))
        # 在10到30之间（含10和30）, between 5 and 8 inclusive: both ends kept; otherwise not said
        strict = False if _BOTH_ENDS_KEPT.match(text, match.end()) else None
        for end, side in ((low, Side.ABOVE), (high, Side.BELOW)):
            read = _constraint(question, match.start(), match.end(), end, side, strict)
            found.append((match.start(), read))
    for match in [*patterns.compared.finditer(text), *patterns.postfix.finditer(text)]:
        if any(match.start() in span for span in taken):
            continue
        if not match["unit"] and not match["tail"] and _TIME_AFTER.match(text, match.end()):
            continue
        quantity = _quantity(match["num"], match["unit"] or "", match["tail"] or "", vocabulary)
        if quantity is None or (match["word"] == "破" and not _fallen_through(quantity)):
            continue
        side, strict = _side(match["word"]), _strictness(question, match)
        found.append(
            (match.start(), _constraint(question, match.start(), match.end(), quantity, side, strict))
        )
        bound = _bound(question, match.start())
        pair = _paired(question, bound, match.start()) if bound is not None else None
        if pair is not None:
            paired = _constraint(question, match.start(), match.end(), quantity, side, strict, pair)
            found.append((match.start(), paired))
    return [constraint for _, constraint in sorted(found, key=lambda item: item[0])]
