"""Reference SQL for the composition matrix, built from the canonical schema and the reading
conventions of benchmarks/language/README.md — never from the language engine's compiler.

Every question of the matrix is a per-stock value (a measure read on a day or over a window), then
one composing operator on top of it (a filter, an aggregate per group, a group filter, a ranked
subset, a comparison with the group's average, a count per day, a count of days). Each builder
here writes that operator over a `vals(ts_code, v)` CTE of the per-stock values.

Conventions used (README, "Reading conventions used by the gold SQL"):
- latest day = max(trade_date) of market.daily; a named day is that day;
- last N trading days = the N most recent distinct trade dates; a named month, a range A..B or
  "since A" = the trading days inside it; the base of a gain is the trading day before the first
  day (the (N+1)-th most recent for the last N days);
- gain = close at the window's end ÷ close at its base − 1 (in %), the stock needs both bars; over a
  calendar period (a month, a week, since a day) the base is the stock's last close on or before the
  base day in that day's year and the end its last close in the period (a bar on the latest day when
  the period runs to it);
- flows over a window add up (成交额), rates are averaged (换手率) when the question says 平均/average;
- derived values are rounded before a threshold comparison (9 decimals for gains, 6 for averages).
"""

from __future__ import annotations

from dataclasses import dataclass

DB = "market"
LATEST = f"(SELECT max(trade_date) FROM {DB}.daily)"
GROUP_COLUMNS = {
    "exchange": "s.exchange",
    "market": "s.market",
    "industry": "s.industry",
    "area": "s.area",
    "list_year": "toYear(s.list_date)",
}


@dataclass(frozen=True)
class Span:
    """A time scope: one day (`day`), or a window of trading days with the base day of its gain."""

    day: str | None = None  # SQL for a single day
    period: str | None = None  # ISO end_date of a report period (report figures)
    days: str | None = None  # SQL condition on trade_date for the days of a window
    base: str | None = None  # SQL for the base day of a gain over the window
    end: str | None = None  # SQL for the last day of the window
    carried: bool = False  # a calendar period: each stock's last close before it is the base


def report_period(iso: str) -> Span:
    return Span(period=iso)


def latest_day() -> Span:
    return Span(day=LATEST)


def named_day(iso: str) -> Span:
    return Span(day=f"toDate('{iso}')")


def last_trading_days(n: int) -> Span:
    recent = f"SELECT DISTINCT trade_date FROM {DB}.daily ORDER BY trade_date DESC"
    return Span(
        days=f"trade_date IN ({recent} LIMIT {n})",
        base=f"(SELECT min(trade_date) FROM ({recent} LIMIT {n + 1}))",
        end=LATEST,
    )


def between_days(first: str, last: str | None) -> Span:
    """Trading days from `first` to `last` (both ISO, `last` None = up to the latest day)."""
    end = f"toDate('{last}')" if last else LATEST
    return Span(
        days=f"trade_date >= toDate('{first}') AND trade_date <= {end}",
        base=f"(SELECT max(trade_date) FROM {DB}.daily WHERE trade_date < toDate('{first}'))",
        end=f"(SELECT max(trade_date) FROM {DB}.daily WHERE trade_date <= {end})",
    )


def calendar_period(first: str, last: str | None) -> Span:
    """A month, a week or "since A": the days of `between_days`, each stock's own last closes."""
    days = between_days(first, last)
    return Span(days=days.days, base=days.base, end=days.end, carried=True)


@dataclass(frozen=True)
class Measure:
    """How a per-stock value is read: a column on a day, or over a window (gain, sum or average)."""

    table: str
    column: str
    over_window: str = "avg"  # gain | sum | avg


