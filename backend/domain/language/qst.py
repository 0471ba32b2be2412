"""Query Structure Tree (QST): the JSON form of a parsed question (format documented in QST.md).

Every node is `{"label": str, "children": [...]}`; value nodes carry their literal in `"value"`
(never in the label), so questions that differ only in literals are at tree edit distance 0.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import zss

from backend.domain.labelled_tree import Node, QstError
from backend.domain.language.ir import (
    ALL_TIME_TECHNICALS,
    HALF_YEAR_ENDS,
    TIME_LABELS,
    WINDOW_MEASURES,
    Aggregate,
    BoolOp,
    Compare,
    Condition,
    Figure,
    Frequency,
    GrowthStreak,
    LossToProfit,
    Not,
    Order,
    Scope,
    Screen,
    Sustained,
    Technical,
    TimeSpec,
    TopSubset,
    VersusGroup,
)

OPERATORS = (">", ">=", "<", "<=", "=", "!=", "between", "in", "has")  # has: a value at all
OPS_ORDERED = (">", ">=", "<", "<=")
CONDITION_HEADS = {"condition", "technical", "fundamental", "scope", "bool"}
AGGREGATES = (
    "avg", "sum", "max", "min", "median", "count", "count_up", "count_down", "up_down_ratio", "net_up",
    "share", "trading_days", "stock_days", "groups",
)  # fmt: skip
# report figures derived over a window (values.py), then measures of a window of days
FIGURE_WINDOWS = ("single_quarter", "ttm", "qoq", *sorted(WINDOW_MEASURES))
FREQUENCY_OPERATORS = (">", ">=", "<", "<=", "=", "every")
TECHNICAL_KINDS = (
    "ma_above", "ma_below", "ma_cross_above", "ma_cross_below", "n_day_high", "n_day_low",
    "up_streak", "down_streak", "volume_surge", "ma_golden_cross", "ma_death_cross", "limit_up", "limit_down",
    "limit_up_touched", "limit_down_touched", "volume_up_streak", "volume_down_streak", "ma_bull_stack",
    "ma_bear_stack", "ma_over_ma", "ma_under_ma",
    "gap_up", "gap_down", "gap_up_unfilled", "gap_down_unfilled", "ma_gap", "volume_n_day_high",
    "volume_n_day_low", "amount_n_day_high", "amount_n_day_low", "turnover_n_day_high", "turnover_n_day_low",
    "n_day_high_gap", "n_day_low_gap",
    "ma_rising", "ma_falling", *sorted(ALL_TIME_TECHNICALS),
)  # fmt: skip
# kinds compared with a percent by their operator: an MA's gap, the distance below (above) an N-day high (low)
PERCENT_GAP_KINDS = ("ma_gap", "n_day_high_gap", "n_day_low_gap")
SCOPE_KINDS = (
    "exchange",
    "board",
    "industry",
    "industry_group",
    "index",
    "stock",
    "area",
    "list_date",
    "listed_years",
    "name_marker",
)


def _node(label: str, *children: Node | None, **fields: Any) -> Node:
    node: Node = {"label": label, "children": [child for child in children if child is not None]}
    node.update(fields)
    return node


def _number(value: float | int, **fields: Any) -> Node:
    number: float | int = int(value) if float(value).is_integer() else float(value)
    return _node("value:number", value=number, **{k: v for k, v in fields.items() if v})


def _date(value: date) -> Node:
    return _node("value:date", value=value.isoformat())


# --- Screen → QST -----------------------------------------------------------------------------


def time_node(spec: TimeSpec) -> Node:
    values: list[Node] = []
    if spec.day is not None:
        values.append(_date(spec.day))
    if spec.end_day is not None:
        values.append(_date(spec.end_day))
    if spec.n is not None:
        values.append(_number(spec.n))
    if spec.year is not None:
        values.append(_node("value:year", value=spec.year))
    if spec.month is not None:
        values.append(_node("value:month", value=spec.month))
    if spec.quarter is not None:
        values.append(_node("value:quarter", value=spec.quarter))
    return _node(f"time:{spec.label}", *values)


def condition_node(condition: Condition) -> Node:
    if isinstance(condition, Compare):
        values = [_number(condition.value, text=condition.text)]
        if condition.value2 is not None:
            values.append(_number(condition.value2))
        if condition.other is not None and condition.other_time is None and not condition.value:
            values = [_node(f"attribute:{condition.other}")]
        elif condition.other is not None:  # the other side has a time of its own, or a difference
            other_time = time_node(condition.other_time) if condition.other_time else None
            values = [_node("versus", _node(f"attribute:{condition.other}"), other_time), *values]
        return _node(
            "condition:compare",
            _node(f"attribute:{condition.metric}"),
            _node(f"operator:{condition.op}"),
            *values,
            time_node(condition.time) if condition.time else None,
            _node(f"window:{condition.agg}") if condition.agg else None,
            _node("filter", condition_node(condition.where)) if condition.where else None,
            _node("relation:ratio") if condition.ratio else None,
        )
    if isinstance(condition, Technical):
        factor = _number(condition.factor) if condition.factor is not None else None
        own_day = time_node(condition.time) if condition.time else None
        operator = _node(f"operator:{condition.op}") if condition.op else None
        return _node(f"technical:{condition.kind}", _number(condition.n), factor, own_day, operator)
    if isinstance(condition, GrowthStreak):
        return _node(
            "fundamental:growth_streak",
            _node(f"attribute:{condition.metric}"),
            _node(f"direction:{condition.direction}"),
            _node(f"period:{condition.period}"),
            _number(condition.years),
            time_node(condition.time) if condition.time else None,
        )
    if isinstance(condition, LossToProfit):
        own_period = time_node(condition.time) if condition.time else None
        return _node("fundamental:loss_to_profit", _node(f"attribute:{condition.metric}"), own_period)
    if isinstance(condition, VersusGroup):
        return _node(
            "condition:versus_group",
            _node(f"attribute:{condition.metric}"),
            _node(f"operator:{condition.op}"),
            _node(f"aggregate:{condition.fn}"),
            _node(f"dimension:{condition.dimension}") if condition.dimension else None,
            time_node(condition.time) if condition.time else None,
            _where_node(condition.within),
            _node("factor", _number(condition.factor)) if condition.factor != 1 else None,
            _node("margin", _number(condition.margin)) if condition.margin else None,
        )
    if isinstance(condition, Frequency):
        return _node(
            "condition:frequency",
            condition_node(condition.item),
            _node(f"operator:{condition.op}"),
            _number(condition.count) if condition.op != "every" else None,
            time_node(condition.time) if condition.time else None,
        )
    if isinstance(condition, TopSubset):
        return _node(
            "condition:top",
            _order_node(condition.order),
            _number(condition.n),
            _where_node(condition.within),
            _node("group", _node(f"dimension:{condition.per_group}")) if condition.per_group else None,
        )
    if isinstance(condition, Sustained):
        return _node(
            "condition:sustained", condition_node(condition.compare), _node(f"period:{condition.period}"),
            _number(condition.n),
        )  # fmt: skip
    if isinstance(condition, Scope):
        kind = "industry_group" if condition.kind == "group" else condition.kind
        children: list[Node] = []
        if condition.kind in {"list_date", "listed_years"}:
            children.append(_node(f"operator:{condition.op}"))
            if condition.day is not None:
                children.append(_date(condition.day))
            if condition.number is not None:
                children.append(_number(condition.number))
        else:
            children.extend(_node(f"value:entity:{kind}", value=value) for value in condition.values)
            if condition.time is not None:  # index membership at a time of its own
                children.append(time_node(condition.time))
            if condition.op == "any":
                children.append(_node("operator:any"))
        return _node(f"scope:{kind}", *children)
    if isinstance(condition, BoolOp):
        return _node(f"bool:{condition.op}", *sorted_nodes(condition_node(item) for item in condition.items))
    if isinstance(condition, Not):
        return _node("bool:not", condition_node(condition.item))
    raise QstError(f"unknown condition {condition!r}")


def _where_node(conditions: tuple[Condition, ...]) -> Node | None:
    """The conditions a subquery keeps (the stocks a ranking or an average is taken among)."""
    return _node("where", *sorted_nodes(condition_node(c) for c in conditions)) if conditions else None


def sorted_nodes(nodes: Any) -> list[Node]:
    return sorted(nodes, key=lambda node: json.dumps(node, sort_keys=True, ensure_ascii=False))


def _order_node(order: Order) -> Node:
    children: list[Node | None] = []
    if order.metric.startswith("agg:"):
        _prefix, fn, metric = order.metric.split(":", 2)
        children.append(_node(f"aggregate:{fn}", _node(f"attribute:{metric}") if metric else None))
    else:
        children.append(_node(f"attribute:{order.metric}"))
    children.append(time_node(order.time) if order.time else None)
    children.append(_node(f"window:{order.agg}") if order.agg else None)
    if order.other_time is not None:  # ranked by the change since the other time
        percent = _node("change:percent") if order.percent_change else None
        children.append(
            _node("versus", _node(f"attribute:{order.metric}"), time_node(order.other_time), percent)
        )
    return _node(f"order:{order.direction}", *children)


def screen_to_qst(screen: Screen) -> Node:
    returned: list[Node] = []
    if not screen.aggregates or screen.per_group_limit:
        returned.append(_node("entity:stock"))
    for aggregate in screen.aggregates:
        returned.append(
            _node(
                f"aggregate:{aggregate.fn}",
                _node(f"attribute:{aggregate.metric}") if aggregate.metric else None,
                _node("filter", condition_node(aggregate.where)) if aggregate.where else None,
            )
        )
    returned.extend(_node(f"attribute:{metric}") for metric in screen.outputs)
    returned.extend(
        _node(f"figure:{figure.window}", _node(f"attribute:{figure.metric}"),
              time_node(figure.time) if figure.time else None)
        for figure in screen.figures
    )  # fmt: skip
    if screen.daily_values:
        returned.append(_node("values:daily"))
    if screen.display_unit is not None:
        returned.append(_node("display_unit", _number(screen.display_unit)))
    children: list[Node | None] = [_node("return", *returned), time_node(screen.time)]
    if screen.where:
        children.append(_node("where", *sorted_nodes(condition_node(c) for c in screen.where)))
    if screen.group_by:
        children.append(_node("group", _node(f"dimension:{screen.group_by}")))
    if screen.having:
        children.append(_node("having", *sorted_nodes(condition_node(c) for c in screen.having)))
    if screen.order:
        children.append(_order_node(screen.order))
    if screen.limit is not None:
        children.append(_node("limit", _number(screen.limit)))
    if screen.per_group_limit is not None:
        children.append(_node("limit:per_group", _number(screen.per_group_limit)))
    return _node("select", *children)


# --- QST → Screen -----------------------------------------------------------------------------


def _kind(node: Node) -> tuple[str, str]:
    label = node.get("label")
    if not isinstance(label, str) or not label:
        raise QstError(f"node without a label: {node!r}")
    head, _sep, rest = label.partition(":")
    return head, rest


def _children(node: Node) -> list[Node]:
    children = node.get("children", [])
    if not isinstance(children, list) or not all(isinstance(child, dict) for child in children):
        raise QstError(f"children of {node.get('label')!r} must be a list of nodes")
    return children


def _values(node: Node, label: str) -> list[Any]:
    return [child.get("value") for child in _children(node) if child.get("label") == label]


def _one(node: Node, prefix: str) -> str:
    for child in _children(node):
        head, rest = _kind(child)
        if head == prefix:
            return rest
    raise QstError(f"{node['label']} needs a {prefix}: child")


def _optional(node: Node, prefix: str) -> str | None:
    for child in _children(node):
        head, rest = _kind(child)
        if head == prefix:
            return rest
    return None


def _as_number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise QstError(f"{where} needs a number value, got {value!r}")
    return float(value)


def _as_date(value: Any, where: str) -> date:
    try:
        return date.fromisoformat(str(value))
    except ValueError as error:
        raise QstError(f"{where} needs an ISO date value, got {value!r}") from error


def time_from_node(node: Node) -> TimeSpec:
    _head, label = _kind(node)
    if label not in TIME_LABELS:
        raise QstError(f"unknown time scope {label!r}")
    dates = [_as_date(value, node["label"]) for value in _values(node, "value:date")]
    numbers = [_as_number(value, node["label"]) for value in _values(node, "value:number")]

    def first_int(child_label: str) -> int | None:
        found = _values(node, child_label)
        return int(_as_number(found[0], node["label"])) if found else None

    spec = TimeSpec(
        label=label,
        day=dates[0] if dates else None,
        end_day=dates[1] if len(dates) > 1 else None,
        n=int(numbers[0]) if numbers else None,
        year=first_int("value:year"),
        month=first_int("value:month"),
        quarter=first_int("value:quarter"),
    )
    required = {"date": spec.day, "date_range": spec.end_day, "since": spec.day, "year": spec.year,
                "month": spec.month, "period_end": spec.month, "period_start": spec.month,
                "half": spec.year and spec.month}  # fmt: skip
    if label in required and required[label] is None:
        raise QstError(f"time:{label} is missing its value")
    if label == "half" and spec.month not in HALF_YEAR_ENDS:
        raise QstError("time:half ends in month 6 (the first half) or 12 (the second)")
    if label.startswith("recent_") and (spec.n is None or spec.n < 1):
        raise QstError(f"time:{label} needs a positive number")
    return spec


def _filter_child(node: Node) -> Condition | None:
    """The condition under a node's `filter` child (the stocks an aggregate is taken over), if any."""
    filters = [c for child in _children(node) if child.get("label") == "filter" for c in _children(child)]
    if len(filters) > 1:
        raise QstError(f"{node.get('label')} takes at most one filter")
    return condition_from_node(filters[0]) if filters else None


