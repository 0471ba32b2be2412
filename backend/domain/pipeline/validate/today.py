"""The day a question names as today (今天 / 今日 / 最新交易日 / today / the latest trading day), or implies
by naming no day, span or history at all, is the latest trading day, and the only day asked.

Judged on the SQL tree, and only a failure becomes a check:
- **an earlier day**: `trade_date = (SELECT max(trade_date) … WHERE trade_date < (SELECT max(…)))`
  answers about yesterday, `trade_date = (SELECT min(trade_date) … WHERE trade_date >= '2025-01-01')`
  about the first day of a range;
- **a span up to it**: `trade_date >= (SELECT max(trade_date) …) - 7` reads the last days, not the day;
- **every day**: a daily table (daily, daily_basic) whose trade_date its query never mentions reads
  the whole history.
- **another day written out** (with the data, today said outright): trade_date = '2025-06-30' when the
  newest bar of daily (or daily_basic) is another day.
A list of days, the latest day picked beside the earlier one (today's gain over yesterday's close), a
day written on another date column, or a question naming another day or span (昨日, a date, a window, a
60-day high) leave it unjudged (no check), never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from sqlglot import exp

from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql, date_value, is_date_column, strip
from backend.domain.pipeline.validate.outcome import CheckResult, own_rows, tree_rule_check
from backend.domain.pipeline.validate.reverse.subject import day_of

_TODAY = re.compile(
    r"今天|今日|最新(?:一个|的)?交易日|最近一个交易日"
    r"|\btoday'?s?\b|\b(?:the\s+)?(?:latest|most recent)\s+trading\s+(?:day|session)\b",
    re.IGNORECASE,
)
# Any other day or span of days named: the SQL may rightly read days before the latest.
_OTHER_DAYS = re.compile(
    r"昨|前一|上一|前日|前天|近|最近|过去|连续|以来|之前|以前|均线|\d{4}"
    r"|[\d一二两三四五六七八九十百]+\s*个?(?:交易日|日|天|周|月|年)"
    r"|\b(?:yesterday|previous|prior|before|last|past|since|ago|week|month|year|days|moving average)\b"
    r"|\d+[- ](?:trading[- ])?(?:day|session|week|month|year)s?\b",
    re.IGNORECASE,
)
# A question about the whole history or a time of its own (ever, 历史, listing, 上市) names no single day.
_HISTORY = re.compile(
    r"历史|曾经|有史以来|上市|发行|成立|日期|时间|哪天|哪一天|何时|天|日"
    r"|\b(?:ever|history|historical|all[- ]time|record|listed|listing|ipo|when|date|dates|day|days|time)\b",
    re.IGNORECASE,
)
# Tables with one row per stock and trading day.
_DAY_TABLES = {"daily", "daily_basic"}


def _date_column(node: exp.Expr) -> bool:
    return isinstance(node, exp.Column) and is_date_column(node.name.lower())


def _latest_pick(node: exp.Expr) -> str | None:
    """'latest' for (SELECT max(d) FROM t), 'earlier' for (SELECT max(d) FROM t WHERE d < …) or a
    first day (SELECT min(d) FROM t WHERE d >= '2025-01-01'), None for anything else."""
    node = strip(node)
    if not isinstance(node, exp.Subquery) or not isinstance(node.this, exp.Select):
        return None
    select = node.this
    if len(select.expressions) != 1:
        return None
    picked = strip(select.expressions[0])
    where = select.args.get("where")
    if isinstance(picked, exp.Min) and _date_column(strip(picked.this)):
        # the first day of a range is an earlier one, unless the range starts at the latest day
        starts_latest = isinstance(where, exp.Where) and any(
            _latest_pick(inner) == "latest" for inner in where.find_all(exp.Subquery)
        )
        return None if starts_latest else "earlier"
    if not isinstance(picked, exp.Max) or not _date_column(strip(picked.this)):
        return None
    if not isinstance(where, exp.Where):
        return "latest"
    # d < (the latest day) picks the day before it; d <= … (an index snapshot up to today) does not
    earlier = any(_date_column(strip(bound.this)) for bound in where.find_all(exp.LT))
    return "earlier" if earlier else None


def _inside_pick(node: exp.Expr) -> bool:
    """Within the subquery that picks a day (its own WHERE d < … is how it picks, not a range)."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, exp.Subquery) and _latest_pick(parent) is not None:
            return True
        parent = parent.parent
    return False


