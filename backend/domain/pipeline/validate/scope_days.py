"""Two days a candidate SQL fixes that only the data can judge, each a check with a point of its own:

- **index membership day**: an index's members change; 沪深300成分股 with no day named means the
  latest list (the last snapshot up to the latest trading day), with a day named the list of that
  day. A SQL that takes the list of another day (a report period's end, a day it chose) answers about
  other members: undecidable, with both days named. No day at all (every snapshot ever) likewise.
- **base day of a period's gain**: "2025年以来 / year to date / 全年涨幅" compares the end close with
  the base close. A SQL that reads the base close on one fixed day (sumIf(close, trade_date = B),
  trade_date IN (B, E)) has no base for a stock that did not trade on B but traded before it (a
  suspension): its base close is its last one before B. When such stocks trade on the end day, the
  answer may leave them out or count them wrongly: undecidable, with their number.
- **end day of a finished year**: a figure of a named year (gained more than 50% in 2025) that the data
  holds to its end is each stock's last close of the year. A SQL that keeps only stocks with a bar on
  one fixed day of it (HAVING countIf(trade_date = E) = 1, max(trade_date) = E) drops the stocks
  suspended that day — the reading of a year still under way. When such stocks exist: undecidable,
  with their number; a year the data does not hold to its end is not judged, nor a question about the
  latest day (now, 目前: more than 50% below their 2025 high now), which asks for a bar that day.

Both read only the question's constraints, the candidate's tree and the data — never another check.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import date, timedelta

from sqlglot import exp

from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution, Constraint
from backend.domain.pipeline.validate.checklist.kinds.date import DateDetail
from backend.domain.pipeline.validate.checklist.kinds.entity import EntityDetail
from backend.domain.pipeline.validate.checklist.kinds.open_range import OpenRangeDetail, Way
from backend.domain.pipeline.validate.checklist.kinds.period_return import PeriodReturnDetail
from backend.domain.pipeline.validate.checklist.sqltree import Sql, date_value, number_value
from backend.domain.pipeline.validate.checklist.vocabulary import Category
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check, own_rows
from backend.domain.pipeline.validate.reverse.subject import day_of

_DATE_COLUMNS = {"trade_date"}


def _result(
    check_id: str,
    kind: str,
    text: str,
    criterion: str,
    query: str,
    verdict: CheckVerdictValue,
    reason: str,
    started: float,
) -> CheckResult:
    return constraint_check(
        check_id=check_id,
        kind=kind,
        text=text,
        criterion=criterion,
        sql=query,
        verdict=verdict,
        blames=Attribution.TIME_SCOPE,
        reason=reason,
        started=started,
    )


def _reads(select: exp.Select, table: str) -> bool:
    source = select.args.get("from_")
    return isinstance(source, exp.From) and isinstance(source.this, exp.Table) and source.this.name == table


def _day_conditions(select: exp.Select) -> list[exp.Expr]:
    """What trade_date is compared with in the SELECT's own WHERE (not in nested SELECTs)."""
    where = select.args.get("where")
    if not isinstance(where, exp.Where):
        return []
    found: list[exp.Expr] = []
    for node in where.find_all(exp.EQ, exp.LTE, exp.GTE, exp.LT, exp.GT, exp.Between, exp.In):
        if node.find_ancestor(exp.Select) is not select:
            continue
        subject = node.this
        if isinstance(subject, exp.Column) and subject.name in _DATE_COLUMNS:
            found.append(node)
    return found


def _named_day(constraints: Sequence[Constraint]) -> date | None:
    days = [c.detail.day for c in constraints if isinstance(c.detail, DateDetail) and not c.detail.period]
    return days[0] if len(days) == 1 else None


