"""Windows of N days, bars, years or report periods: 近20个交易日, 60日均线, 连续三年, last 5 trading days.

The count must reach the SQL as N, N - 1 (ROWS BETWEEN N-1 PRECEDING) or N + 1 (the base day of a
gain over N days), in a LIMIT, a frame, an INTERVAL or a comparison such as count() = N. A SQL that
writes the window as literal days (trade_date > '2025-12-03', the calendar read at translation
time) is undecidable: counting those trading days needs the calendar.

A window of trading days or bars (近20个交易日, 60日均线, last 5 trading days, 250-day high) written
as calendar days fails: day arithmetic on a date (max(trade_date) - 20, - INTERVAL 20 DAY,
subtractDays) or a RANGE frame over the date (RANGE BETWEEN 59 PRECEDING) by about N counts N
calendar days, some 30% fewer bars. 近20天 / last 20 days may mean either and is left to the count.

A distance below an N-day high (more than 30% below their 250-day closing high, 20% off the 60-day
high) is a drawdown over the window (benchmarks/language/README.md): the stock's bars in it, no full
window needed. A SQL that keeps only stocks with N bars (count() = N, HAVING count() >= N) leaves the
newer listings out (`time_scope`).

A window of calendar weeks (past two weeks, 近两周; not 52 weeks) holds 7N calendar days or 5N
trading days: either count passes, and so do literal days whose range holds 7N days (± 2: the bounds
may fall on a weekend).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from datetime import date
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
from backend.domain.pipeline.validate.checklist.question import COUNT, Question, parse_count
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    date_value,
    enclosing_select,
    function_name,
    is_count,
    is_date_column,
    number_value,
    strip,
)

_UNIT_ZH = r"个?交易日|天|日|周|个月|月|年|个报告期|报告期|期"  # not 季度: 前三季度 is a report period
_UNIT_EN = (
    r"(?:trading )?(?:days?|sessions?)|years?|weeks?|months?|quarters?"
    r"|annual reports?|report periods?|reports?"
)
# Each pattern with whether its days are bars whatever the unit says (60日均线, a 250-day high).
_PATTERNS = (
    (re.compile(rf"(?:近|最近|过去|前|连续)\s*(?P<n>{COUNT})\s*(?P<unit>{_UNIT_ZH})"), False),
    (re.compile(r"(?P<n>\d+)\s*(?P<unit>日)(?:均线|线|均量|(?:收盘)?新高|(?:收盘)?新低)"), True),
    (
        re.compile(rf"\b(?:last|past|previous|prior|recent)\s+(?P<n>{COUNT})\s+(?P<unit>{_UNIT_EN})\b"),
        False,
    ),
    (re.compile(rf"\b(?P<n>{COUNT})\s+consecutive\s+(?P<unit>{_UNIT_EN})\b"), False),
    (re.compile(rf"\b(?P<n>{COUNT})\s+(?P<unit>(?:trading )?days|years|sessions)\s+in\s+a\s+row\b"), False),
    (
        re.compile(
            r"\b(?P<n>\d+)[- ](?P<unit>day)\s+"
            r"(?:moving averages?|mas?|(?:closing |close )?(?:high|low)|averages?)\b"
        ),
        True,
    ),
    # MA5, MA 20: a moving average of N bars (the unit is the bar's day)
    (re.compile(r"(?<![a-z])ma\s?(?P<n>\d+)(?![\d.])(?P<unit>)"), True),
)
# 52 weeks (52周新高, a 52-week low, the last 52 weeks) is a year of a stock's bars, about 250 of them;
# 52 × 5 = 260 counts every weekday, holidays included, as a bar.
_FIFTY_TWO_WEEKS = re.compile(r"(?<![\d.])(?P<n>52)(?:\s*个?(?:周|星期)|[- ]weeks?\b|\s+weeks\b)")
_YEAR_OF_BARS = 250
_YEAR_OF_WEEKDAYS = 260
_MOVING = re.compile(r"均线|(?<![a-z])ma|moving average")
_EXTREME = re.compile(r"新高|新低|\b(?:high|low)\b")
# A distance below the high said right before it (30% below their 250-day high, 20% off the 60-day high).
_BELOW_THE_HIGH = re.compile(r"\b(?:below|off|under|down from)\s+(?:their|its|the)?\s*$")
# Earlier lengths listed before a window of bars share its reading: 5日、10日和20日均线, the 20-day and
# 60-day moving averages, the 20- and 60-day averages, 5、10、20日均线.
_LISTED_BEFORE = re.compile(
    r"(?:(?<![\d.])\d+\s*(?:日|[- ]day|-)?\s*(?:、|,|和|与|及|以及|\band\b|&|\bor\b|或)\s*)+$"
)
_LISTED_COUNT = re.compile(r"(?<![\d.])\d+(?:\s*日|[- ]day)?")
# An average taken right after the window (过去5日平均成交量, 20日均量, the past 5 days' average): an
# average over N bars, whose frame, when it is one, holds N rows.
_AVERAGED_AFTER = re.compile(r"\s*(?:的\s*)?(?:平均|均量|均价|均值)|'?s?\s+average\b")
# Today's figure against the average of the days before it (今天成交量达到过去5日平均…).
_TODAY_NAMED = re.compile(r"今天|今日|当日|\btoday\b")
_PAST = re.compile(r"过去|past")
_TRADING_UNIT = re.compile(r"交易日|trading|session")
_PREVIOUS = re.compile(r"前|previous|prior")
# A rise on each period over the one before it (每天都比前一天高, each year higher than the year before).
_SUCCESSIVE = re.compile(
    r"比前一|较前一|高于前一|逐日|逐年|逐期|递增|\b(?:than the (?:day|year|period|quarter|session) before"
    r"|than the previous|each (?:day|year)'?s? \w+ (?:higher|greater|larger) than)\b"
    r"|\b(?:rising|increasing|growing|increased|grew)\b.{0,60}\b(?:each|every) of the (?:last|past)\b"
    r"|\b(?:each|every) of the (?:last|past)\b.{0,60}\b(?:increased|grew|rising|higher)\b"
)
# A run of changes (连续三年增长, rise for 3 days in a row, 5 consecutive days of decline): N changes
# over the period before each, like _SUCCESSIVE, when a change word stands next to the run.
_RUN = re.compile(r"连续|consecutive|in a row|straight")
_CHANGE_NEAR = re.compile(
    r"增长|上涨|放大|增加|提高|上升|走高|下跌|减少|下降|缩小|走低|萎缩"
    r"|\b(?:rise|rises|rose|risen|rising|grow|grows|grew|grown|growing|growth|increase|increased|increases"
    r"|increasing|fall|falls|fell|fallen|falling|decline|declined|declining|decrease|decreased|drop|dropped)\b"
)
_CHANGE_REACH = 16
# Stored changes over the period before: N of them need no extra period.
_STORED_CHANGES = {"pct_chg", "change", "pre_close", "netprofit_yoy", "or_yoy", "tr_yoy", "q_sales_yoy"}
_NEIGHBOUR_FUNCTIONS = {
    "laginframe",
    "leadinframe",
    "lag",
    "lead",
    "neighbor",
    "arraydifference",
    "runningdifference",
}
# Of those, the ones that may read a row before the window's first (an array's differences stay
# within the rows gathered into it).
_ROW_NEIGHBOURS = _NEIGHBOUR_FUNCTIONS - {"arraydifference"}
_DAY_SHIFTS = {"subtractdays", "adddays"}
# Calendar weeks (not 52 weeks, a year of bars); a range of them may start or end on a weekend.
_WEEKS = re.compile(r"周|星期|weeks?", re.IGNORECASE)
_WEEKEND = 2
_ORDER_OPS = {">", ">=", "<", "<="}
_TODAY = {"today", "now", "currentdate"}


@dataclass(frozen=True)
class WindowDetail:
    kind: ClassVar[Kind] = Kind.WINDOW
    count: int
    unit: str
    bars: bool = False  # trading days or bars, not calendar days
    previous: bool = False  # the N days before the day asked (前5日均量, previous 5 days), not up to it
    successive: bool = False  # a rise on each of the N over the one before: N + 1 periods are read
    moving: bool = False  # a moving average (MA20, 20日均线): its frame, when it is one, holds N rows
    weeks: bool = False  # 52 weeks: a year of bars (~250), which other counts may also write
    extreme: bool = False  # an N-day high or low (创20日新高, a 120-day low): its max/min frame holds ~N rows
    drawdown: bool = False  # a distance below an N-day high: the bars in the window, no full window needed

    def check(self, sql: Sql) -> Finding:
        if self.weeks:
            return self._year_of_bars(sql)
        if self.drawdown and _full_window_required(sql, self.count):
            return failed(
                Attribution.TIME_SCOPE,
                f"only stocks with {self.count} bars are kept; a drawdown from the {self.count}-day high "
                f"reads the bars a stock has in the window",
            )
        framed = self._frame(sql) if self.bars or self.moving else None
        if framed is not None:
            return framed
        if (
            self.successive
            and not _STORED_CHANGES & columns_of(sql.tree)
            and not sql.has_number((self.count + 1.0,))
        ):
            if sql.functions & _ROW_NEIGHBOURS:
                return undecided("the period before the first may be read through a neighbouring row")
            return failed(
                Attribution.TIME_SCOPE,
                f"{self.count} rises over the period before need {self.count + 1} periods; "
                f"the SQL never reads {self.count + 1}",
            )
        near = {self.count - 1, self.count, self.count + 1}
        calendar = sorted(near & set(_calendar_days(sql))) if self.bars else []
        if calendar:
            return failed(
                Attribution.TIME_SCOPE,
                f"the window counts {calendar[0]} calendar days; the question counts {self.count} "
                f"trading days",
            )
        bars_as_days = _bar_rows_as_days(sql, near)
        if bars_as_days is not None:
            return failed(
                Attribution.TIME_SCOPE,
                f"the window's days are the latest {bars_as_days} rows of a table of bars, not DISTINCT "
                f"days: {bars_as_days} rows of one day, not {self.count} days",
            )
        listed = _listed_rows(sql)
        if listed in {self.count - 1, self.count + 1} and not sql.has_number((float(self.count),)):
            return failed(
                Attribution.TOP_K,
                f"the answer lists {listed} rows (LIMIT {listed}); the question's window is {self.count} "
                f"{self.unit}",
            )
        if near & {round(n) for n in _counts(sql) if n == round(n)}:
            return passed(f"a window of {self.count} {self.unit} appears in the SQL")
        if _WEEKS.fullmatch(self.unit):
            weeks = self._weeks_as_days(sql)
            if weeks is not None:
                return weeks
        if _days_written_out(sql):
            return undecided("the window is written as days; counting its trading days needs the calendar")
        return failed(Attribution.TIME_SCOPE, f"no window of {self.count} {self.unit} appears in the SQL")

    def _weeks_as_days(self, sql: Sql) -> Finding | None:
        """N weeks written as their 7N calendar or 5N trading days, or as literal days 7N apart."""
        days, bars = 7 * self.count, 5 * self.count
        if sql.has_number(tuple(float(n) for n in (days - 1, days, days + 1, bars - 1, bars, bars + 1))):
            return passed(f"{self.count} {self.unit} appear in the SQL as {days} days or {bars} trading days")
        span = _literal_span(sql)
        if span is not None and abs(span - days) <= _WEEKEND:
            return passed(f"the SQL's literal days hold {span} calendar days, {self.count} {self.unit}")
        if span is not None and span < days - _WEEKEND:  # too few even for 5N trading days
            return failed(
                Attribution.TIME_SCOPE,
                f"the SQL's literal days hold {span} calendar days, fewer than {self.count} {self.unit}",
            )
        return None

    def _year_of_bars(self, sql: Sql) -> Finding:
        """52 weeks as bars: about 250 of them pass; 260 (52 × 5 weekdays) counts holidays as bars and
        fails; anything else (a calendar year, 252) is not read."""
        near = (_YEAR_OF_BARS - 1.0, float(_YEAR_OF_BARS), _YEAR_OF_BARS + 1.0)
        if sql.has_number(near):
            return passed(f"a window of {_YEAR_OF_BARS} bars appears in the SQL")
        weekdays = (_YEAR_OF_WEEKDAYS - 1.0, float(_YEAR_OF_WEEKDAYS), _YEAR_OF_WEEKDAYS + 1.0)
        if sql.has_number(weekdays):
            return failed(
                Attribution.TIME_SCOPE,
                f"the window holds {_YEAR_OF_WEEKDAYS} bars, 52 weeks of weekdays with holidays counted; "
                f"a stock has about {_YEAR_OF_BARS} bars in 52 weeks",
            )
        return undecided("how many bars the SQL's 52 weeks hold is not read")

    def _frame(self, sql: Sql) -> Finding | None:
        """A window of bars read as a ROWS frame: N rows, before the current one when the question
        asks for the days before it. None when the SQL has no such frame or it fits."""
        frames = _rows_frames(sql)
        fitting = [frame for frame in frames if frame[0] == self.count]
        averages = _average_frames(sql) if self.moving else []
        if averages and self.count not in [rows for rows, _ in averages]:
            return failed(
                Attribution.TIME_SCOPE,
                f"the moving averages are taken over {', '.join(sorted({str(r) for r, _ in averages}))} "
                f"rows; the question's average is over {self.count} bars",
            )
        if not self.previous and averages and not any(now for rows, now in averages if rows == self.count):
            # an N-day moving average is the N bars up to the day itself, not the N before it
            return failed(
                Attribution.TIME_SCOPE,
                f"every {self.count}-row average ends before the current row: the day itself is left out "
                f"of its {self.count}-day moving average",
            )
        short = _short_history(sql, self.count) if self.moving and not self.previous else None
        if short is not None:
            return short
        extremes = _extreme_frames(sql) if self.extreme else []
        if extremes and not any(abs(rows - self.count) <= 1 for rows in extremes):
            # the N days before the day (N - 1 or N rows) or up to it (N rows); another length is another high
            return failed(
                Attribution.TIME_SCOPE,
                f"the highest/lowest is taken over {', '.join(str(r) for r in sorted(set(extremes)))} rows; "
                f"the question's is over {self.count} bars",
            )
        if not fitting:
            off = sorted({rows for rows, _ in frames if abs(rows - self.count) == 1})
            if off:
                return failed(
                    Attribution.TIME_SCOPE,
                    f"the window frame holds {off[0]} rows; the question's window is {self.count} bars",
                )
            return None
        if self.previous and all(ends_now for _, ends_now in fitting):
            return failed(
                Attribution.TIME_SCOPE,
                f"the {self.count}-row frame ends at the current row: it takes in the day itself, "
                f"the question asks for the {self.count} days before it",
            )
        return None


def _counts(sql: Sql) -> list[float]:
    """The SQL's constants but the digits a rounding keeps (round(avg(close) OVER w, 6)): those count
    no days."""
    digits = Counter(
        value
        for node in sql.nodes()
        if isinstance(node, exp.Round | exp.Floor | exp.Ceil | exp.Trunc)
        and isinstance(node.args.get("decimals"), exp.Literal)
        and (value := number_value(node.args["decimals"])) is not None
    )
    counts = []
    for value in sql.numbers:
        if digits[value] > 0:
            digits[value] -= 1
        else:
            counts.append(value)
    return counts


def _full_window_required(sql: Sql, count: int) -> bool:
    """A count of rows kept at N (count() = N, >= N, > N - 1): only stocks with a full window."""
    return any(
        is_count(comparison.subject)
        and not comparison.negated
        and (
            (comparison.op in {"=", ">="} and comparison.number == count)
            or (comparison.op == ">" and comparison.number == count - 1)
        )
        for comparison in sql.comparisons
    )


def frame_rows(spec: exp.Expr) -> tuple[int, bool] | None:
    """(rows, ends at the current row) of a ROWS frame bounded by counts of preceding rows."""
    if str(spec.args.get("kind", "")).upper() != "ROWS" or spec.args.get("start_side") != "PRECEDING":
        return None
    first = number_value(spec.args["start"]) if isinstance(spec.args.get("start"), exp.Expr) else None
    end, end_side = spec.args.get("end"), spec.args.get("end_side")
    if end is None or end == "CURRENT ROW":
        last: float | None = 0
    elif isinstance(end, exp.Expr) and end_side == "PRECEDING":
        last = -(number_value(end) or 0)
    else:
        last = None
    if first is None or last is None:
        return None
    return int(last + first + 1), last == 0


def _short_history(sql: Sql, count: int) -> Finding | None:
    """An N-row moving average computed over rows cut to the latest M days (trade_date IN (SELECT
    DISTINCT trade_date … ORDER BY trade_date DESC LIMIT M)) while the answer shows its latest L rows
    (ORDER BY trade_date DESC LIMIT L) with M < L + N − 1: the earliest shown days average fewer than
    N bars. The WHERE is applied before the window, so their history is cut off."""
    shown = _latest_rows_shown(sql)
    if shown is None:
        return None
    for window in sql.tree.find_all(exp.Window):
        spec = sql._window_spec(window).args.get("spec")
        rows = frame_rows(spec) if isinstance(spec, exp.WindowSpec) else None
        select = enclosing_select(window)
        if not isinstance(strip(window.this), exp.Avg) or rows != (count, True) or select is None:
            continue
        kept = _latest_days_kept(select)
        if kept is not None and kept < shown + count - 1:
            return failed(
                Attribution.TIME_SCOPE,
                f"the {count}-day average is computed over the latest {kept} days only and {shown} are "
                f"shown: the earliest shown days average fewer than {count} bars",
            )
    return None


def _latest_rows_shown(sql: Sql) -> int | None:
    """L of the answer's ORDER BY trade_date DESC LIMIT L, or of its WHERE trade_date IN (the latest L
    days)."""
    tree = sql.tree
    order, limit = tree.args.get("order"), tree.args.get("limit")
    if not isinstance(order, exp.Order) or not isinstance(limit, exp.Limit) or limit.expression is None:
        return _latest_days_kept(tree) if isinstance(tree, exp.Select) else None
    first = order.expressions[0] if order.expressions else None
    if not isinstance(first, exp.Ordered) or not first.args.get("desc"):
        return None
    if columns_of(first) != {"trade_date"}:
        return None
    count = number_value(limit.expression)
    return None if count is None else int(count)


def _latest_days_kept(select: exp.Select) -> int | None:
    """M when the SELECT's WHERE keeps trade_date IN (a subquery of the latest M days)."""
    where = select.args.get("where")
    for node in where.find_all(exp.In) if isinstance(where, exp.Where) else []:
        query = node.args.get("query")
        inner = query.this if isinstance(query, exp.Subquery) else None
        if columns_of(node.this) != {"trade_date"} or not isinstance(inner, exp.Select):
            continue
        order, limit = inner.args.get("order"), inner.args.get("limit")
        first = order.expressions[0] if isinstance(order, exp.Order) and order.expressions else None
        latest = isinstance(first, exp.Ordered) and bool(first.args.get("desc"))
        if latest and isinstance(limit, exp.Limit) and limit.expression is not None:
            count = number_value(limit.expression)
            return None if count is None else int(count)
    return None