def values(measure: Measure, span: Span) -> str:
    """SELECT ts_code, v: the measure of every stock on the span."""
    if span.period is not None:
        source = f"{DB}.{measure.table}"
        return f"SELECT ts_code, {measure.column} AS v FROM {source} WHERE end_date = '{span.period}'"
    if span.day is not None:
        return (
            f"SELECT ts_code, {measure.column} AS v FROM {DB}.{measure.table} WHERE trade_date = {span.day}"
        )
    if measure.over_window == "gain" and span.carried:
        return (
            f"SELECT e.ts_code AS ts_code, (e.c / b.c - 1) * 100 AS v FROM "
            f"(SELECT ts_code, argMax(close, trade_date) AS c, max(trade_date) AS last FROM {DB}.daily "
            f"WHERE trade_date > {span.base} AND trade_date <= {span.end} GROUP BY ts_code) AS e "
            f"INNER JOIN (SELECT ts_code, argMax(close, trade_date) AS c FROM {DB}.daily "
            f"WHERE trade_date <= {span.base} AND toYear(trade_date) = toYear({span.base}) "
            f"GROUP BY ts_code) AS b "
            f"ON b.ts_code = e.ts_code WHERE e.last = {LATEST} OR {span.end} < {LATEST}"
        )
    if measure.over_window == "gain":
        return (
            f"SELECT e.ts_code AS ts_code, (e.close / b.close - 1) * 100 AS v FROM {DB}.daily AS e "
            f"INNER JOIN {DB}.daily AS b ON b.ts_code = e.ts_code "
            f"WHERE e.trade_date = {span.end} AND b.trade_date = {span.base}"
        )
    return (
        f"SELECT ts_code, {measure.over_window}({measure.column}) AS v FROM {DB}.{measure.table} "
        f"WHERE {span.days} GROUP BY ts_code"
    )


def _rounded(measure: Measure, span: Span) -> str:
    """The per-stock value as compared with a threshold (derived values rounded, stored ones not)."""
    if span.day is not None or span.period is not None:
        return "v.v"
    return "round(v.v, 9)" if measure.over_window == "gain" else "round(v.v, 6)"


def _with(measure: Measure, span: Span) -> str:
    return f"WITH vals AS ({values(measure, span)}) "


def _scope(scope: str) -> str:
    return f" AND {scope}" if scope else ""


def filtered(measure: Measure, span: Span, op: str, threshold: float, scope: str = "") -> str:
    """Stocks whose value passes the threshold (and the scope, an SQL condition on s)."""
    return (
        _with(measure, span) + f"SELECT v.ts_code FROM vals AS v INNER JOIN {DB}.stock_basic AS s "
        f"ON s.ts_code = v.ts_code WHERE {_rounded(measure, span)} {op} {threshold}{_scope(scope)}"
    )


def aggregated(measure: Measure, span: Span, fn: str, group: str | None, scope: str = "") -> str:
    """One aggregate of the value over the stocks (having one), per group when asked; the average of
    a rate over a window is the mean over every stock-day bar of the window (not of each stock's mean)."""
    key = f"{GROUP_COLUMNS[group]} AS g, " if group else ""
    tail = " GROUP BY g" if group else ""
    if span.days is not None and measure.over_window == "avg" and fn == "avg" and not scope:
        return (
            f"SELECT {key}avg(d.{measure.column}) AS a FROM {DB}.{measure.table} AS d "
            f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code WHERE d.{span.days}{tail}"
        )
    return (
        _with(measure, span) + f"SELECT {key}{fn}(v.v) AS a FROM vals AS v INNER JOIN {DB}.stock_basic AS s "
        f"ON s.ts_code = v.ts_code WHERE v.v IS NOT NULL{_scope(scope)}{tail}"
    )


def aggregated_daily(measure: Measure, span: Span, group: str | None) -> str:
    """The daily average of a flow (日均成交额 / average daily trading value) of the stocks, per group
    when asked: their total over the window's trading days ÷ the number of those days."""
    key = f"{GROUP_COLUMNS[group]} AS g, " if group else ""
    tail = " GROUP BY g" if group else ""
    return (
        f"SELECT {key}sum(d.{measure.column}) / count(DISTINCT d.trade_date) AS a "
        f"FROM {DB}.{measure.table} AS d "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code WHERE d.{span.days}{tail}"
    )


def counted(measure: Measure, span: Span, op: str, threshold: float, group: str | None) -> str:
    """How many stocks pass the threshold, per group when asked (groups with none are not listed)."""
    key = f"{GROUP_COLUMNS[group]} AS g, " if group else ""
    tail = " GROUP BY g" if group else ""
    return (
        _with(measure, span) + f"SELECT {key}count() AS n FROM vals AS v INNER JOIN {DB}.stock_basic AS s "
        f"ON s.ts_code = v.ts_code WHERE {_rounded(measure, span)} {op} {threshold}{tail}"
    )


