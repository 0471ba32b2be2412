"""Does a join that only filters repeat the rows it filters? Decided with data, on the candidate's rows.

A table joined only to test its rows — none of its columns is shown, grouped, ordered or aggregated,
they appear only in the join's ON and the WHERE — must keep or drop each row of the other tables, not
repeat it: a join to every index snapshot, to every bar of the last month or to every report period
lists a stock once per match, fills a top 10 with one stock, and counts or averages it several times.

The check's query is the candidate's SELECT reduced to its FROM, joins and WHERE, counting its rows
and the different rows of the other (stored) tables by their keys: more rows than different ones
means the filtering join repeats them. Only SELECTs whose row count matters are judged (no DISTINCT,
not only min/max/uniq aggregates, not inside IN/EXISTS, not under a SELECT that discards repeats);
a SELECT whose sources are not all stored tables, or whose columns are not all qualified, is not
judged (no check). It reads only the candidate's tree and the data — never another check.
"""

from __future__ import annotations

import time

from sqlglot import exp

from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.multiplicity import ROW_KEYS
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check, own_rows
from backend.domain.pipeline.validate.reverse.subject import number_of

# Aggregates a repeated row cannot change.
_REPEAT_PROOF = {
    "min", "max", "minif", "maxif", "uniq", "uniqexact", "uniqcombined", "any", "anylast", "argmax", "argmin",
    "groupuniqarray",
}  # fmt: skip


def _aggregates(select: exp.Select) -> list[exp.AggFunc]:
    return [
        node
        for projection in select.expressions
        for node in projection.find_all(exp.AggFunc)
        if node.find_ancestor(exp.Select) is select and node.find_ancestor(exp.Window) is None
    ]


def _repeats_matter(select: exp.Select) -> bool:
    """Whether repeating a row of this SELECT's sources changes what it gives."""
    if select.args.get("distinct"):
        return False
    aggregates = _aggregates(select)
    if select.args.get("group") and not aggregates:
        return False  # GROUP BY alone keeps one row per key
    sensitive = [
        node
        for node in aggregates
        if _name(node) not in _REPEAT_PROOF and not isinstance(node.this, exp.Distinct)
    ]
    return not aggregates or bool(sensitive)


def _name(node: exp.AggFunc) -> str:
    named = isinstance(node, exp.AnonymousAggFunc | exp.CombinedAggFunc)
    return (node.name if named else node.key).lower()


def _rows_count(select: exp.Select) -> bool:
    """This SELECT's repeats reach the answer: it and each SELECT reading it as a FROM or JOIN
    source keep repeated rows apart (how a CTE, a set operation or an IN reads it is not followed)."""
    current = select
    while True:
        if not _repeats_matter(current):
            return False
        holder = current.parent
        if holder is None:
            return True
        if not isinstance(holder, exp.Subquery) or not isinstance(holder.parent, exp.From | exp.Join):
            return False
        outer = holder.find_ancestor(exp.Select)
        if outer is None:
            return False
        current = outer


def _sources(select: exp.Select) -> list[tuple[exp.Table, exp.Join | None]] | None:
    """The SELECT's stored tables with the join that brings each (None: FROM); None when another
    kind of source (a subquery, a CTE, a table function) is read."""
    from_ = select.args.get("from_")
    if not isinstance(from_, exp.From):
        return None
    found: list[tuple[exp.Table, exp.Join | None]] = []
    for source, join in [(from_.this, None), *((j.this, j) for j in select.args.get("joins") or [])]:
        if not isinstance(source, exp.Table) or source.name.lower() not in ROW_KEYS:
            return None
        found.append((source, join))
    return found


def _filter_only(select: exp.Select, alias: str, join: exp.Join) -> bool:
    """Every column of `alias` sits in the join's ON or the SELECT's WHERE."""
    on, where = join.args.get("on"), select.args.get("where")
    used = [
        column
        for column in select.find_all(exp.Column)
        if column.table == alias and column.find_ancestor(exp.Select) is select
    ]
    return all(
        (on is not None and _within(column, on)) or (where is not None and _within(column, where))
        for column in used
    )


def _within(node: exp.Expr, container: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None:
        if parent is container:
            return True
        parent = parent.parent
    return False


def _count_query(sql: Sql, select: exp.Select, others: list[exp.Table]) -> str:
    reduced = exp.Select(
        expressions=[
            exp.alias_(exp.Count(this=exp.Star()), "vs_rows"),
            exp.alias_(
                exp.Anonymous(
                    this="uniqExact",
                    expressions=[
                        exp.column(key, table=table.alias_or_name)
                        for table in others
                        for key in ROW_KEYS[table.name.lower()]
                    ],
                ),
                "vs_keys",
            ),
        ]
    )
    reduced.set("from_", select.args["from_"].copy())
    reduced.set("joins", [join.copy() for join in select.args.get("joins") or []])
    if select.args.get("where") is not None:
        reduced.set("where", select.args["where"].copy())
    with_ = sql.tree.args.get("with_")
    if with_ is not None:
        reduced.set("with_", with_.copy())
    return reduced.sql(dialect=DIALECT)


def _judged(select: exp.Select) -> list[tuple[exp.Table, list[exp.Table]]]:
    """(filtering table, the other tables) for each join of the SELECT that only filters."""
    sources = _sources(select)
    if sources is None or len(sources) < 2:
        return []
    # a bare name that a projection gives (ORDER BY n, HAVING n > 3) is no table's column
    aliases = {projection.alias for projection in select.expressions if isinstance(projection, exp.Alias)}
    columns = [c for c in select.find_all(exp.Column) if c.find_ancestor(exp.Select) is select]
    if any(not column.table and column.name not in aliases for column in columns):
        return []
    found = []
    for table, join in sources:
        if join is None or join.args.get("kind") in ("SEMI", "ANTI", "ANY"):
            continue
        if _filter_only(select, table.alias_or_name, join):
            found.append((table, [other for other, _ in sources if other is not table]))
    return found


def fanout_checks(sql: Sql, reader: MarketReader, lang: Lang) -> list[CheckResult]:
    checks = []
    for select in sql.selects:
        if not _rows_count(select):
            continue
        for table, others in _judged(select):
            started = time.perf_counter()
            query = _count_query(sql, select, others)
            rows = own_rows(reader, query)
            if isinstance(rows, str) or not rows:
                continue  # the reduced query does not stand alone (an outer column): not judged
            counted, different = number_of(rows[0][0]), number_of(rows[0][1])
            if counted is None or different is None:
                continue
            name = table.alias_or_name
            repeats = counted != different
            reason = (
                f"the join to {name} repeats rows: {counted:g} rows for {different:g} different ones"
                if repeats
                else f"the join to {name} keeps each row once"
            )
            checks.append(
                constraint_check(
                    check_id=f"fanout-{name}",
                    kind="fanout",
                    text=says(
                        lang,
                        f"只用于筛选的连接（{name}）是否让行重复？",
                        f"Does the join to {name}, which only filters, repeat rows?",
                    ),
                    criterion=says(
                        lang, "行数 = 其余表的不同行数", "rows = different rows of the other tables"
                    ),
                    sql=query,
                    verdict="fail" if repeats else "pass",
                    blames=Attribution.CONDITION,
                    reason=reason,
                    started=started,
                )
            )
    return checks
