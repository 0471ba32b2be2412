"""Two points the checklist reads off the SQL tree but cannot decide without data, decided with data:

- a stock the question names by name (贵州茅台): the probe grounded it to a code; the SQL must name
  that code (or the name itself) — naming only other stocks is a wrong entity;
- a window of N trading days the SQL writes as literal days (trade_date > '2025-12-24'): counting
  the trading days between its day literals on the calendar must give N (N + 1 with the base day of a
  gain, N with an open lower end).

Each is a check of its own on the same point as the checklist's constraint (`point`), built from the
question, the candidate SQL and the data only — never from the checklist's verdict. The judge counts
a point decided when one of its checks decided it and none failed.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence
from datetime import date

from backend.domain.language.translation import Evidence
from backend.domain.market.errors import MarketError, StoreBusy
from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution, Constraint
from backend.domain.pipeline.validate.checklist.kinds.entity import EntityDetail
from backend.domain.pipeline.validate.checklist.kinds.window import WindowDetail
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.reverse.subject import day_of

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


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


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
    named = [s for s in strings if s.strip("%") in {code, code[:6], name}]
    others = sorted({s for s in strings if len(s) >= 6 and s[:6].isdigit() and s[:6] != code[:6]})
    if not named and not others:
        return None  # nothing in the SQL to compare with the grounding: the checklist speaks alone
    verdict: CheckVerdictValue = "pass" if named else "fail"
    reason = (
        f"the probe grounded {name} as {code}, which the SQL names"
        if named
        else f"the probe grounded {name} as {code}; the SQL names {', '.join(others[:3])} instead"
    )
    return CheckResult(
        check_id=f"grounded-{point}",
        stage="checklist",
        level="constraint",
        kind="entity",
        text=constraint.text,
        sql=None,
        criterion=says(lang, f"SQL 指向探查得到的 {code}", f"the SQL names {code}, as the probe grounded it"),
        verdict=verdict,
        attribution=None if named else Attribution.ENTITY_MAPPING.value,
        reason=reason,
        ms=_ms(started),
        point=point,
    )


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
    try:
        rows = reader.query(query).rows
    except StoreBusy:
        raise
    except MarketError as error:
        failure = f"the calendar query failed: {error}"
        return _window_result(point, constraint, query, "undecidable", failure, started, lang)
    cells = rows[0][0] if rows and isinstance(rows[0][0], list) else []
    calendar = sorted(d for d in (day_of(cell) for cell in cells) if d is not None)
    latest = day_of(rows[0][1]) if rows else None
    ends = sorted({*days, *([latest] if latest is not None else [])})
    if _fits(calendar, ends, count):
        reason = f"the SQL's day literals span {count} trading days"
        return _window_result(point, constraint, query, "pass", reason, started, lang)
    reason = f"no two day literals of the SQL span {count} trading days"
    return _window_result(point, constraint, query, "fail", reason, started, lang)


def _fits(calendar: list[date], ends: list[date], count: int) -> bool:
    """Whether two of the days bound exactly `count` trading days: [a, b] with count or count + 1
    days (the base day of a gain), or (a, b] with count days."""
    for i, start in enumerate(ends):
        for end in ends[i + 1 :]:
            closed = bisect.bisect_right(calendar, end) - bisect.bisect_left(calendar, start)
            opened = bisect.bisect_right(calendar, end) - bisect.bisect_right(calendar, start)
            if closed in (count, count + 1) or opened == count:
                return True
    return False


def _window_result(
    point: str,
    constraint: Constraint,
    query: str,
    verdict: CheckVerdictValue,
    reason: str,
    started: float,
    lang: Lang,
) -> CheckResult:
    return CheckResult(
        check_id=f"grounded-{point}",
        stage="checklist",
        level="constraint",
        kind="window",
        text=constraint.text,
        sql=query,
        criterion=says(
            lang,
            "按交易日历数，SQL 的日期区间恰好是问题的窗口",
            "on the calendar, the SQL's days span the window",
        ),
        verdict=verdict,
        attribution=Attribution.TIME_SCOPE.value if verdict == "fail" else None,
        reason=reason,
        ms=_ms(started),
        point=point,
    )


def grounded_checks(
    constraints: Sequence[Constraint],
    sql: Sql,
    evidence: Sequence[Evidence],
    reader: MarketReader,
    database: str,
    lang: Lang,
) -> list[CheckResult]:
    results: list[CheckResult] = []
    for number, constraint in enumerate(constraints, start=1):
        detail = constraint.detail
        point = point_id(number, constraint)
        result: CheckResult | None = None
        if isinstance(detail, EntityDetail):
            result = stock_name_check(point, constraint, detail, sql, evidence, lang)
        elif isinstance(detail, WindowDetail):
            result = window_check(point, constraint, detail, sql, reader, database, lang)
        if result is not None:
            results.append(result)
    return results