def groups_averaging(measure: Measure, span: Span, group: str, op: str, threshold: float) -> str:
    """The groups whose average value passes the threshold (HAVING)."""
    return (
        _with(measure, span) + f"SELECT {GROUP_COLUMNS[group]} AS g FROM vals AS v "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = v.ts_code GROUP BY g "
        f"HAVING round(avg(v.v), 6) {op} {threshold}"
    )


def top_subset_aggregate(
    ranked: Measure, span: Span, n: int, fn: str, measure: Measure, measure_span: Span, group: str | None
) -> str:
    """The n stocks ranked first by `ranked` (ties by code), then an aggregate of `measure` over them
    (fn "count": how many of them, per group when asked)."""
    key = f"{GROUP_COLUMNS[group]} AS g, " if group else ""
    tail = " GROUP BY g" if group else ""
    value = "count()" if fn == "count" else f"{fn}(w.v)"
    return (
        f"WITH ranked AS ({values(ranked, span)}), "
        f"top AS (SELECT ts_code FROM ranked WHERE v IS NOT NULL ORDER BY v DESC, ts_code LIMIT {n}), "
        f"w AS ({values(measure, measure_span)}) "
        f"SELECT {key}{value} AS a FROM top INNER JOIN {DB}.stock_basic AS s ON s.ts_code = top.ts_code "
        f"INNER JOIN w ON w.ts_code = top.ts_code{tail}"
    )


def top_subset_filtered_count(
    ranked: Measure, span: Span, n: int, measure: Measure, op: str, threshold: float
) -> str:
    """Of the n stocks ranked first by `ranked`, how many pass a threshold on `measure` (same span)."""
    return (
        f"WITH ranked AS ({values(ranked, span)}), "
        f"top AS (SELECT ts_code FROM ranked WHERE v IS NOT NULL ORDER BY v DESC, ts_code LIMIT {n}), "
        f"w AS ({values(measure, span)}) "
        f"SELECT count() AS n FROM top INNER JOIN w ON w.ts_code = top.ts_code WHERE w.v {op} {threshold}"
    )


def above_group_average(
    measure: Measure, span: Span, group: str, op: str, scope: str = "", factor: float = 1
) -> str:
    """Stocks whose value is above (below) the average value of their own group's stocks (times
    `factor`: below half of it)."""
    column = GROUP_COLUMNS[group]
    return (
        _with(measure, span)
        + f"SELECT v.ts_code FROM vals AS v INNER JOIN {DB}.stock_basic AS s ON s.ts_code = v.ts_code "
        f"INNER JOIN (SELECT {column} AS g, avg(v.v) AS a FROM vals AS v INNER JOIN {DB}.stock_basic AS s "
        f"ON s.ts_code = v.ts_code GROUP BY g) AS ga ON ga.g = {column} "
        f"WHERE {'v.v' if span.day else 'round(v.v, 6)'} {op} {factor} * round(ga.a, 6)"
        f"{_scope(scope)}"
    )


def per_day_count(span: Span, condition: str) -> str:
    """For each trading day of the window, how many stocks met a day's condition (on market.daily d)."""
    return (
        f"SELECT d.trade_date AS day, count() AS n FROM {DB}.daily AS d INNER JOIN {DB}.stock_basic AS s "
        f"ON s.ts_code = d.ts_code WHERE d.{span.days} AND {condition} GROUP BY day"
    )


def days_counted(span: Span, condition: str, op: str, count: int | None) -> str:
    """Stocks meeting a day's condition on `op count` days of the window (count None: every day,
    i.e. a bar and the condition on each trading day of the window)."""
    every = f"(SELECT count(DISTINCT trade_date) FROM {DB}.daily WHERE {span.days})"
    test = f"countIf({condition}) = {every}" if count is None else f"countIf({condition}) {op} {count}"
    return (
        f"SELECT d.ts_code FROM {DB}.daily AS d INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code "
        f"WHERE d.{span.days} GROUP BY d.ts_code HAVING {test}"
    )