def _rows_frames(sql: Sql) -> list[tuple[int, bool]]:
    """(rows, ends at the current row) of each ROWS frame bounded by counts of preceding rows — but
    not a frame of the previous bar and the current one that only neighbour reads and counts use
    (lagInFrame(vol) OVER (… ROWS 1 PRECEDING), count() = 2): it steps one bar back, it is no window."""
    stepping = _previous_bar_frames(sql)
    return [
        rows
        for spec in sql.tree.find_all(exp.WindowSpec)
        if (rows := frame_rows(spec)) is not None and id(spec) not in stepping
    ]


def _previous_bar_frames(sql: Sql) -> set[int]:
    """ids of the two-row frames ending at the current row whose every function reads a neighbour
    row or counts the frame's rows."""
    uses: dict[int, list[bool]] = {}
    for window in sql.tree.find_all(exp.Window):
        function = strip(window.this)
        if isinstance(function, exp.Identifier):
            continue  # WINDOW p AS (…): the definition, not a use
        spec = sql._window_spec(window).args.get("spec")
        if isinstance(spec, exp.WindowSpec) and frame_rows(spec) == (2, True):
            stepping = isinstance(function, exp.Count) or function_name(function) in _ROW_NEIGHBOURS
            uses.setdefault(id(spec), []).append(stepping)
    return {spec for spec, steps in uses.items() if all(steps)}


