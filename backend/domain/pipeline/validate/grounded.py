"""Points the checklist reads off the SQL tree but cannot decide without data, decided with data:

- a stock the question names by name (贵州茅台): the probe grounded it to a code; the SQL must name
  that code (or the name itself) — naming only other stocks is a wrong entity;
- a window of N trading days the SQL writes as literal days (trade_date > '2025-12-24'): counting
  the trading days between its day literals on the calendar must give N (N + 1 with the base day of a
  gain, N with an open lower end); N days written with 天 / days may also be N calendar days;
- a window of N trading days the SQL picks with a calendar subquery (SELECT DISTINCT trade_date …
  ORDER BY … LIMIT n): run on the data, it must give the N (or N + 1) trading days that end on the
  day asked.

Each is a check of its own on the same point as the checklist's constraint (`point`), built from the
question, the candidate SQL and the data only — never from the checklist's verdict. The judge counts
a point decided when one of its checks decided it and none failed. The days an index list and a
gain's base close are read on (scope_days.py) are points of their own.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Sequence
from datetime import date

from sqlglot import exp

from backend.domain.language.translation import Evidence
from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution, Constraint
from backend.domain.pipeline.validate.checklist.kinds.date import DateDetail
from backend.domain.pipeline.validate.checklist.kinds.entity import EntityDetail
from backend.domain.pipeline.validate.checklist.kinds.window import WindowDetail
from backend.domain.pipeline.validate.checklist.sqltree import Sql, number_value, under_not
from backend.domain.pipeline.validate.index_lists import ANY_TIME
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check, own_rows
from backend.domain.pipeline.validate.reverse.subject import day_of
from backend.domain.pipeline.validate.scope_days import base_day_check, end_day_check, membership_checks

# Windows over the stock's own bars (moving averages, N-day highs, average volumes) are not calendar
# windows: a SQL may read a longer calendar stretch to compute them.
_BAR_WINDOW = re.compile(
    r"均线|均量|新高|新低|moving average|\bhigh\b|\blow\b|average|\bma\d*\b", re.IGNORECASE
)

_CALENDAR_DAY_UNITS = {"天", "days", "day"}  # may count calendar days, unlike 交易日 and 日
_TRADING_DAY_UNITS = {
    "交易日",
    "个交易日",
    "日",
    "天",
    "trading days",
    "trading day",
    "days",
    "day",
    "sessions",
}


def point_id(number: int, constraint: Constraint) -> str:
    return f"checklist-{number}-{constraint.kind.value}"


def _grounded_result(
    point: str,
    constraint: Constraint,
    kind: str,
    *,
    criterion: str,
    verdict: CheckVerdictValue,
    blames: Attribution,
    reason: str,
    started: float,
    sql: str | None = None,
    variant: str = "",
) -> CheckResult:
    """A data-grounded check of one checklist point; only a failure blames `blames`. `sql` is the
    query it ran (None: it read the candidate's tree against the evidence); `variant` tells apart two
    checks of the same point."""
    return constraint_check(
        check_id=f"grounded-{point}-{variant}" if variant else f"grounded-{point}",
        kind=kind,
        text=constraint.text,
        criterion=criterion,
        sql=sql,
        verdict=verdict,
        blames=blames,
        reason=reason,
        started=started,
        point=point,
    )


def stock_name_check(
    point: str,
    constraint: Constraint,
    detail: EntityDetail,
    sql: Sql,
    evidence: Sequence[Evidence],
    lang: Lang,
) -> CheckResult | None:
    started = time.perf_counter()
    name = detail.entity.key
    grounded = [item.value.split()[-1] for item in evidence if item.kind == "stock" and item.mention == name]
    if detail.entity.category is not None or len(grounded) != 1:
        return None
    code = grounded[0]
    strings = sql.strings
    wanted = {code, code[:6], name}
    named = [s for s in strings if s.strip("%") in wanted]
    if named and all(_excluded(node) for node in _string_nodes(sql, wanted)):
        return _grounded_result(
            point,
            constraint,
            "entity",
            criterion=says(
                lang, f"SQL 选取探查得到的 {code}", f"the SQL keeps {code}, as the probe grounded it"
            ),
            verdict="fail",
            blames=Attribution.ENTITY_MAPPING,
            reason=f"the probe grounded {name} as {code}, which the SQL excludes",
            started=started,
        )
    others = sorted({s for s in strings if len(s) >= 6 and s[:6].isdigit() and s[:6] != code[:6]})
    if not named and not others:
        return None  # nothing in the SQL to compare with the grounding: the checklist speaks alone
    verdict: CheckVerdictValue = "pass" if named else "fail"
    reason = (
        f"the probe grounded {name} as {code}, which the SQL names"
        if named
        else f"the probe grounded {name} as {code}; the SQL names {', '.join(others[:3])} instead"
    )
    return _grounded_result(
        point,
        constraint,
        "entity",
        criterion=says(lang, f"SQL 指向探查得到的 {code}", f"the SQL names {code}, as the probe grounded it"),
        verdict=verdict,
        blames=Attribution.ENTITY_MAPPING,
        reason=reason,
        started=started,
    )


def _string_nodes(sql: Sql, wanted: set[str]) -> list[exp.Literal]:
    return [
        node
        for node in sql.nodes()
        if isinstance(node, exp.Literal) and node.is_string and node.this.strip("%") in wanted
    ]


def _excluded(node: exp.Expr) -> bool:
    """A value the SQL compares under a negation: ts_code != 'X', NOT IN ('X'), NOT (… = 'X')."""
    parent = node.parent
    return isinstance(parent, exp.NEQ) or under_not(node)


def window_check(
    point: str,
    constraint: Constraint,
    detail: WindowDetail,
    sql: Sql,
    reader: MarketReader,
    database: str,
    lang: Lang,
) -> CheckResult | None:
    count = detail.count
    if detail.unit not in _TRADING_DAY_UNITS or sql.has_number(
        (float(count), float(count - 1), float(count + 1))
    ):
        return None
    days = sorted(set(sql.dates))
    if not days:
        return None
    started = time.perf_counter()
    query = (
        f"SELECT arraySort(groupUniqArray(trade_date)), (SELECT max(trade_date) FROM {database}.daily) "
        f"FROM {database}.daily WHERE trade_date >= toDate('{days[0].isoformat()}')"
    )
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        failure = f"the calendar could not be read ({rows})"
        return _window_result(point, constraint, query, "undecidable", failure, started, lang)
    cells = rows[0][0] if rows and isinstance(rows[0][0], list) else []
    calendar = sorted(d for d in (day_of(cell) for cell in cells) if d is not None)
    latest = day_of(rows[0][1]) if rows else None
    ends = sorted({*days, *([latest] if latest is not None else [])})
    span = _fits(calendar, ends, count)
    if span is not None:
        if detail.extreme:
            # an N-day high or low is over the stock's own last N bars, not the market's last N days
            short = _short_of_bars(reader, database, *span)
            if short:
                reason = (
                    short
                    if isinstance(short, str)
                    else f"{short} stocks trading on {span[1].isoformat()} missed days of the span: their "
                    f"last {count} bars reach further back than the SQL's days"
                )
                return _window_result(point, constraint, query, "undecidable", reason, started, lang)
        reason = f"the SQL's day literals span {count} trading days"
        return _window_result(point, constraint, query, "pass", reason, started, lang)
    if detail.unit in _CALENDAR_DAY_UNITS and _spans_days(ends, count):
        reason = f"the SQL's day literals span {count} calendar days (天 / days may be calendar days)"
        return _window_result(point, constraint, query, "pass", reason, started, lang)
    reason = f"no two day literals of the SQL span {count} trading days"
    return _window_result(point, constraint, query, "fail", reason, started, lang)


def _fits(calendar: list[date], ends: list[date], count: int) -> tuple[date, date] | None:
    """Two of the days that bound exactly `count` trading days: [a, b] with count or count + 1
    days (the base day of a gain), or (a, b] with count days."""
    for i, start in enumerate(ends):
        for end in ends[i + 1 :]:
            closed = bisect.bisect_right(calendar, end) - bisect.bisect_left(calendar, start)
            opened = bisect.bisect_right(calendar, end) - bisect.bisect_right(calendar, start)
            if closed in (count, count + 1) or opened == count:
                return start, end
    return None


def _short_of_bars(reader: MarketReader, database: str, start: date, end: date) -> int | str:
    """How many stocks trading on `end` missed a trading day of (start, end]: their last N bars reach
    further back than the market's last N days (a message when the store cannot tell)."""
    query = (
        f"SELECT count() FROM (SELECT ts_code FROM {database}.daily "
        f"WHERE trade_date > toDate('{start.isoformat()}') AND trade_date <= toDate('{end.isoformat()}') "
        f"GROUP BY ts_code HAVING max(trade_date) = toDate('{end.isoformat()}') "
        f"AND count() < (SELECT uniqExact(trade_date) FROM {database}.daily "
        f"WHERE trade_date > toDate('{start.isoformat()}') AND trade_date <= toDate('{end.isoformat()}')))"
    )
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        return f"the bar count could not be read ({rows})"
    found = rows[0][0] if rows else 0
    return found if isinstance(found, int) else 0


def _spans_days(ends: list[date], count: int) -> bool:
    """Whether two of the days bound `count` calendar days: (a, b] or [a, b]."""
    return any(
        (end - start).days in (count, count - 1) for i, start in enumerate(ends) for end in ends[i + 1 :]
    )


def _window_result(
    point: str,
    constraint: Constraint,
    query: str,
    verdict: CheckVerdictValue,
    reason: str,
    started: float,
    lang: Lang,
    variant: str = "days",
) -> CheckResult:
    return _grounded_result(
        point,
        constraint,
        "window",
        criterion=says(
            lang,
            "按交易日历数，SQL 的日期区间恰好是问题的窗口",
            "on the calendar, the SQL's days span the window",
        ),
        verdict=verdict,
        blames=Attribution.TIME_SCOPE,
        reason=reason,
        started=started,
        sql=query,
        variant=variant,
    )


_DAY_TABLES = {"daily", "daily_basic"}  # one row per stock and trading day: a day list from them repeats


def _calendar_subqueries(sql: Sql, count: int) -> list[tuple[str, bool]]:
    """`SELECT [DISTINCT] trade_date FROM daily … ORDER BY … LIMIT n` with n near the window's count, each
    with whether it picks single days (an OFFSET or LIMIT 1: the base day before a streak, LIMIT 1
    OFFSET 3 for three days in a row) rather than the window's days."""
    found = []
    for select in sql.selects:
        projections = select.expressions
        source = select.args.get("from_")
        limit = select.args.get("limit")
        if (
            len(projections) != 1
            or not isinstance(projections[0].unalias(), exp.Column)
            or projections[0].unalias().name != "trade_date"
            or projections[0].alias_or_name != "trade_date"
            or source is None
            or not isinstance(source.this, exp.Table)
            or source.this.name not in _DAY_TABLES
            or select.args.get("order") is None
            or limit is None
        ):
            continue
        size = number_value(limit.expression)
        if size is not None and count - 2 <= size <= count + 2:
            picks_days = size == 1 or select.args.get("offset") is not None
            found.append((select.sql(dialect=DIALECT), picks_days))
    return found


def _within(
    cell: list[object], latest: list[date | None], picks_days: bool, accepted: tuple[list[date | None], ...]
) -> bool:
    """A window's days are the last N (or N + 1); single days picked are some of those N + 1."""
    days = [day_of(day) for day in cell]
    return (bool(days) and set(days) <= set(latest)) if picks_days else days in accepted


def calendar_window_check(
    point: str,
    constraint: Constraint,
    detail: WindowDetail,
    sql: Sql,
    asked_day: date | None,
    reader: MarketReader,
    database: str,
    lang: Lang,
) -> CheckResult | None:
    count = detail.count
    if detail.unit not in _TRADING_DAY_UNITS or _BAR_WINDOW.search(constraint.span.text):
        return None
    subqueries = _calendar_subqueries(sql, count)
    if not subqueries:
        return None
    started = time.perf_counter()
    end = (
        f"toDate('{asked_day.isoformat()}')"
        if asked_day
        else f"(SELECT max(trade_date) FROM {database}.daily)"
    )
    calendar = (
        f"SELECT arraySort(groupArray(trade_date)) FROM (SELECT DISTINCT trade_date FROM {database}.daily "
        f"WHERE trade_date <= {end} ORDER BY trade_date DESC LIMIT {count + 1})"
    )
    windows = ", ".join(
        f"(SELECT arraySort(groupUniqArray(trade_date)) FROM ({sub}))" for sub, _ in subqueries
    )
    query = f"SELECT ({calendar}), {windows}"
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        return None  # the subquery does not run on its own (it reads the outer query): not ours to read
    cells = list(rows[0]) if rows else []
    latest = [day_of(day) for day in cells[0]] if cells and isinstance(cells[0], list) else []
    accepted = (latest, latest[1:])  # N + 1 days (the base day of a gain) or N days
    bad = [
        cell
        for cell, (_, picks_days) in zip(cells[1:], subqueries, strict=False)
        if not isinstance(cell, list) or not _within(cell, latest, picks_days, accepted)
    ]
    if bad:
        reason = f"a calendar subquery of the SQL picks other days than the last {count} trading days"
        verdict: CheckVerdictValue = "fail"
    else:
        reason = f"the SQL's calendar subquery picks the last {count} trading days"
        verdict = "pass"
    return _window_result(point, constraint, query, verdict, reason, started, lang, "calendar")


def grounded_checks(
    constraints: Sequence[Constraint],
    sql: Sql,
    evidence: Sequence[Evidence],
    reader: MarketReader,
    database: str,
    lang: Lang,
    question: str = "",
) -> list[CheckResult]:
    results: list[CheckResult] = []
    days = [c.detail.day for c in constraints if isinstance(c.detail, DateDetail)]
    asked_day = days[0] if len(days) == 1 else None
    for number, constraint in enumerate(constraints, start=1):
        detail = constraint.detail
        point = point_id(number, constraint)
        if isinstance(detail, EntityDetail):
            found = [stock_name_check(point, constraint, detail, sql, evidence, lang)]
        elif isinstance(detail, WindowDetail):
            found = [
                window_check(point, constraint, detail, sql, reader, database, lang),
                calendar_window_check(point, constraint, detail, sql, asked_day, reader, database, lang),
            ]
        else:
            found = []
        results += [result for result in found if result is not None]
    any_time = ANY_TIME.search(question) is not None
    results += membership_checks(constraints, sql, reader, database, lang, any_time=any_time)
    day_checks = (
        base_day_check(constraints, sql, reader, database, lang),
        end_day_check(constraints, sql, reader, database, lang, question),
    )
    return results + [check for check in day_checks if check is not None]