def counts_of_each(span: Span, conditions: list[str]) -> str:
    """One count per day's condition, side by side, among the stocks trading on the day."""
    counts = ", ".join(f"countIf({condition}) AS n{k}" for k, condition in enumerate(conditions))
    return (
        f"SELECT {counts} FROM {DB}.daily AS d INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code "
        f"WHERE d.trade_date = {span.day}"
    )


def share_of_stocks(span: Span, condition: str, group: str | None) -> str:
    """The share (in %) of the stocks trading on the day that met a day's condition, per group."""
    key = f"{GROUP_COLUMNS[group]} AS g, " if group else ""
    tail = " GROUP BY g" if group else ""
    return (
        f"SELECT {key}100 * countIf({condition}) / count() AS p FROM {DB}.daily AS d "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code WHERE d.trade_date = {span.day}{tail}"
    )


def index_members(code: str, span: Span) -> str:
    """Condition on s: a constituent of the index in its latest snapshot on or before the day."""
    return (
        f"s.ts_code IN (SELECT con_code FROM {DB}.index_weight WHERE index_code = '{code}' AND trade_date = "
        f"(SELECT max(trade_date) FROM {DB}.index_weight "
        f"WHERE index_code = '{code}' AND trade_date <= {span.day}))"
    )


def _ranked_in_groups(measure: Measure, span: Span, n: int, group: str) -> str:
    """The n stocks with the highest value in each group (ties by code), as CTE `chosen(ts_code, g)`."""
    return _with(measure, span) + (
        f", chosen AS (SELECT v.ts_code AS ts_code, {GROUP_COLUMNS[group]} AS g FROM vals AS v "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = v.ts_code "
        f"ORDER BY v.v DESC, v.ts_code LIMIT {n} BY g) "
    )


def top_per_group(measure: Measure, span: Span, n: int, group: str) -> str:
    """The n stocks with the highest value in each group."""
    return _ranked_in_groups(measure, span, n, group) + "SELECT g, ts_code FROM chosen"


def top_per_group_counted(measure: Measure, span: Span, n: int, group: str, condition: str) -> str:
    """Of the n highest in each group, how many met a day's condition (on market.daily d), per group."""
    return _ranked_in_groups(measure, span, n, group) + (
        f"SELECT chosen.g AS g, count() AS n FROM chosen "
        f"INNER JOIN {DB}.daily AS d ON d.ts_code = chosen.ts_code "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = chosen.ts_code "
        f"WHERE d.trade_date = {span.day} AND {condition} GROUP BY g"
    )


def not_meeting(span: Span, condition: str, scope: str) -> str:
    """Stocks of a scope trading on the day that did not meet a day's condition."""
    return (
        f"SELECT d.ts_code FROM {DB}.daily AS d INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code "
        f"WHERE d.trade_date = {span.day} AND NOT ({condition}){_scope(scope)}"
    )


def two_periods(measure: Measure, first: Span, second: Span, op: str, threshold: float) -> str:
    """Stocks whose value on `first` minus their value on `second` passes the threshold (0: a plain
    comparison of the two values; a difference is rounded like every derived value)."""
    left = "a.v - b.v" if not threshold else "round(a.v - b.v, 6)"
    return (
        f"WITH a AS ({values(measure, first)}), b AS ({values(measure, second)}) "
        f"SELECT a.ts_code FROM a INNER JOIN b ON b.ts_code = a.ts_code WHERE {left} {op} {threshold}"
    )


def per_index_average(measure: Measure, span: Span, codes: list[str]) -> str:
    """The average value of each index's constituents (latest snapshot on or before the day); a stock
    in two indexes counts in both."""
    members = " UNION ALL ".join(
        f"SELECT '{code}' AS g, con_code AS ts_code FROM {DB}.index_weight WHERE index_code = '{code}' "
        f"AND trade_date = (SELECT max(trade_date) FROM {DB}.index_weight "
        f"WHERE index_code = '{code}' AND trade_date <= {span.day})"
        for code in codes
    )
    return (
        _with(measure, span) + f", m AS ({members}) "
        "SELECT m.g AS g, avg(v.v) AS a FROM m INNER JOIN vals AS v ON v.ts_code = m.ts_code GROUP BY g"
    )