def _average_frames(sql: Sql) -> list[tuple[int, bool]]:
    """(rows, ends at the current row) of each ROWS frame an average is taken over (avg(close) OVER w,
    w named or inline)."""
    found = []
    for window in sql.tree.find_all(exp.Window):
        if not isinstance(strip(window.this), exp.Avg):
            continue
        spec = sql._window_spec(window).args.get("spec")
        rows = frame_rows(spec) if isinstance(spec, exp.WindowSpec) else None
        if rows is not None:
            found.append(rows)
    return found


def _extreme_frames(sql: Sql) -> list[int]:
    """Rows of each ROWS frame a max or min is taken over (max(close) OVER w, w named or inline)."""
    found = []
    for window in sql.tree.find_all(exp.Window):
        if not isinstance(strip(window.this), exp.Max | exp.Min):
            continue
        spec = sql._window_spec(window).args.get("spec")
        rows = frame_rows(spec) if isinstance(spec, exp.WindowSpec) else None
        if rows is not None:
            found.append(rows[0])
    return found


def _listed_rows(sql: Sql) -> int | None:
    """The LIMIT of an answer that lists rows as they are stored (no aggregate, no window, no
    subquery): each row is one period of the window, so the LIMIT counts them."""
    tree = sql.tree
    limit = tree.args.get("limit") if isinstance(tree, exp.Select) else None
    if not isinstance(tree, exp.Select) or not isinstance(limit, exp.Limit) or limit.expression is None:
        return None
    if any(tree.find(kind) is not None for kind in (exp.AggFunc, exp.Window, exp.Subquery, exp.Join)):
        return None
    if tree.args.get("with_") is not None or limit.expressions:
        return None
    count = number_value(limit.expression)
    return None if count is None else int(count)