def condition_from_node(node: Node) -> Condition:
    head, kind = _kind(node)
    if head == "condition" and kind == "compare":
        op = _one(node, "operator")
        if op not in OPERATORS:
            raise QstError(f"unknown operator {op!r}")
        numbers = [_as_number(value, "condition:compare") for value in _values(node, "value:number")]
        attributes = [_kind(child)[1] for child in _children(node) if _kind(child)[0] == "attribute"]
        if len(attributes) == 2 and not numbers:  # 收盘价高于开盘价, on the condition's own day if any
            return Compare(
                attributes[0],
                op,
                0.0,
                other=attributes[1],
                time=_time_child(node),
                agg=_optional(node, "window"),
            )
        if not numbers or (op == "between" and len(numbers) < 2):
            raise QstError("condition:compare is missing its value")
        texts = [child.get("text", "") for child in _children(node) if child.get("label") == "value:number"]
        versus = [child for child in _children(node) if child.get("label") == "versus"]
        if versus:  # (attribute at time) − (other at its time) OP value
            return Compare(
                _one(node, "attribute"),
                op,
                numbers[0],
                other=_one(versus[0], "attribute"),
                time=_time_child(node),
                agg=_optional(node, "window"),
                text=str(texts[0] or ""),
                other_time=_time_child(versus[0]),
                ratio=any(child.get("label") == "relation:ratio" for child in _children(node)),
            )
        return Compare(
            metric=_one(node, "attribute"),
            op=op,
            value=numbers[0],
            value2=numbers[1] if op == "between" else None,
            time=_time_child(node),
            agg=_optional(node, "window"),
            text=str(texts[0] or ""),
            where=_filter_child(node),
        )
    if head == "condition" and kind == "sustained":
        inner = [child for child in _children(node) if child.get("label") == "condition:compare"]
        counts = [_as_number(value, node["label"]) for value in _values(node, "value:number")]
        period = _optional(node, "period") or "year"
        if len(inner) != 1 or not counts or counts[0] < 1 or period not in {"year", "report", "day"}:
            raise QstError("condition:sustained needs one comparison, a period and a positive count")
        compare = condition_from_node(inner[0])
        assert isinstance(compare, Compare)
        return Sustained(compare=compare, n=int(counts[0]), period=period)
    if head == "technical":
        if kind not in TECHNICAL_KINDS:
            raise QstError(f"unknown technical condition {kind!r}")
        numbers = [_as_number(value, node["label"]) for value in _values(node, "value:number")]
        if not numbers or numbers[0] < (0 if kind in ALL_TIME_TECHNICALS else 1):
            raise QstError(f"technical:{kind} needs a positive window length")
        factor = numbers[1] if len(numbers) > 1 else None
        gap_op = _optional(node, "operator")
        if kind in PERCENT_GAP_KINDS and (factor is None or gap_op not in OPS_ORDERED):
            raise QstError(f"technical:{kind} needs the percent and an operator (<, <=, >, >=)")
        return Technical(kind=kind, n=int(numbers[0]), factor=factor, time=_time_child(node), op=gap_op)
    if head == "fundamental" and kind == "growth_streak":
        numbers = [_as_number(value, node["label"]) for value in _values(node, "value:number")]
        if not numbers or numbers[0] < 1:
            raise QstError("fundamental:growth_streak needs a positive number of years")
        return GrowthStreak(
            metric=_one(node, "attribute"),
            years=int(numbers[0]),
            direction=_optional(node, "direction") or "up",
            period=_optional(node, "period") or "year",
            time=_time_child(node),
        )
    if head == "fundamental" and kind == "loss_to_profit":
        return LossToProfit(metric=_one(node, "attribute"), time=_time_child(node))
    if head == "condition" and kind == "versus_group":
        op = _one(node, "operator")
        fn = _one(node, "aggregate")
        if op not in OPS_ORDERED or fn not in {"avg", "median"}:
            raise QstError("condition:versus_group compares (<, <=, >, >=) with a group's avg or median")
        factor, margin = (_scaling(node, name) for name in ("factor", "margin"))
        return VersusGroup(
            _one(node, "attribute"),
            op,
            _optional(node, "dimension"),
            fn,
            _time_child(node),
            _within(node),
            1.0 if factor is None else factor,
            margin or 0.0,
        )
    if head == "condition" and kind == "frequency":
        op = _one(node, "operator")
        inner = [child for child in _children(node) if _kind(child)[0] in CONDITION_HEADS]
        counts = [_as_number(value, node["label"]) for value in _values(node, "value:number")]
        if op not in FREQUENCY_OPERATORS or len(inner) != 1 or (op != "every" and not counts):
            raise QstError("condition:frequency needs one condition, an operator and a count (or every)")
        count = int(counts[0]) if counts else 0
        return Frequency(condition_from_node(inner[0]), op, count, _time_child(node))
    if head == "condition" and kind == "top":
        orders = [child for child in _children(node) if _kind(child)[0] == "order"]
        counts = [_as_number(value, node["label"]) for value in _values(node, "value:number")]
        if len(orders) != 1 or not counts or counts[0] < 1:
            raise QstError("condition:top needs one order and a positive count")
        groups = [child for child in _children(node) if child.get("label") == "group"]
        return TopSubset(
            order=order_from_node(orders[0]),
            n=int(counts[0]),
            within=_within(node),
            per_group=_one(groups[0], "dimension") if groups else None,
        )
    if head == "scope":
        if kind not in SCOPE_KINDS:
            raise QstError(f"unknown scope {kind!r}")
        if kind in {"list_date", "listed_years"}:
            dates = _values(node, "value:date")
            numbers = _values(node, "value:number")
            return Scope(
                kind=kind,
                op=_one(node, "operator"),
                day=_as_date(dates[0], node["label"]) if dates else None,
                number=_as_number(numbers[0], node["label"]) if numbers else None,
            )
        values = tuple(str(value) for value in _values(node, f"value:entity:{kind}"))
        if not values:
            raise QstError(f"scope:{kind} has no value")
        time = _time_child(node)
        any_snapshot = any(child.get("label") == "operator:any" for child in _children(node))
        if (time is not None or any_snapshot) and kind != "index":
            raise QstError(f"only an index scope has a time of its own, not scope:{kind}")
        if any_snapshot and (time is None or time.is_single_day):
            raise QstError("scope:index with operator:any needs a window (at some point during 2025)")
        return Scope(
            kind="group" if kind == "industry_group" else kind,
            values=values,
            op="any" if any_snapshot else "in",
            time=time,
        )
    if head == "bool":
        items = tuple(condition_from_node(child) for child in _children(node))
        if kind == "not":
            if len(items) != 1:
                raise QstError("bool:not takes exactly one child")
            return Not(items[0])
        if kind in {"and", "or"} and items:
            return BoolOp(kind, items)
    raise QstError(f"unknown condition node {node.get('label')!r}")