def top_groups(measure: Measure, span: Span, group: str, n: int) -> str:
    """The n groups with the highest average value (ties by the group key)."""
    return (
        _with(measure, span) + f"SELECT {GROUP_COLUMNS[group]} AS g FROM vals AS v "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = v.ts_code "
        f"GROUP BY g ORDER BY avg(v.v) DESC, g LIMIT {n}"
    )


def ranked_within_ranked(
    first: Measure, n: int, second: Measure, k: int, span: Span, ascending: bool, scope: str = ""
) -> str:
    """Among the n stocks with the highest `first` (within the scope), the k with the lowest (or
    highest) `second`."""
    return (
        f"WITH f AS ({values(first, span)}), "
        f"picked AS (SELECT f.ts_code AS ts_code FROM f "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = f.ts_code "
        f"WHERE f.v IS NOT NULL{_scope(scope)} ORDER BY f.v DESC, f.ts_code LIMIT {n}), "
        f"w AS ({values(second, span)}) "
        f"SELECT picked.ts_code FROM picked INNER JOIN w ON w.ts_code = picked.ts_code WHERE w.v IS NOT NULL "
        f"ORDER BY w.v {'ASC' if ascending else 'DESC'}, picked.ts_code LIMIT {k}"
    )


# a stock's own bars, each with its moving averages over the bars up to it (its whole history), the
# average volume of the 5 bars before it, how many bars it has so far (k), and the bar before's values
_AVERAGED_BARS = (
    "SELECT ts_code, trade_date, close, vol, row_number() OVER w AS k, "
    "round(avg(close) OVER (w ROWS BETWEEN 4 PRECEDING AND CURRENT ROW), 6) AS ma5, "
    "round(avg(close) OVER (w ROWS BETWEEN 9 PRECEDING AND CURRENT ROW), 6) AS ma10, "
    "round(avg(close) OVER (w ROWS BETWEEN 19 PRECEDING AND CURRENT ROW), 6) AS ma20, "
    "round(avg(vol) OVER (w ROWS BETWEEN 5 PRECEDING AND 1 PRECEDING), 6) AS vol5 "
    f"FROM {DB}.daily WINDOW w AS (PARTITION BY ts_code ORDER BY trade_date)"
)
_WITH_BAR_BEFORE = (
    "SELECT *, lagInFrame(close) OVER v AS prev_close, lagInFrame(ma5) OVER v AS prev_ma5, "
    "lagInFrame(ma10) OVER v AS prev_ma10, lagInFrame(ma20) OVER v AS prev_ma20 "
    f"FROM ({_AVERAGED_BARS}) WINDOW v AS (PARTITION BY ts_code ORDER BY trade_date "
    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
)


def bar_test_days(span: Span, test: str, op: str, count: int | None) -> str:
    """Stocks whose test on their own bars (columns of `_WITH_BAR_BEFORE`: close, vol, k, ma5, ma10,
    ma20, vol5, prev_*) held on `op count` days of the window (count None: on every trading day)."""
    every = f"(SELECT count(DISTINCT trade_date) FROM {DB}.daily WHERE {span.days})"
    having = f"countIf({test}) = {every}" if count is None else f"countIf({test}) {op} {count}"
    return f"SELECT ts_code FROM ({_WITH_BAR_BEFORE}) WHERE {span.days} GROUP BY ts_code HAVING {having}"


def longest_runs(span: Span, sign: str) -> str:
    """SELECT ts_code, v: each stock's most consecutive own bars of the window whose change has the
    sign (`>` up, `<` down), 0 without any — islands of equal (row number − row number among the
    bars that moved alike)."""
    moved = f"pct_chg {sign} 0"
    islands = (
        f"SELECT ts_code, {moved} AS moved, row_number() OVER (PARTITION BY ts_code ORDER BY trade_date) "
        f"- row_number() OVER (PARTITION BY ts_code, {moved} ORDER BY trade_date) AS island "
        f"FROM {DB}.daily WHERE {span.days}"
    )
    runs = f"SELECT ts_code, moved, count() AS n FROM ({islands}) GROUP BY ts_code, moved, island"
    return f"SELECT ts_code, max(if(moved, n, 0)) AS v FROM ({runs}) GROUP BY ts_code"


