"""A pattern's direction: the SQL must write the pattern the question names, not its opposite.

Market patterns come in pairs of opposite direction — 涨停/跌停 (limit-up/down), 新高/新低 (an N-day high
or low), 高开/低开 and gapped up/down, 金叉/死叉 and 多头/空头排列 (golden/death cross, bullish/bearish
alignment), more/less than N times. Swapping the word for its opposite keeps every column, window and
number of the SQL, so no other kind sees it. When the question names one side of a pair (and not the
other), each place of the tree that writes the pattern is read for its direction:

- limit: the limit price's factor on pre_close (1 + r, 1.1 up; 1 − r, 0.9 down) or a daily change
  kept beyond a limit's size (pct_chg >= 9.9 up, <= −9.9 down);
- extreme: max (up) or min (down) of a non-date column;
- open: today's open against the previous close, or today's low above the previous high (up) and
  today's high below the previous low (down) — the previous bar read through a lag or a table pinned
  to another day than the latest;
- average: two moving averages (avg over ROWS frames of different lengths; the close as the fastest
  line) compared on the same bar, the faster one above (up) or below (down) — a lagged value (the bar
  before a cross) is left out;
- multiple: a quantity compared with N times another (vol > 3 * avg_vol) or their ratio with N.

The SQL fails (`condition`) only when every place read goes the other way; any place going the asked
way passes; none read is undecidable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds.window import frame_rows
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
    close,
    columns_of,
    enclosing_select,
    function_name,
    is_date_column,
    number_value,
    strip,
    under_not,
)

_NUMBER = r"(\d+(?:\.\d+)?)"
# pattern -> (up cue, down cue); a question naming both sides of a pair is not read for it.
_CUES: dict[str, tuple[str, str]] = {
    "limit": (r"涨停|\blimit[- ]ups?\b", r"跌停|\blimit[- ]downs?\b"),
    "extreme": (
        r"新高|\bnew highs?\b|\b\d+[- ](?:day|week|month|year|session)s?[- ]highs?\b",
        r"新低|\bnew lows?\b|\b\d+[- ](?:day|week|month|year|session)s?[- ]lows?\b",
    ),
    "open": (
        r"高开|向上跳空|\bgap(?:ped|s)? up\b|\bopen(?:ed|s)? (?:higher|above)\b",
        r"低开|向下跳空|\bgap(?:ped|s)? down\b|\bopen(?:ed|s)? (?:lower|below)\b",
    ),
    "average": (
        r"金叉|多头排列|上穿|\bgolden cross|\bbullish(?:ly)? align|\bcross(?:ed|es|ing)? (?:above|over)\b",
        r"死叉|空头排列|下穿|\bdeath cross|\bbearish(?:ly)? align|\bcross(?:ed|es|ing)? (?:below|under)\b",
    ),
    "multiple": (
        rf"(?:超过|大于|高于|多于|至少|达到)\s*{_NUMBER}\s*倍|{_NUMBER}\s*倍以上"
        rf"|\b(?:more than|above|over|greater than|at least)\s*{_NUMBER}\s*times\b",
        rf"(?:不到|低于|小于|少于|不足)\s*{_NUMBER}\s*倍|{_NUMBER}\s*倍以下"
        rf"|\b(?:less than|below|under|fewer than)\s*{_NUMBER}\s*times\b",
    ),
}
_SAID = {
    "limit": ("涨停", "跌停", "limit-up", "limit-down"),
    "extreme": ("新高", "新低", "a new high", "a new low"),
    "open": ("高开", "低开", "up at the open", "down at the open"),
    "average": ("快线在上", "快线在下", "the faster average above", "the faster average below"),
    "multiple": ("超过倍数", "低于倍数", "more than the multiple", "less than the multiple"),
}
_GREATER: dict[type[exp.Expr], bool] = {exp.GT: True, exp.GTE: True, exp.LT: False, exp.LTE: False}
_NEIGHBOURS = {"laginframe", "leadinframe", "lag", "lead", "neighbor", "any", "anylast"}
# A daily change this large is a limit read as a threshold (the smallest limit is 5%, ST stocks).
_LIMIT_SIZE = 4.5
_CHANGES = {"pct_chg", "change"}


@dataclass(frozen=True)
class PolarityDetail:
    kind: ClassVar[Kind] = Kind.POLARITY
    pattern: str
    up: bool
    times: float = 0.0  # the multiple N of "more than N times"

    def check(self, sql: Sql) -> Finding:
        directions = _READERS[self.pattern](sql, self)
        said = _SAID[self.pattern]
        asked = 1 if self.up else -1
        if not directions:
            return undecided(f"no place of the SQL writes {said[2]} or {said[3]} in a way read here")
        if asked in directions:
            return passed(f"the SQL writes {said[2] if self.up else said[3]}")
        return failed(
            Attribution.CONDITION,
            f"the SQL writes {said[3] if self.up else said[2]}; the question asks for "
            f"{said[2] if self.up else said[3]}",
        )


def _comparisons(sql: Sql) -> list[tuple[exp.Expr, exp.Expr, exp.Binary]]:
    """(greater side, smaller side, node) of each strict or non-strict comparison not under NOT."""
    found = []
    for node in sql.nodes():
        greater = _GREATER.get(type(node))
        if greater is None or under_not(node):
            continue
        assert isinstance(node, exp.Binary)
        left, right = node.this, node.expression
        found.append((left, right, node) if greater else (right, left, node))
    return found


def _resolved(sql: Sql, side: exp.Expr, node: exp.Expr) -> exp.Expr:
    """The side through aliases; a bare name a middle SELECT passes on unaliased (SELECT m5 FROM (…))
    is the one expression the tree names so."""
    resolved = sql.resolve(side, enclosing_select(node))
    if isinstance(resolved, exp.Column):
        named = [
            alias.this
            for alias in sql.tree.find_all(exp.Alias)
            if alias.alias.lower() == resolved.name.lower() and not isinstance(alias.this, exp.Column)
        ]
        if len(named) == 1:
            return sql.resolve(named[0], enclosing_select(named[0]))
    return resolved


def _limits(sql: Sql, detail: PolarityDetail) -> set[int]:
    found: set[int] = set()
    for node in sql.tree.find_all(exp.Mul):
        for price, factor in ((node.this, node.expression), (node.expression, node.this)):
            if columns_of(price) == {"pre_close"} and "pre_close" not in columns_of(factor):
                sign = _factor_direction(factor)
                if sign is not None:
                    found.add(sign)
    for comparison in sql.comparisons:
        subject, number = strip(comparison.subject), comparison.number
        if not isinstance(subject, exp.Column) or subject.name.lower() not in _CHANGES or comparison.negated:
            continue
        # pct_chg >= 9.9 is a limit-up read as a change, <= -9.9 a limit-down
        kept_above = comparison.op in {">", ">="}
        if number is not None and abs(number) >= _LIMIT_SIZE and kept_above == (number > 0):
            found.add(1 if number > 0 else -1)
    return found


def _factor_direction(factor: exp.Expr) -> int | None:
    """+1 for a factor above 1 (1.1, 1 + r), −1 below it (0.9, 1 − r)."""
    value = number_value(factor)
    if value is not None:
        return None if close(value, 1.0) or value <= 0 else (1 if value > 1 else -1)
    factor = strip(factor)
    if isinstance(factor, exp.Add) and 1.0 in (number_value(factor.this), number_value(factor.expression)):
        return 1
    if isinstance(factor, exp.Sub) and number_value(factor.this) == 1.0:
        return -1
    return None


def _extremes(sql: Sql, detail: PolarityDetail) -> set[int]:
    found: set[int] = set()
    for node in sql.nodes():
        name = function_name(node) if isinstance(node, exp.Func) else ""
        if isinstance(node, exp.Max) or name in {"maxif", "arraymax"}:
            sign = 1
        elif isinstance(node, exp.Min) or name in {"minif", "arraymin"}:
            sign = -1
        else:
            continue
        columns = columns_of(node)
        if columns and not all(is_date_column(column) for column in columns):
            found.add(sign)
    return found


def _opens(sql: Sql, detail: PolarityDetail) -> set[int]:
    latest = _latest_tables(sql)
    found: set[int] = set()
    for greater, smaller, node in _comparisons(sql):
        high, low = _resolved(sql, greater, node), _resolved(sql, smaller, node)
        pair = (_prices(high), _prices(low))
        if pair == ({"open"}, {"pre_close"}):
            found.add(1)
        elif pair == ({"pre_close"}, {"open"}):
            found.add(-1)
        elif pair in (({"low"}, {"high"}), ({"high"}, {"low"})):
            today_greater = _today_side(high, low, latest)
            if today_greater is None:
                continue
            today_column = next(iter(pair[0] if today_greater else pair[1]))
            # today's low above the bar before's high: up; today's high below its low: down
            if today_column == "low" and today_greater:
                found.add(1)
            elif today_column == "high" and not today_greater:
                found.add(-1)
    return found


def _prices(node: exp.Expr) -> set[str]:
    """The columns a side reads, without a window's stock and day keys."""
    return {column for column in columns_of(node) if column != "ts_code" and not is_date_column(column)}