# Tables holding a row per stock and day: their latest N rows are one day's bars, not N days.
_BAR_TABLES = {"daily", "daily_basic", "adj_factor"}


def _bar_rows_as_days(sql: Sql, near: set[int]) -> int | None:
    """N of a `SELECT trade_date FROM <bars> … ORDER BY trade_date DESC LIMIT N` with no DISTINCT,
    GROUP BY or LIMIT … BY, reading every stock (no ts_code = …): the days of a window taken as rows."""
    for select in sql.selects:
        limit, source = select.args.get("limit"), select.args.get("from_")
        if not isinstance(limit, exp.Limit) or limit.expressions or not isinstance(source, exp.From):
            continue
        count = number_value(limit.expression) if limit.expression is not None else None
        table = source.this
        if count is None or int(count) not in near or not isinstance(table, exp.Table):
            continue
        if table.name.lower() not in _BAR_TABLES or select.args.get("joins"):
            continue
        outputs = [strip(e.this if isinstance(e, exp.Alias) else e) for e in select.expressions]
        if len(outputs) != 1 or not (isinstance(outputs[0], exp.Column) and outputs[0].name == "trade_date"):
            continue
        if select.args.get("distinct") is not None or select.args.get("group") is not None:
            continue
        where = select.args.get("where")
        if where is not None and "ts_code" in columns_of(where):
            continue
        return int(count)
    return None