def _scaling(node: Node, label: str) -> float | None:
    """The number under a `factor` / `margin` child of a versus_group condition, if any."""
    for child in _children(node):
        if child.get("label") == label:
            numbers = _values(child, "value:number")
            if len(numbers) != 1:
                raise QstError(f"{label} needs one number")
            return _as_number(numbers[0], label)
    return None


def _within(node: Node) -> tuple[Condition, ...]:
    wheres = [child for child in _children(node) if child.get("label") == "where"]
    return tuple(condition_from_node(item) for where in wheres for item in _children(where))


def _time_child(node: Node) -> TimeSpec | None:
    times = [child for child in _children(node) if _kind(child)[0] == "time"]
    return time_from_node(times[0]) if times else None


def order_from_node(node: Node) -> Order:
    direction = _kind(node)[1]
    if direction not in {"asc", "desc"}:
        raise QstError(f"order must be asc or desc, got {direction!r}")
    metric = _optional(node, "attribute")
    group_aggs = [c for c in _children(node) if _kind(c)[0] == "aggregate"]
    if group_aggs:
        metric = f"agg:{_kind(group_aggs[0])[1]}:{_optional(group_aggs[0], 'attribute') or ''}"
    if metric is None:
        raise QstError("order needs an attribute or an aggregate")
    versus = [child for child in _children(node) if child.get("label") == "versus"]
    return Order(
        metric=metric,
        direction=direction,
        time=_time_child(node),
        agg=_optional(node, "window"),
        other_time=_time_child(versus[0]) if versus else None,
        percent_change=bool(versus) and any(c.get("label") == "change:percent" for c in _children(versus[0])),
    )