def membership_checks(
    constraints: Sequence[Constraint],
    sql: Sql,
    reader: MarketReader,
    database: str,
    lang: Lang,
    *,
    any_time: bool = False,
) -> list[CheckResult]:
    """`any_time`: the question asks about any time of a span (at some point during 2025, 曾经)."""
    indexes = [
        c.detail.entity.key
        for c in constraints
        if isinstance(c.detail, EntityDetail) and c.detail.entity.category is Category.INDEX
    ]
    lists = [select for select in sql.selects if _reads(select, "index_weight") and _lists_members(select)]
    if len(indexes) != 1 or not lists:
        return []
    index, named = indexes[0], _named_day(constraints)
    started = time.perf_counter()
    text = says(
        lang,
        f"{index} 的成分股取自{named.isoformat() if named else '最新一期名单'}",
        f"{index}'s members are those of {named.isoformat() if named else 'the latest list'}",
    )
    criterion = says(
        lang,
        "SQL 读取的成分名单日期 = 问题所指的那一期",
        "the SQL reads the index list of the day the question means",
    )
    end = f"toDate('{named.isoformat()}')" if named else f"(SELECT max(trade_date) FROM {database}.daily)"
    query = (
        f"SELECT max(trade_date) FROM {database}.index_weight "
        f"WHERE index_code = '{index}' AND trade_date <= {end}"
    )
    verdicts: list[tuple[CheckVerdictValue, str]] = []
    for select in lists:
        conditions = _day_conditions(select)
        fixed = [
            day
            for node in conditions
            if isinstance(node, exp.EQ) and (day := date_value(node.expression)) is not None
        ]
        if any_time and _spans_days(select, conditions):
            verdicts.append(("pass", "the SQL reads every list of a span; the question asks about any time"))
        elif not conditions:
            verdicts.append(("undecidable", "the SQL reads every list of the index, of any day"))
        elif len(fixed) == 1 and fixed[0] == named:
            verdicts.append(("pass", f"the SQL reads the list of {named.isoformat()}, the day named"))
        elif len(fixed) == 1:
            verdicts.append(_against_snapshot(fixed[0], named, query, reader))
        elif _latest_lookup(conditions):
            verdict: CheckVerdictValue = "pass" if named is None else "undecidable"
            reason = (
                "the SQL reads the latest list"
                if named is None
                else f"the SQL reads the latest list; the question names {named.isoformat()}"
            )
            verdicts.append((verdict, reason))
        else:
            verdicts.append(("undecidable", "which day's list the SQL reads is not read"))
    worst = next((v for v in verdicts if v[0] != "pass"), verdicts[0])
    return [_result("grounded-membership", "entity", text, criterion, query, worst[0], worst[1], started)]


_RANGES = (exp.Between, exp.GTE, exp.LTE, exp.GT, exp.LT)


def _spans_days(select: exp.Select, conditions: list[exp.Expr]) -> bool:
    """The SELECT's own WHERE keeps the lists of a span: trade_date only bounded (BETWEEN, >=), or a
    function of the list's day compared (toYear(trade_date) = 2025)."""
    if conditions:
        return all(isinstance(node, _RANGES) for node in conditions)
    where = select.args.get("where")
    if not isinstance(where, exp.Where):
        return False
    return any(
        node.find_ancestor(exp.Select) is select
        and isinstance(node.this, exp.Func)
        and any(column.name in _DATE_COLUMNS for column in node.this.find_all(exp.Column))
        for node in where.find_all(exp.EQ, exp.Between, exp.GTE, exp.LTE, exp.GT, exp.LT, exp.In)
    )


def _lists_members(select: exp.Select) -> bool:
    """A SELECT that reads the members — shown (con_code, weight) or joined and counted — not the
    lookup of the list's day (SELECT max(trade_date) …), which reads the day alone."""
    if any(isinstance(projection, exp.Star) for projection in select.expressions):
        return True
    return not all(
        {column.name for column in projection.find_all(exp.Column)} <= {"trade_date"}
        for projection in select.expressions
    )