def _days_written_out(sql: Sql) -> bool:
    """A date range bounded by literal days, or a list of them (IN ('2025-12-03', '2025-12-31'))."""
    ranged = any(c.day is not None and c.op in {">", ">=", "<", "<="} for c in sql.comparisons)
    listed = any(
        sum(date_value(v) is not None for v in node.expressions) >= 2 for node in sql.tree.find_all(exp.In)
    )
    return ranged or listed


def _literal_span(sql: Sql) -> int | None:
    """The calendar days a range of literal days holds (trade_date > '2025-12-17' AND trade_date <=
    '2025-12-31': 14), when every such range of the SQL holds the same number; None otherwise."""
    bounds: dict[tuple[int, str], list[tuple[str, date]]] = {}
    for comparison in sql.comparisons:
        if comparison.day is not None and comparison.op in _ORDER_OPS and not comparison.negated:
            key = (id(comparison.select), comparison.subject.sql())
            bounds.setdefault(key, []).append((comparison.op, comparison.day))
    spans: set[int] = set()
    for found in bounds.values():
        lows = [(op, day) for op, day in found if op in {">", ">="}]
        highs = [(op, day) for op, day in found if op in {"<", "<="}]
        if len(lows) != 1 or len(highs) != 1:
            return None
        (low_op, low), (high_op, high) = lows[0], highs[0]
        spans.add((high - low).days + (low_op == ">=") + (high_op == "<=") - 1)
    return spans.pop() if len(spans) == 1 else None


