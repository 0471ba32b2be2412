"""Entity scopes → conditions on `stock_basic b`: exchange, board, industry (group), stock, area,
index constituents (on the snapshot in force on the question's day), listing date and a marker in
the name (ST)."""

from __future__ import annotations

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.sources import index_snapshot_filter
from backend.domain.language.compiler.sql import (
    OPS,
    col,
    date_literal,
    days_after_until,
    in_query,
    membership,
    string,
    table,
)
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.time_resolution import resolve_day, resolve_window, years_back
from backend.domain.language.ir import Scope

MEMBERSHIP_COLUMNS = {"exchange": "exchange", "board": "market", "industry": "industry", "stock": "ts_code",
                      "area": "area"}  # fmt: skip
FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}


def scope_condition(build: QueryBuild, scope: Scope) -> exp.Expr:
    if scope.kind in MEMBERSHIP_COLUMNS:
        return membership(col(MEMBERSHIP_COLUMNS[scope.kind], "b"), scope.values)
    if scope.kind == "group":
        names = [name for key in scope.values for name in _group_industries(build, key)]
        return membership(col("industry", "b"), tuple(names))
    if scope.kind == "index":
        parts = [_index_members(build, code, scope) for code in scope.values]
        return exp.or_(*parts) if len(parts) > 1 else parts[0]
    if scope.kind == "name_marker":
        # ST / *ST: the exchange marks special treatment in the short name (剔除ST: name LIKE '%ST%')
        marked = [
            exp.Like(this=col("name", "b"), expression=string(f"%{marker}%")) for marker in scope.values
        ]
        return exp.or_(*marked) if len(marked) > 1 else marked[0]
    if scope.kind == "list_date" and scope.day is not None:
        return OPS[scope.op](this=col("list_date", "b"), expression=date_literal(scope.day))
    if scope.kind == "listed_years" and scope.number is not None:
        # listed more than N years ago ⇔ list_date before D − N years
        cutoff = years_back(build.day, scope.number)
        return OPS[FLIPPED[scope.op]](this=col("list_date", "b"), expression=date_literal(cutoff))
    raise CompileError(f"cannot compile scope {scope.kind}")


def _group_industries(build: QueryBuild, key: str) -> tuple[str, ...]:
    group = build.model.industry_groups.get(key)
    if group is None:
        raise CompileError(f"unknown industry group {key!r}")
    return group.industries


def _index_members(build: QueryBuild, code: str, scope: Scope) -> exp.Expr:
    """Stocks in the index on the question's day (the latest day when it only names a report period;
    or the scope's own day); before the first snapshot, the earliest one (warned). At some point
    during a window: in any snapshot dated inside it."""
    context = build.context
    if scope.time is not None and scope.op == "any":
        window = resolve_window(context, scope.time)
        ever = (
            exp.select(col("con_code"))
            .from_(table(context, "index_weight"))
            .where(exp.and_(exp.EQ(this=col("index_code"), expression=string(code)),
                            days_after_until(window.base, window.end)))
        )  # fmt: skip
        return in_query(col("ts_code", "b"), ever)
    if scope.time is not None:
        day = resolve_day(context, scope.time)
        snapshot = context.index_snapshot(code, day)
        if snapshot is None:
            raise CompileError(f"index {code} has no constituent snapshot on or before {day.isoformat()}")
        members = (
            exp.select(col("con_code"))
            .from_(table(context, "index_weight"))
            .where(index_snapshot_filter(code, snapshot))
        )
        return in_query(col("ts_code", "b"), members)
    day = build.membership_day or build.day
    snapshot = context.index_snapshot(code, day)
    if snapshot is None:
        known = context.index_snapshots.get(code)
        if not known:
            raise CompileError(f"the data has no constituents for index {code}")
        snapshot = known[0]
        build.warnings.append(
            f"index {code} has no constituent snapshot on or before {day.isoformat()}; "
            f"using the earliest one ({snapshot.isoformat()})"
        )
    build.index_members[code] = snapshot
    members = (
        exp.select(col("con_code"))
        .from_(table(context, "index_weight"))
        .where(index_snapshot_filter(code, snapshot))
    )
    return in_query(col("ts_code", "b"), members)