def _latest_tables(sql: Sql) -> set[str]:
    """Table aliases pinned to the latest day: t.trade_date = (SELECT max(trade_date) … with no WHERE)."""
    found = set()
    for node in sql.tree.find_all(exp.EQ):
        for column, other in ((node.this, node.expression), (node.expression, node.this)):
            query = strip(other)
            inner = query.this if isinstance(query, exp.Subquery) else None
            if not isinstance(column, exp.Column) or column.name.lower() != "trade_date" or not column.table:
                continue
            if isinstance(inner, exp.Select) and inner.args.get("where") is None:
                projected = [strip(e) for e in inner.expressions]
                if len(projected) == 1 and isinstance(projected[0], exp.Max):
                    found.add(column.table.lower())
    return found


def _today_side(greater: exp.Expr, smaller: exp.Expr, latest: set[str]) -> bool | None:
    """Whether today's bar is the greater side: the other reads a lagged value or a table not pinned
    to the latest day. None when that is not told."""
    lagged = [_reads_neighbour(side) for side in (greater, smaller)]
    if lagged[0] != lagged[1]:
        return lagged[1]
    tables = [{c.table.lower() for c in side.find_all(exp.Column) if c.table} for side in (greater, smaller)]
    pinned = [bool(t) and t <= latest for t in tables]
    if pinned[0] != pinned[1] and all(tables):
        return pinned[0]
    return None