def advance_decline(span: Span, group: str | None) -> str:
    """Stocks up over stocks down (on market.daily d) on a day, for the market or per group; per day
    of a window when `group` is "day". No ratio (NULL) where no stock fell."""
    key = "d.trade_date" if group == "day" else GROUP_COLUMNS.get(group or "", "")
    when = f"d.trade_date = {span.day}" if span.day else f"d.{span.days}"
    select = f"{key} AS g, " if key else ""
    grouped = f" GROUP BY {key}" if key else ""
    return (
        f"SELECT {select}if(countIf(d.pct_chg < 0) = 0, NULL, "
        f"countIf(d.pct_chg > 0) / countIf(d.pct_chg < 0)) AS r FROM {DB}.daily AS d "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code WHERE {when}{grouped}"
    )


def groups_with_movers(span: Span, group: str, sign: str, op: str, n: int) -> str:
    """The groups (or days, `group` "day") where the number of stocks that moved (`sign` `>` up, `<`
    down) on the day passes `op n`."""
    key = "d.trade_date" if group == "day" else GROUP_COLUMNS[group]
    when = f"d.trade_date = {span.day}" if span.day else f"d.{span.days}"
    return (
        f"SELECT {key} AS g, countIf(d.pct_chg {sign} 0) AS n FROM {DB}.daily AS d "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code WHERE {when} "
        f"GROUP BY g HAVING n {op} {n}"
    )


def change_ranked(
    measure: Measure,
    later: Span,
    earlier: Span,
    n: int,
    descending: bool,
    group: str | None = None,
    scope: str = "",
) -> str:
    """The n stocks (per group if asked) whose value at `later` minus their value at `earlier` is the
    largest (descending) or the most negative, among the stocks with a value at both."""
    shown = f"{GROUP_COLUMNS[group]} AS g, " if group else ""
    direction = "DESC" if descending else "ASC"
    rows = (
        f"WITH a AS ({values(measure, later)}), b AS ({values(measure, earlier)}) "
        f"SELECT a.ts_code AS ts_code, {shown}a.v - b.v AS change FROM a "
        f"INNER JOIN b ON b.ts_code = a.ts_code INNER JOIN {DB}.stock_basic AS s ON s.ts_code = a.ts_code "
        f"WHERE 1{_scope(scope)} ORDER BY change {direction}, ts_code LIMIT {n}"
    )
    if group:
        return rows + " BY g"
    return rows


def counted_rows(grouped_sql: str) -> str:
    """How many rows (groups, days) a grouped reference gives: 平均换手率超过3%的行业有几个."""
    return f"SELECT count() AS n FROM ({grouped_sql})"


def groups_ranked_by_movers(span: Span, group: str, sign: str, descending: bool) -> str:
    """The group (or day, `group` "day") with the most (fewest) stocks that moved (`sign` `>` up,
    `<` down), ties by the group key."""
    key = "d.trade_date" if group == "day" else GROUP_COLUMNS[group]
    when = f"d.trade_date = {span.day}" if span.day else f"d.{span.days}"
    return (
        f"SELECT {key} AS g FROM {DB}.daily AS d "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = d.ts_code WHERE {when} "
        f"GROUP BY g ORDER BY countIf(d.pct_chg {sign} 0) {'DESC' if descending else 'ASC'}, g LIMIT 1"
    )


def groups_versus_market(measure: Measure, span: Span, group: str, op: str) -> str:
    """The groups whose average value is above (below) the average over every stock with a value."""
    return (
        _with(measure, span) + f"SELECT {GROUP_COLUMNS[group]} AS g FROM vals AS v "
        f"INNER JOIN {DB}.stock_basic AS s ON s.ts_code = v.ts_code GROUP BY g "
        f"HAVING round(avg(v.v), 6) {op} round((SELECT avg(v) FROM vals), 6)"
    )