def _span_before_latest(node: exp.Expr) -> bool:
    """d >= (the latest day) - 7, d BETWEEN (the latest day) - 7 AND …: days counted back from it."""
    bounds = [node.args.get("low")] if isinstance(node, exp.Between) else [node.expression]
    return any(
        isinstance(strip(bound), exp.Sub) and _latest_pick(strip(bound).this) == "latest"
        for bound in bounds
        if bound is not None
    )


def unmentioned_tables(sql: Sql, names: set[str], column: str) -> list[str]:
    """Tables among `names` read in a SELECT that never mentions their `column` (not in a condition,
    a projection, an ordering or a join key): every row of their history is read."""
    found = []
    for select in sql.selects:
        tables = [
            source
            for source in select.find_all(exp.Table)
            if source.name.lower() in names and source.find_ancestor(exp.Select) is select
        ]
        if not tables:
            continue
        mentions = [
            node
            for node in select.find_all(exp.Column)
            if node.name.lower() == column and node.find_ancestor(exp.Select) is select
        ]
        unqualified = any(not node.table for node in mentions)
        using = any(join.args.get("using") for join in select.args.get("joins") or [])
        for table in tables:
            named = unqualified or using or any(node.table == table.alias_or_name for node in mentions)
            if not named:
                found.append(table.alias_or_name)
    return found


def _finding(sql: Sql, newest: Callable[[], set[date]] | None = None) -> str | None:
    """Why the SQL does not read the latest day alone, or None when the tree cannot tell or it does.
    `newest`: the latest trading days of the data (daily's, daily_basic's), to judge a day written out."""
    picks: list[str | None] = []
    written: list[date] = []
    for node in sql.nodes():
        if isinstance(node, exp.EQ | exp.In | exp.GT | exp.GTE | exp.LT | exp.LTE | exp.Between):
            if not _date_column(strip(node.this)) or _inside_pick(node):
                continue
            trading_days = strip(node.this).name.lower() == "trade_date"
            if (
                isinstance(node, exp.GT | exp.GTE | exp.Between)
                and trading_days
                and _span_before_latest(node)
            ):
                return "the SQL reads a span of days counted back from the latest; the question asks one day"
            if not isinstance(node, exp.EQ):
                return None  # a range or list of days: not this check's to read
            day = date_value(node.expression)
            if day is not None:
                if not trading_days or newest is None:
                    return None  # a day written out: the latest day or not, only the data says
                written.append(day)
                continue
            picks.append(_latest_pick(node.expression))
    unrestricted = unmentioned_tables(sql, _DAY_TABLES, "trade_date")
    if unrestricted:
        return f"the SQL reads every trading day of {', '.join(unrestricted)}; the question asks one day"
    if written and newest is not None and not picks:
        latest = newest()
        if not latest or latest & set(written):
            return None  # the data could not tell, or the day written is the latest
        shown = ", ".join(sorted(day.isoformat() for day in set(written)))
        return f"the SQL reads {shown}; the latest trading day is {max(latest).isoformat()}"
    if not picks or "latest" in picks or None in picks:
        return None
    return "the SQL picks a trading day before the latest one; the question asks for the latest"


def _newest_days(reader: MarketReader, database: str) -> set[date]:
    """The newest trade_date of each daily table; empty when they could not be read."""
    days: set[date] = set()
    for table in sorted(_DAY_TABLES):
        rows = own_rows(reader, f"SELECT max(trade_date) FROM {database}.{table}")
        if isinstance(rows, str):
            return set()
        day = day_of(rows[0][0]) if rows else None
        if day is not None:
            days.add(day)
    return days


def _asks_latest_day(question: str) -> bool:
    """Today named, or no day, span or history named at all: the latest trading day is the one asked."""
    if _OTHER_DAYS.search(_TODAY.sub(" ", question)):
        return False
    return _TODAY.search(question) is not None or _HISTORY.search(question) is None


def today_check(
    question: str, sql: Sql, lang: Lang, reader: MarketReader | None = None, database: str = ""
) -> CheckResult | None:
    """`reader` (and its `database`): the data a day written out is judged on; without it, no check."""
    if not _asks_latest_day(question):
        return None
    # a day written out is judged only when today is said outright: a question naming no day may still
    # name one the patterns miss (上周, on Dec 15)
    said = _TODAY.search(question) is not None
    newest = (lambda: _newest_days(reader, database)) if reader is not None and said else None
    return tree_rule_check(
        "today",
        text=says(lang, "“今天 / 最新交易日”是最新的一个交易日", "“today” is the latest trading day alone"),
        criterion=says(
            lang, "SQL 只读取最新的一个交易日", "the SQL reads the latest trading day and no other"
        ),
        blames=Attribution.TIME_SCOPE,
        finding=lambda: _finding(sql, newest),
    )