def _is_day(node: exp.Expr, days: frozenset[str] = frozenset()) -> bool:
    """A day: a date column, a date literal, today(), a subquery's max/min of a date column, or a
    name `days` holds (WITH (SELECT max(trade_date) …) AS L)."""
    node = strip(node)
    if isinstance(node, exp.Column):
        return is_date_column(node.name.lower()) or (not node.table and node.name.lower() in days)
    if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select):
        projections = node.this.expressions
        return len(projections) == 1 and _is_day(projections[0])
    if isinstance(node, exp.Max | exp.Min | exp.Cast | exp.Alias):
        return _is_day(node.this)
    if function_name(node) in _TODAY or isinstance(node, exp.CurrentDate):
        return True
    if function_name(node) == "todate" and node.expressions:
        return _is_day(node.expressions[0])
    return date_value(node) is not None


def _scalar_days(sql: Sql) -> frozenset[str]:
    """Names of the query's scalar WITH expressions that are a day (WITH (SELECT max(trade_date)
    FROM market.daily) AS L): L - 20 is then day arithmetic."""
    return frozenset(
        cte.alias_or_name.lower()
        for cte in sql.tree.find_all(exp.CTE)
        if cte.args.get("scalar") and _is_day(cte.this)
    )


def _day_count(node: exp.Expr) -> float | None:
    """The days of a number or an interval of days (20, INTERVAL 20 DAY, toIntervalDay(20))."""
    node = strip(node)
    if isinstance(node, exp.Interval):
        unit = node.args.get("unit")
        if unit is None or unit.name.upper() not in {"DAY", "DAYS"}:
            return None
        amount = node.this
        return float(amount.name) if isinstance(amount, exp.Literal) and amount.name.isdigit() else None
    if function_name(node) == "tointervalday" and node.expressions:
        return number_value(node.expressions[0])
    return number_value(node)


