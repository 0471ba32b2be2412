"""One price of a bar above or below another, as the question orders them: 收盘价高于开盘价 / closed
above their open → close > open; opening above the previous day's high → open > the previous high;
收阳线 (a bullish candle) → close > open, 收阴线 → close < open; the close against a moving average:
跌破20日均线 / fell below its 20-day moving average → close < MA, 突破/站上 / closed above → close > MA.

The SQL must compare the two prices that way: the named prices on the two sides of a comparison
(close > open, open >= prev_high, t.open > p.high), or their difference with 0 or their ratio with 1
on one side (close - open > 0, close / open > 1). A comparison the other way round (close < open for
closed above the open) fails, as does the boundary kept where the word leaves it out (open >= high
for "above", 高于) or left out where the word keeps it (不低于, at least). Prices that are the same
stored column on both sides (today's close above yesterday's) tell no way apart by name and are not
read; nor are prices compared only through other quantities (undecided). A negation before the
phrase (没有, not) leaves it unread. A moving average is a side that averages (through aliases and
subquery outputs: avg(close) OVER w); a side that reads the bar before (lagInFrame, neighbor) is the
previous bar's, which a crossing compares the other way, and is not read for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    bar_prices,
    columns_of,
    enclosing_select,
    function_name,
    latest_aliases,
    number_value,
    strip,
)

_ZH_PRICES = {
    "收盘价": "close",
    "收盘": "close",
    "开盘价": "open",
    "开盘": "open",
    "最高价": "high",
    "最低价": "low",
}
_EN_PRICES = {
    "closing price": "close",
    "closed": "close",
    "closes": "close",
    "close": "close",
    "opening price": "open",
    "opened": "open",
    "opens": "open",
    "opening": "open",
    "open": "open",
    "intraday high": "high",
    "high": "high",
    "intraday low": "low",
    "low": "low",
}
_ZH_ABOVE, _ZH_BELOW = ("高于", "大于", "超过", "不低于"), ("低于", "小于", "不高于")
_EN_ABOVE = ("above", "higher than", "at or above", "at least", "not below")
_EN_BELOW = ("below", "lower than", "at or below", "at most", "not above")
# Words that keep the boundary in; the others above leave it out.
_INCLUSIVE = {
    "不低于",
    "不高于",
    "at or above",
    "at or below",
    "at least",
    "at most",
    "not below",
    "not above",
}


def _words(words: tuple[str, ...] | list[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


_ZH_PREVIOUS = r"(?P<prev>前一(?:个交易)?日的?|上一(?:个交易)?日的?|昨日的?|昨天的?)?"
_EN_PREVIOUS = (
    r"(?P<prev>(?:the\s+)?(?:previous|prior|preceding)(?:\s+trading)?\s+day'?s\s+|yesterday'?s\s+)?"
)
# 年线 / 半年线: the 250- and 120-day moving averages by their usual names
_MA_ZH = r"\d+\s*日均线|ma\s?\d+|半年线|年线"
_MA_EN = r"\d+[- ]day\s+(?:simple\s+)?(?:moving\s+average|ma)|ma\s?\d+"
_ZH = re.compile(
    rf"(?P<a>{_words(list(_ZH_PRICES))})(?:仍然|仍|依然|均|都)?(?P<rel>{_words([*_ZH_ABOVE, *_ZH_BELOW])})"
    rf"(?:当日|当天)?{_ZH_PREVIOUS}(?P<b>{_words(list(_ZH_PRICES))}|{_MA_ZH})"
)
# 跌破20日均线, 站上MA60: the close (named or not) against a moving average
_ZH_MA_MOVES = {
    "跌破": False,
    "跌穿": False,
    "跌落": False,
    "突破": True,
    "站上": True,
    "升破": True,
    "上破": True,
}
_ZH_MA = re.compile(rf"(?P<rel>{_words(list(_ZH_MA_MOVES))})\s*(?P<b>{_MA_ZH})")
# 站在年线上方, 位于20日均线之下: the close placed above or below a moving average
_ZH_MA_PLACES = {"上方": True, "之上": True, "下方": False, "之下": False}
_ZH_MA_PLACE = re.compile(
    rf"(?:站在|站于|位于|处于|运行在|运行于)\s*(?P<b>{_MA_ZH})\s*的?(?P<rel>{_words(list(_ZH_MA_PLACES))})"
)
_EN = re.compile(
    rf"\b(?P<a>{_words(list(_EN_PRICES))})\s+(?:still\s+|was\s+|is\s+|were\s+|are\s+)?"
    rf"(?P<rel>{_words([*_EN_ABOVE, *_EN_BELOW])})\s+(?:the\s+|their\s+|its\s+|today'?s\s+|the\s+day'?s\s+)?"
    rf"{_EN_PREVIOUS}(?P<b>{_words(list(_EN_PRICES))}|{_MA_EN})\b",
    re.IGNORECASE,
)
_EN_MA = re.compile(
    rf"\b(?:fell|fallen|falls|dropped|broke|breaks|broken|moved|crossed)\s+(?P<rel>below|above|under|over)\s+"
    rf"(?:the\s+|their\s+|its\s+)?(?P<b>{_MA_EN})\b",
    re.IGNORECASE,
)
_CANDLES = (
    (re.compile(r"阳线|收阳|\bbullish candle|\bgreen candle"), True),
    (re.compile(r"阴线|收阴|\bbearish candle|\bred candle"), False),
)
_NEGATED = re.compile(r"(?:没有|没|未|并非|不是|\b(?:not|never|no|didn't|did not)\b)[^，,。;；]{0,12}$")
_ORDER = (exp.GT, exp.GTE, exp.LT, exp.LTE)


_AVERAGES = {"avg", "avgif", "avgmerge"}
_PREVIOUS_BAR = {"laginframe", "leadinframe", "lag", "lead", "neighbor"}


def _origin(sql: Sql, name: str, select: exp.Select, depth: int = 4) -> exp.Expr | None:
    """What a column read from a subquery or CTE computes, through columns passed on unchanged."""
    for source in sql.sources(select) if depth else []:
        for projection in source.expressions:
            if projection.alias_or_name.lower() != name:
                continue
            inner = projection.this if isinstance(projection, exp.Alias) else projection
            if isinstance(inner, exp.Column) and inner.name.lower() == name:
                return _origin(sql, name, source, depth - 1) or inner
            return sql.resolve(inner, source)
    return None


def _averaged(sql: Sql, node: exp.Expr, select: exp.Select | None) -> set[str]:
    """{"ma"} for a side that averages, {"close"} for one that reads the close without averaging, the
    empty set for a side reading the bar before (or neither)."""
    resolved = sql.resolve(node, select)
    origins = [
        _origin(sql, column.name.lower(), select) if select is not None else None
        for column in resolved.find_all(exp.Column)
    ]
    trees = [resolved, *(origin for origin in origins if origin is not None)]
    names = {function_name(item) for tree in trees for item in tree.walk() if isinstance(item, exp.Func)}
    if names & _PREVIOUS_BAR:
        return set()
    if names & _AVERAGES or any(tree.find(exp.Avg) is not None for tree in trees):
        return {"ma"}
    return {"close"} & columns_of(resolved)


@dataclass(frozen=True)
class PriceOrderDetail:
    kind: ClassVar[Kind] = Kind.PRICE_ORDER
    upper: str  # the price that must be above
    lower: str
    strict: bool | None  # the boundary left out (above), kept (at least), or not read (a candle)

    def _relations(self, sql: Sql, latest: set[str] | None = None) -> list[tuple[bool, bool]]:
        """(upper kept above, boundary left out) for every comparison of the two prices (only those
        reading a row of the `latest` aliases when given)."""
        found = []
        pair = {self.upper, self.lower}
        for node in sql.tree.find_all(*_ORDER):
            if latest is not None and not {column.table for column in node.find_all(exp.Column)} & latest:
                continue
            greater_left = isinstance(node, exp.GT | exp.GTE)
            strict = isinstance(node, exp.GT | exp.LT)
            if "ma" in pair:
                select = enclosing_select(node)
                left, right = _averaged(sql, node.this, select), _averaged(sql, node.expression, select)
            else:
                left, right = bar_prices(node.this), bar_prices(node.expression)
            if len(left & pair) == 1 and len(right & pair) == 1 and left & pair != right & pair:
                found.append(((self.upper in left) == greater_left, strict))
                continue
            # close - open > 0, close / open > 1: both prices on the left, 0 or 1 on the right
            formula, bound = strip(node.this), number_value(node.expression)
            if "ma" in pair:
                continue
            if isinstance(formula, exp.Sub | exp.Div) and bound == (0 if isinstance(formula, exp.Sub) else 1):
                first, second = bar_prices(formula.this) & pair, bar_prices(formula.expression) & pair
                if len(first) == 1 and len(second) == 1 and first != second:
                    found.append(((self.upper in first) == greater_left, strict))
        return found

    def check(self, sql: Sql) -> Finding:
        relations = self._relations(sql)
        if not relations:
            return undecided(
                f"{self.upper} and {self.lower} are not compared with each other as the tree reads it"
            )
        ways = [strict for upper_above, strict in relations if upper_above]
        # two bars compared (a crossing: today's and the one before, rn = 1 and rn = 2): today's decides
        latest = latest_aliases(sql)
        today = self._relations(sql, latest) if ways and latest and len(ways) < len(relations) else []
        if today and not any(upper_above for upper_above, _ in today):
            return failed(
                Attribution.CONDITION,
                f"on the last bar (rn = 1) {self.upper} is kept below {self.lower}, the question says above",
            )
        if not ways:
            return failed(
                Attribution.CONDITION, f"{self.upper} is kept below {self.lower}, the question says above"
            )
        if self.strict is None or self.strict in ways:
            return passed(f"{self.upper} is compared above {self.lower}")
        said = "leaves the boundary out" if self.strict else "keeps the boundary"
        return failed(
            Attribution.CONDITION,
            f"{self.upper} is compared with {self.lower} {'including' if not ways[0] else 'excluding'} "
            f"equality; the question {said}",
        )


def _constraint(question: Question, start: int, end: int, detail: PriceOrderDetail) -> Constraint:
    span = question.span(start, end)
    sign = ">" if detail.strict is not False else ">="
    shown = f"{detail.upper} {sign} {detail.lower}"
    return Constraint(
        span, question.says(f"“{span.text}”：{shown}", f"“{span.text}”: {shown}"), question.lang, detail
    )


def extract(question: Question) -> list[Constraint]:
    found: list[Constraint] = []
    zh = question.lang.value == "zh"
    prices, above = (_ZH_PRICES, _ZH_ABOVE) if zh else (_EN_PRICES, _EN_ABOVE)
    for match in (_ZH if zh else _EN).finditer(question.text):
        if _NEGATED.search(question.text[: match.start()]):
            continue
        first, second = prices[match["a"].lower()], prices.get(match["b"].lower(), "ma")
        if match["prev"] and second == "close":
            second = "pre_close"
        if first == second:
            continue  # the same stored column on both sides: no way of telling them apart by name
        rel = match["rel"].lower()
        upper, lower = (first, second) if rel in above else (second, first)
        found.append(
            _constraint(
                question,
                match.start(),
                match.end(),
                PriceOrderDetail(upper, lower, None if "ma" in (upper, lower) else rel not in _INCLUSIVE),
            )
        )
    moves = [*_ZH_MA.finditer(question.text), *_ZH_MA_PLACE.finditer(question.text)] if zh else []
    for match in moves or _EN_MA.finditer(question.text):
        if _NEGATED.search(question.text[: match.start()]):
            continue
        if zh:
            rises = _ZH_MA_MOVES.get(match["rel"], _ZH_MA_PLACES.get(match["rel"], False))
        else:
            rises = match["rel"].lower() in {"above", "over"}
        upper, lower = ("close", "ma") if rises else ("ma", "close")
        detail = PriceOrderDetail(upper, lower, None)
        found.append(_constraint(question, match.start(), match.end(), detail))
    for pattern, bullish in _CANDLES:
        for match in pattern.finditer(question.text):
            if _NEGATED.search(question.text[: match.start()]):
                continue
            upper, lower = ("close", "open") if bullish else ("open", "close")
            found.append(
                _constraint(question, match.start(), match.end(), PriceOrderDetail(upper, lower, None))
            )
    return found
