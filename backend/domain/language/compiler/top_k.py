"""Top k per group (涨幅前三的股票 in each industry): rank the stocks within their group with
row_number(), keep the first k, and show the group's aggregates next to each stock."""

from __future__ import annotations

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.compiler.naming import aggregate_name
from backend.domain.language.compiler.sources import dimension
from backend.domain.language.compiler.sql import call, col, number, ordered
from backend.domain.language.compiler.state import QueryBuild
from backend.domain.language.compiler.units import shown_columns
from backend.domain.language.ir import Screen


def top_per_group(
    screen: Screen, build: QueryBuild, query: exp.Select, order_expr: exp.Expr | None
) -> exp.Query:
    if order_expr is None or screen.order is None or not screen.group_by:
        raise CompileError("top-k per group needs an ordering and a group")
    group_column = dimension(build, screen.group_by)
    rank = exp.Window(
        this=call("row_number"),
        partition_by=[group_column],
        order=exp.Order(
            expressions=[ordered(order_expr, screen.order.direction), exp.Ordered(this=col("ts_code", "b"))]
        ),
    )
    inner = query.select(exp.alias_(group_column.copy(), screen.group_by), exp.alias_(rank, "rank_in_group"))
    outer_columns: list[exp.Expr] = [
        exp.column(name) for name in (screen.group_by, "rank_in_group", "ts_code", "name")
    ]
    if build.date_column is not None:
        outer_columns.append(exp.column(build.date_column[0]))
    shown = shown_columns(build)
    outer_columns += [exp.column(name) for name, _ in shown]
    # a value shown in the question's unit is aggregated in that unit, under its shown name
    shown_names = {
        name: shown_name for (name, _), (shown_name, _) in zip(build.value_columns(), shown, strict=True)
    }
    metric_columns = {name for name, _ in build.columns}
    for aggregate in screen.aggregates:
        if aggregate.metric is None:
            continue
        source = build.model.metrics[aggregate.metric].column
        if source not in metric_columns:
            raise CompileError(f"cannot aggregate {aggregate.metric} within the groups")
        shown_source = shown_names.get(source, source)
        group_value = exp.Window(
            this=call(aggregate.fn, exp.column(shown_source)), partition_by=[exp.column(screen.group_by)]
        )
        unit_suffix = shown_source[len(source) :]
        outer_columns.append(exp.alias_(group_value, f"group_{aggregate_name(aggregate)}{unit_suffix}"))
    return (
        exp.select(*outer_columns)
        .from_(exp.alias_(exp.Subquery(this=inner), "ranked", table=True))
        .where(exp.LTE(this=exp.column("rank_in_group"), expression=number(screen.per_group_limit or 1)))
        .order_by(
            exp.Ordered(this=exp.column(screen.group_by)), exp.Ordered(this=exp.column("rank_in_group"))
        )
    )