def _range_frame_days(spec: exp.WindowSpec) -> float | None:
    """n of RANGE BETWEEN n PRECEDING in a window ordered by a date: n calendar days back."""
    window = spec.parent
    order = window.args.get("order") if isinstance(window, exp.Window) else None
    keys = order.expressions if isinstance(order, exp.Order) else []
    start = spec.args.get("start")
    if str(spec.args.get("kind", "")).upper() != "RANGE" or not keys or not _is_day(keys[0].this):
        return None
    return number_value(start) if isinstance(start, exp.Expr) else None


def _calendar_days(sql: Sql) -> list[int]:
    """How many calendar days each piece of day arithmetic or RANGE frame over a date moves by."""
    found: list[float | None] = []
    days = _scalar_days(sql)
    for node in sql.nodes():
        name = function_name(node)
        if isinstance(node, exp.Sub | exp.Add) and _is_day(node.this, days):
            found.append(_day_count(node.expression))
        elif name in _DAY_SHIFTS and len(node.expressions) == 2 and _is_day(node.expressions[0], days):
            found.append(number_value(node.expressions[1]))
        elif isinstance(node, exp.WindowSpec):
            found.append(_range_frame_days(node))
    return [abs(round(days)) for days in found if days is not None]


def extract(question: Question) -> list[Constraint]:
    constraints: list[Constraint] = []
    taken: set[int] = set()
    for match in _FIFTY_TWO_WEEKS.finditer(question.text):
        taken.add(match.start("n"))
        span = question.span(match.start(), match.end())
        zh = f"时间窗口 {span.text}（约{_YEAR_OF_BARS}根K线）"
        text = question.says(zh, f"a window of ~{_YEAR_OF_BARS} bars: “{span.text}”")
        detail = WindowDetail(_YEAR_OF_BARS, question.says("根K线", "bars"), bars=True, weeks=True)
        constraints.append(Constraint(span, text, question.lang, detail))
    for pattern, bars in _PATTERNS:
        for match in pattern.finditer(question.text):
            count = parse_count(match["n"])
            if count is None or count < 2 or match.start("n") in taken:
                continue
            taken.add(match.start("n"))
            span = question.span(match.start(), match.end())
            text = question.says(f"时间窗口 {span.text}（{count}）", f"a window of {count}: “{span.text}”")
            unit = match["unit"] or question.says("日", "day")
            averaged = _AVERAGED_AFTER.match(question.text, match.end()) is not None
            # 过去5日平均 compared with today's figure: the five days before today
            previous = _PREVIOUS.match(match.group()) is not None or (
                averaged
                and _PAST.match(match.group()) is not None
                and _TODAY_NAMED.search(question.text[: match.start()]) is not None
            )
            successive = _SUCCESSIVE.search(question.text) is not None or _changes_in_a_run(
                question, match.start(), match.end()
            )
            moving = _MOVING.search(match.group()) is not None or averaged
            trading = bars or bool(_TRADING_UNIT.search(unit))
            extreme = bars and _EXTREME.search(match.group()) is not None
            drawdown = extreme and _BELOW_THE_HIGH.search(question.text[: match.start()]) is not None
            detail = WindowDetail(
                count, unit, trading, previous, successive, moving, extreme=extreme, drawdown=drawdown
            )
            constraints.append(Constraint(span, text, question.lang, detail))
            if bars:
                constraints.extend(_listed_before(question, match.start(), detail, taken))
    return sorted(constraints, key=lambda constraint: constraint.span.start)