def qst_to_screen(qst: Node) -> Screen:
    if _kind(qst) != ("select", ""):
        raise QstError("the root of a QST must be the select node")
    screen = Screen()
    for child in _children(qst):
        head, rest = _kind(child)
        if head == "return":
            for item in _children(child):
                item_head, item_rest = _kind(item)
                if item_head == "attribute":
                    screen.outputs.append(item_rest)
                elif item_head == "figure":
                    if item_rest not in FIGURE_WINDOWS:
                        raise QstError(f"unknown figure window {item_rest!r}; choose from {FIGURE_WINDOWS}")
                    metric = _optional(item, "attribute")
                    if metric is None:
                        raise QstError(f"figure:{item_rest} needs an attribute")
                    screen.figures.append(Figure(metric, item_rest, _time_child(item)))
                elif item_head == "aggregate":
                    if item_rest not in AGGREGATES:
                        raise QstError(f"unknown aggregate {item_rest!r}")
                    filters = [c for child in _children(item) if child.get("label") == "filter"
                               for c in _children(child)]  # fmt: skip
                    if len(filters) > 1 or (item_rest == "share" and not filters):
                        raise QstError(f"aggregate:{item_rest} takes at most one filter (share needs one)")
                    where = condition_from_node(filters[0]) if filters else None
                    screen.aggregates.append(Aggregate(item_rest, _optional(item, "attribute"), where))
                elif item_head == "values":
                    screen.daily_values = item_rest == "daily"
                elif item_head == "display_unit":
                    units = _values(item, "value:number")
                    if not units or _as_number(units[0], "display_unit") <= 0:
                        raise QstError("display_unit needs a positive number")
                    screen.display_unit = float(units[0])
                elif item_head != "entity":
                    raise QstError(f"unexpected node {item['label']!r} under return")
        elif head == "time":
            screen.time = time_from_node(child)
        elif head == "where":
            screen.where = [condition_from_node(item) for item in _children(child)]
        elif head == "having":
            for item in _children(child):
                condition = condition_from_node(item)
                if isinstance(condition, VersusGroup) and condition.dimension is None:
                    screen.having.append(condition)  # the group's average against the whole set's
                elif isinstance(condition, Compare) and condition.agg is not None:
                    screen.having.append(condition)
                else:
                    raise QstError(
                        "having takes comparisons of aggregates (with a window: node), or a versus_group "
                        "without a dimension (the group's average against the whole set's)"
                    )
        elif head == "group":
            screen.group_by = _one(child, "dimension")
        elif head == "order":
            screen.order = order_from_node(child)
        elif head == "limit":
            numbers = _values(child, "value:number")
            if not numbers or _as_number(numbers[0], "limit") < 1:
                raise QstError("limit needs a positive number")
            if rest == "per_group":
                screen.per_group_limit = int(numbers[0])
            else:
                screen.limit = int(numbers[0])
        else:
            raise QstError(f"unexpected node {child.get('label')!r} under select")
    return screen


# --- JSON, validation, distance ---------------------------------------------------------------


def validate_qst(qst: Any) -> Node:
    """Return the QST if it follows the format (a full round trip through the typed form)."""
    if not isinstance(qst, dict):
        raise QstError("a QST must be a JSON object")
    qst_to_screen(qst)
    return qst


def qst_to_json(qst: Node) -> str:
    return json.dumps(qst, ensure_ascii=False, sort_keys=True)


def qst_from_json(text: str) -> Node:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise QstError(f"not valid JSON: {error}") from error
    return validate_qst(data)


def _label_distance(first: str, second: str) -> int:
    return 0 if first == second else 1


def qst_distance(first: Node, second: Node) -> int:
    """Zhang–Shasha tree edit distance with unit costs; literals (`value`) are ignored."""
    return int(
        zss.simple_distance(
            first,
            second,
            get_children=lambda node: node.get("children", []),
            get_label=lambda node: node["label"],
            label_dist=_label_distance,
        )
    )