def _reads_neighbour(node: exp.Expr) -> bool:
    return any(function_name(f) in _NEIGHBOURS for f in node.find_all(exp.Func))


def _averages(sql: Sql, detail: PolarityDetail) -> set[int]:
    found: set[int] = set()
    for greater, smaller, node in _comparisons(sql):
        high, low = _resolved(sql, greater, node), _resolved(sql, smaller, node)
        if _reads_neighbour(high) or _reads_neighbour(low):
            continue  # the bar before a cross
        fast, slow = _speed(high), _speed(low)
        if fast is not None and slow is not None and fast != slow:
            found.add(1 if fast < slow else -1)
    return found


def _speed(side: exp.Expr) -> int | None:
    """Bars a line averages: the length of its one ROWS-frame average, 1 for the close itself."""
    lengths = set()
    for window in side.find_all(exp.Window):
        spec = window.args.get("spec")
        rows = frame_rows(spec) if isinstance(spec, exp.WindowSpec) else None
        if isinstance(strip(window.this), exp.Avg) and rows is not None and rows[1]:
            lengths.add(rows[0])
        else:
            return None
    if len(lengths) == 1:
        return lengths.pop()
    if not lengths and isinstance(strip(side), exp.Column) and columns_of(side) == {"close"}:
        return 1
    return None


def _multiples(sql: Sql, detail: PolarityDetail) -> set[int]:
    found: set[int] = set()
    for greater, smaller, _ in _comparisons(sql):
        if _times(greater, detail.times) and number_value(smaller) is None:
            found.add(-1)
        elif _times(smaller, detail.times) and number_value(greater) is None:
            found.add(1)
    for comparison in sql.comparisons:
        number = comparison.number
        if not isinstance(strip(comparison.subject), exp.Div) or number is None or comparison.negated:
            continue
        if close(number, detail.times) and comparison.op != "=":
            found.add(1 if comparison.op in {">", ">="} else -1)
    return found


def _times(side: exp.Expr, times: float) -> bool:
    """Whether the side is N times a non-constant quantity (3 * avg_vol)."""
    side = strip(side)
    if not isinstance(side, exp.Mul):
        return False
    values = [number_value(side.this), number_value(side.expression)]
    return values.count(None) == 1 and any(v is not None and close(v, times) for v in values)


_READERS: dict[str, Callable[[Sql, PolarityDetail], set[int]]] = {
    "limit": _limits,
    "extreme": _extremes,
    "open": _opens,
    "average": _averages,
    "multiple": _multiples,
}


def extract(question: Question) -> list[Constraint]:
    found = []
    for pattern, (up_cue, down_cue) in _CUES.items():
        up = re.search(up_cue, question.text, re.IGNORECASE)
        down = re.search(down_cue, question.text, re.IGNORECASE)
        if (up is None) == (down is None):
            continue
        cue = up or down
        assert cue is not None
        times = next((float(g) for g in cue.groups() if g), 0.0)
        if pattern == "multiple" and times <= 1:
            continue
        span = question.span(cue.start(), cue.end())
        said = _SAID[pattern]
        text = question.says(
            f"“{span.text}”：方向为{said[0] if up else said[1]}，不是反向",
            f"“{span.text}”: {said[2] if up else said[3]}, not the opposite",
        )
        found.append(Constraint(span, text, question.lang, PolarityDetail(pattern, up is not None, times)))
    return found
