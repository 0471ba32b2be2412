"""The day a question names as today (今天 / 今日 / today) is the latest trading day.

A SQL that picks the trading day before it — `trade_date = (SELECT max(trade_date) … WHERE
trade_date < (SELECT max(trade_date) …))` — answers about yesterday. Judged on the SQL tree only when
the question names no other day (昨日, yesterday, a date, a window) and the SQL picks its days only
that way: a day written as a literal, a range or a list of days, or the latest day picked beside the
earlier one (today's gain over yesterday's close) leave it unjudged (no check), never guessed.
"""

from __future__ import annotations

import re
import time

from sqlglot import exp

from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql, date_value, is_date_column, strip
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check

_TODAY = re.compile(r"今天|今日|\btoday'?s?\b", re.IGNORECASE)
# Any other day or span of days named: the SQL may rightly read days before the latest.
_OTHER_DAYS = re.compile(
    r"昨|前一|上一|前日|前天|近|最近|过去|连续|以来|之前|以前|\d{4}|\d+\s*(?:日|天|周|月|年)"
    r"|\b(?:yesterday|previous|prior|before|last|past|since|ago|week|month|year|days)\b",
    re.IGNORECASE,
)


def _date_column(node: exp.Expr) -> bool:
    return isinstance(node, exp.Column) and is_date_column(node.name.lower())


def _latest_pick(node: exp.Expr) -> str | None:
    """'latest' for (SELECT max(d) FROM t), 'earlier' for (SELECT max(d) FROM t WHERE d < …),
    None for anything else."""
    node = strip(node)
    if not isinstance(node, exp.Subquery) or not isinstance(node.this, exp.Select):
        return None
    select = node.this
    if len(select.expressions) != 1:
        return None
    picked = strip(select.expressions[0])
    if not isinstance(picked, exp.Max) or not _date_column(strip(picked.this)):
        return None
    where = select.args.get("where")
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


def today_check(question: str, sql: Sql, lang: Lang) -> CheckResult | None:
    if not _TODAY.search(question) or _OTHER_DAYS.search(question):
        return None
    picks: list[str | None] = []
    for node in sql.nodes():
        if isinstance(node, exp.EQ | exp.In | exp.GT | exp.GTE | exp.LT | exp.LTE | exp.Between):
            if not _date_column(strip(node.this)) or _inside_pick(node):
                continue
            if not isinstance(node, exp.EQ):
                return None  # a range or list of days: not this check's to read
            if date_value(node.expression) is not None:
                return None  # a day written out: the latest day or not, only the data says
            picks.append(_latest_pick(node.expression))
    if not picks or "latest" in picks or None in picks:
        return None
    started = time.perf_counter()
    return constraint_check(
        check_id="today",
        kind="today",
        text=says(lang, "“今天”是最新的交易日", "“today” is the latest trading day"),
        criterion=says(lang, "SQL 选取最新的交易日", "the SQL picks the latest trading day"),
        sql=None,
        verdict="fail",
        blames=Attribution.TIME_SCOPE,
        reason="the SQL picks the trading day before the latest one; the question asks for today",
        started=started,
    )