def _changes_in_a_run(question: Question, start: int, end: int) -> bool:
    """A run (连续, in a row, consecutive) with a change word next to it, in the same clause."""
    if _RUN.search(question.text, start, end) is None:
        return False
    after = re.split(r"[，,。;；]", question.text[end : end + _CHANGE_REACH])[0]
    before = re.split(r"[，,。;；]", question.text[max(0, start - _CHANGE_REACH) : start])[-1]
    return bool(_CHANGE_NEAR.search(after) or _CHANGE_NEAR.search(before))


def _listed_before(question: Question, start: int, last: WindowDetail, taken: set[int]) -> list[Constraint]:
    """The windows listed before a window of bars (5日、10日和20日均线): each its own count, read the
    way the last one is."""
    listed = _LISTED_BEFORE.search(question.text, 0, start)
    if listed is None:
        return []
    found = []
    for number in _LISTED_COUNT.finditer(question.text, listed.start(), listed.end()):
        count = int(re.sub(r"\D.*", "", number.group()))
        if count < 2 or number.start() in taken:
            continue
        taken.add(number.start())
        span = question.span(number.start(), number.end())
        text = question.says(f"时间窗口 {span.text}（{count}）", f"a window of {count}: “{span.text}”")
        found.append(Constraint(span, text, question.lang, replace(last, count=count)))
    return found