def _latest_lookup(conditions: list[exp.Expr]) -> bool:
    """trade_date = (SELECT max(trade_date) FROM …): the latest list (up to a bound or not)."""
    return any(
        isinstance(node, exp.EQ)
        and isinstance(node.expression, exp.Subquery)
        and isinstance(node.expression.this, exp.Select)
        and any(isinstance(p, exp.Max) for p in node.expression.this.expressions)
        for node in conditions
    )


def _against_snapshot(
    day: date, named: date | None, query: str, reader: MarketReader
) -> tuple[CheckVerdictValue, str]:
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        return "undecidable", f"the list's day could not be looked up ({rows})"
    snapshot = day_of(rows[0][0]) if rows else None
    if snapshot is not None and day == snapshot:
        which = f"the list in force on {named.isoformat()}" if named else "the latest list"
        return "pass", f"the SQL reads the list of {day.isoformat()}, {which}"
    asked = f"the day named, {named.isoformat()}" if named else "no day for it"
    return "undecidable", (
        f"the SQL reads the list of {day.isoformat()}; the question names {asked} "
        f"(the list in force is of {snapshot.isoformat() if snapshot else 'no day'})"
    )


def _fixed_days(sql: Sql) -> list[date]:
    """Days the SQL pins trade_date to: trade_date = 'D' (in WHERE, sumIf, countIf…) or IN ('D', …)."""
    days: set[date] = set()
    for node in sql.nodes():
        if isinstance(node, exp.EQ) and isinstance(node.this, exp.Column) and node.this.name in _DATE_COLUMNS:
            day = date_value(node.expression)
            days |= {day} if day is not None else set()
        elif (
            isinstance(node, exp.In) and isinstance(node.this, exp.Column) and node.this.name in _DATE_COLUMNS
        ):
            days |= {d for value in node.expressions if (d := date_value(value)) is not None}
    return sorted(days)


def _required_days(sql: Sql) -> list[date]:
    """Days a HAVING requires a stock's bar on: countIf(trade_date = E) = 1 (> 0, >= 1),
    max(trade_date) = E."""
    days: set[date] = set()
    for having in sql.tree.find_all(exp.Having):
        for node in having.find_all(exp.EQ, exp.GT, exp.GTE):
            sides = (node.this, node.expression)
            for side, other in (sides, sides[::-1]):
                bound = number_value(other)
                if isinstance(side, exp.CountIf) and isinstance(side.this, exp.EQ) and bound in (0, 1):
                    day = _pinned(side.this)
                    required = isinstance(node, exp.GT) == (bound == 0)
                elif isinstance(side, exp.Max) and isinstance(node, exp.EQ):
                    day = date_value(other) if _is_trade_date(side.this) else None
                    required = True
                else:
                    continue
                days |= {day} if day is not None and required else set()
    return sorted(days)


def _is_trade_date(node: exp.Expr) -> bool:
    return isinstance(node, exp.Column) and node.name in _DATE_COLUMNS


def _pinned(condition: exp.EQ) -> date | None:
    """The day of trade_date = 'D' (either way round)."""
    if _is_trade_date(condition.this):
        return date_value(condition.expression)
    return date_value(condition.this) if _is_trade_date(condition.expression) else None


_NOW = re.compile(r"现在|目前|当前|今天|今日|最新|\b(?:now|today|currently|current|latest)\b", re.IGNORECASE)


