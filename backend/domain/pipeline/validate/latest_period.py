"""The latest report period a question names (最新报告期 / 最近一期 / the latest report period) is the
newest end_date of the report table read, and the only period asked when the question names no other.
A question naming no period at all (净利率超过30%的公司, companies with debt-to-assets above 80%) asks
the latest report too, as a question naming no day asks the latest trading day (`today.py`).

Decided on the SQL tree and the data; only a failure becomes a check:
- **every period**: a report table (income, fina_indicator) whose end_date its query never mentions
  reads each company's whole history (any company that ever met the condition);
- **another period**: end_date compared only with days written out, none of them the table's newest
  end_date (the latest annual report '2024-12-31' when 2025 Q3 has been published).
A period picked as max(end_date) or in any other way the tree does not read is no check. The last N
report periods (最近4个报告期, each of the last four report periods) hold the newest: periods written out
none of which is it fail the same way.
"""

from __future__ import annotations

import re
from datetime import date

from sqlglot import exp

from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql, date_value, strip
from backend.domain.pipeline.validate.outcome import CheckResult, own_rows, tree_rule_check
from backend.domain.pipeline.validate.reverse.subject import day_of
from backend.domain.pipeline.validate.today import unmentioned_tables

_LATEST_PERIOD = re.compile(
    r"最新(?:一期)?(?:的)?(?:报告期|财报|一期)|最近一期|最新一期"
    r"|\b(?:the\s+)?(?:latest|most recent|newest)\s+(?:reporting|report|financial report|fiscal)\s+period\b",
    re.IGNORECASE,
)
# Another period, span or the whole history named: the SQL may rightly read other periods.
_OTHER_PERIODS = re.compile(
    r"年报|年度|季报|季度|半年|中报|\d{4}|连续|以来|近|过去|同比|环比|历史|曾|往年|每年|各年"
    r"|\b(?:annual|quarter|quarterly|year|years|yrs?|since|last|past|previous|prior|consecutive|q[1-4]"
    r"|half|interim|h[12]|fy|ever|history|historical|in a row|ttm|trailing)\b"
    # a period with a two-digit year (FY24, Q3'25, 1H25, 24年)
    r"|\b(?:fy|q[1-4]|h[12])\s*'?\d{2}\b|\b[1-4][qh]\s*'?\d{2}\b|\d{2}年",
    re.IGNORECASE,
)
_PERIOD_TABLES = {"income", "fina_indicator"}
# The last N report periods (最近4个报告期, each of the last four report periods): the newest among them.
_RECENT_PERIODS = re.compile(
    r"(?:最近|近|过去)\s*[\d一二两三四五六七八九十]+\s*个?(?:报告期|季度|季报|期)"
    r"|\b(?:the\s+)?(?:last|latest|most recent|past|previous)\s+(?:\d+|two|three|four|five|six|seven|eight)"
    r"\s+(?:reporting\s+|report\s+|quarterly\s+)?(?:periods|quarters|reports)\b",
    re.IGNORECASE,
)


def _written_periods(sql: Sql) -> list[tuple[str, date]] | None:
    """(table, day) of each end_date = '…' / IN ('…') of a report table; None when end_date is also
    picked another way (a subquery, a range, a function of it)."""
    found: list[tuple[str, date]] = []
    for select in sql.selects:
        tables = {
            source.alias_or_name: source.name.lower()
            for source in select.find_all(exp.Table)
            if source.name.lower() in _PERIOD_TABLES and source.find_ancestor(exp.Select) is select
        }
        for column in select.find_all(exp.Column):
            if column.name.lower() != "end_date" or column.find_ancestor(exp.Select) is not select:
                continue
            table = tables.get(column.table) or (next(iter(tables.values())) if len(tables) == 1 else None)
            if table is None:
                continue
            parent = column.parent
            if isinstance(parent, exp.EQ) and strip(parent.this) is column:
                day = date_value(parent.expression)
                if day is None:
                    return None
                found.append((table, day))
            elif isinstance(parent, exp.In) and strip(parent.this) is column and parent.expressions:
                days = [date_value(value) for value in parent.expressions]
                if any(day is None for day in days):
                    return None
                found += [(table, day) for day in days if day is not None]
            else:
                return None
    return found


def _newest(reader: MarketReader, database: str, table: str) -> date | str:
    rows = own_rows(reader, f"SELECT max(end_date) FROM {database}.{table}")
    if isinstance(rows, str):
        return rows
    newest = day_of(rows[0][0]) if rows else None
    return newest if newest is not None else "the table has no periods"


def _finding(sql: Sql, reader: MarketReader, database: str, written_only: bool = False) -> str | None:
    unmentioned = [] if written_only else unmentioned_tables(sql, _PERIOD_TABLES, "end_date")
    if unmentioned:
        return f"the SQL reads every report period of {', '.join(unmentioned)}; the question asks the latest"
    written = _written_periods(sql)
    if not written:
        return None
    for table in sorted({table for table, _ in written}):
        newest = _newest(reader, database, table)
        if isinstance(newest, str):
            return None  # the newest period could not be read: no check rather than a guess
        days = sorted({day for name, day in written if name == table})
        if newest not in days:
            shown = ", ".join(day.isoformat() for day in days)
            return f"the SQL reads {table} for {shown}; the latest report period is {newest.isoformat()}"
    return None


def latest_period_check(
    question: str, sql: Sql, reader: MarketReader, database: str, lang: Lang
) -> CheckResult | None:
    recent = _RECENT_PERIODS.search(question) is not None
    if _OTHER_PERIODS.search(_RECENT_PERIODS.sub(" ", _LATEST_PERIOD.sub(" ", question))):
        return None
    return tree_rule_check(
        "latest_period",
        text=(
            says(
                lang,
                "“最新报告期”是数据中最新的一期",
                "“the latest report period” is the newest one in the data",
            )
            if _LATEST_PERIOD.search(question) or recent
            else says(lang, "未指明报告期：读取最新一期", "no report period named: the latest one is read")
        ),
        criterion=says(lang, "SQL 只读取最新的报告期", "the SQL reads the newest report period and no other"),
        blames=Attribution.TIME_SCOPE,
        # the last N periods may be read from a range or a window: only periods written out are judged
        finding=lambda: _finding(sql, reader, database, written_only=recent),
    )