def end_day_check(
    constraints: Sequence[Constraint],
    sql: Sql,
    reader: MarketReader,
    database: str,
    lang: Lang,
    question: str,
) -> CheckResult | None:
    # a year (2025, 全年: read as the year's period too), not a day nor a year since which
    years = {
        c.detail.year
        for c in constraints
        if isinstance(c.detail, DateDetail)
        and not c.detail.since
        and (c.detail.day is None or (c.detail.period and (c.detail.day.month, c.detail.day.day) == (12, 31)))
    }
    required = _required_days(sql)
    if len(years) != 1 or len(required) != 1 or required[0].year not in years or _NOW.search(question):
        return None
    end, year = required[0], required[0].year
    started = time.perf_counter()
    query = (
        f"SELECT (SELECT max(trade_date) FROM {database}.daily), count() FROM (SELECT ts_code "
        f"FROM {database}.daily WHERE toYear(trade_date) = {year} GROUP BY ts_code "
        f"HAVING countIf(trade_date = toDate('{end.isoformat()}')) = 0)"
    )
    text = says(
        lang,
        f"{year}年的数字取每只股票当年最后一个收盘价：{end.isoformat()} 停牌的股票不被剔除",
        f"a figure of {year} reads each stock's last close of the year: stocks suspended on "
        f"{end.isoformat()} are not left out",
    )
    criterion = says(
        lang,
        f"{year}年有行情的股票在 {end.isoformat()} 都有行情",
        f"every stock trading in {year} has a bar on {end.isoformat()}",
    )
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        reason = f"the stocks with no bar that day could not be counted ({rows})"
        return _result("grounded-end-day", "date", text, criterion, query, "undecidable", reason, started)
    latest = day_of(rows[0][0]) if rows else None
    if latest is None or latest < date(year, 12, 31):
        return None  # the year is under way: a bar on its latest day is the usual reading
    missing = rows[0][1] if isinstance(rows[0][1], int) else 0
    if missing == 0:
        reason = f"every stock trading in {year} has a bar on {end.isoformat()}"
        return _result("grounded-end-day", "date", text, criterion, query, "pass", reason, started)
    reason = (
        f"the SQL keeps only stocks with a bar on {end.isoformat()}: {missing} stocks traded in {year} "
        "but not that day (suspended); the finished year's figure reads their last close"
    )
    return _result("grounded-end-day", "date", text, criterion, query, "undecidable", reason, started)


def base_day_check(
    constraints: Sequence[Constraint], sql: Sql, reader: MarketReader, database: str, lang: Lang
) -> CheckResult | None:
    asks_gain = any(
        isinstance(c.detail, PeriodReturnDetail)
        or (isinstance(c.detail, OpenRangeDetail) and c.detail.way is Way.SINCE)
        for c in constraints
    )
    days = _fixed_days(sql)
    if not asks_gain or len(days) < 2:
        return None
    base, end = days[0], days[-1]
    started = time.perf_counter()
    query = (
        f"SELECT count() FROM (SELECT ts_code FROM {database}.daily "
        f"WHERE trade_date > toDate('{(base - timedelta(days=31)).isoformat()}') "
        f"AND trade_date <= toDate('{end.isoformat()}') GROUP BY ts_code "
        f"HAVING countIf(trade_date = toDate('{base.isoformat()}')) = 0 "
        f"AND countIf(trade_date = toDate('{end.isoformat()}')) = 1 "
        f"AND countIf(trade_date < toDate('{base.isoformat()}')) > 0)"
    )
    text = says(
        lang,
        f"涨幅的基准收盘价取 {base.isoformat()}：当天停牌的股票以此前最后一个收盘价为基准",
        f"the gain's base close is read on {base.isoformat()}: a stock suspended that day has its last "
        "earlier close as its base",
    )
    criterion = says(
        lang,
        f"{end.isoformat()} 有行情的股票在 {base.isoformat()} 都有收盘价",
        f"every stock trading on {end.isoformat()} has a close on {base.isoformat()}",
    )
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        reason = f"the base day could not be looked up ({rows})"
        return _result(
            "grounded-base-day", "period_return", text, criterion, query, "undecidable", reason, started
        )
    cell = rows[0][0] if rows else 0
    missing = cell if isinstance(cell, int) else 0
    if missing == 0:
        reason = f"every stock trading on {end.isoformat()} and before {base.isoformat()} traded on it"
        return _result("grounded-base-day", "period_return", text, criterion, query, "pass", reason, started)
    reason = (
        f"{missing} stocks trading on {end.isoformat()} did not trade on {base.isoformat()} but did before: "
        "their base close is an earlier one, which the SQL does not read"
    )
    return _result(
        "grounded-base-day", "period_return", text, criterion, query, "undecidable", reason, started
    )
