"""A reverse check as a tree for the paradigm library (issue 10 item 5).

A rule writes its check from a few inputs: the question's reading (day or report period, filters,
scopes, ranking, aggregate, groups, the metrics asked), the stocks the answer returned (r0's codes),
and the database. `describe(check, nth, subject)` writes exactly the inputs the check's rule reads as
a tree in the QST's node format: names that shape the SQL (columns, tables, sides, the rule) are
labels, the values the SQL compares with are value nodes. The root's label is `reverse:<rule>`, and
the library keeps reverse trees apart from question QSTs (paradigm kind), so a reverse paradigm never
matches a question. Two checks whose trees differ only in literals thus have SQL that differs only in
those literals, which the template's slots carry (the returned stocks as one list slot).

A rule missing from `RULE_INPUTS` is not described (its checks are written as always, never
recorded); a rule reading an input it does not list here would be caught by the record, where a
paradigm holds a check only when its filled template is the SQL the rule wrote (reuse.py).
`describe_llm` writes the tree the LLM writer's checks are stored and found under.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from backend.domain.labelled_tree import Node, QstError
from backend.domain.paradigms.trees import to_tree
from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.validate.reverse.model import ReverseCheck
from backend.domain.pipeline.validate.reverse.reading import Reading
from backend.domain.pipeline.validate.reverse.subject import Subject

Input = Literal["when", "filters", "scopes", "ranking", "aggregate", "groups", "asked", "codes"]

# What each rule's SQL is written from (besides the database).
RULE_INPUTS: dict[str, frozenset[Input]] = {
    "filter_violation": frozenset({"when", "filters", "codes"}),
    "missing": frozenset({"when", "filters", "scopes", "codes"}),
    "top_k": frozenset({"when", "filters", "scopes", "ranking", "codes"}),
    "scope": frozenset({"when", "scopes", "codes"}),
    "time_scope": frozenset({"when"}),
    "aggregate": frozenset({"when", "filters", "scopes", "aggregate", "groups"}),
    "count": frozenset({"when", "filters", "scopes"}),
    "duplicates": frozenset({"codes"}),
    "lookup": frozenset({"scopes"}),
    "lookup_values": frozenset({"when", "scopes", "asked"}),
}
ROOT_PREFIX = "reverse:"
LLM_RULE = "llm"  # the rule of the checks the LLM's reverse-question writer writes (llm_checks.py)


def _node(label: str, *children: Node, **value: object) -> Node:
    node: Node = {"label": label, "children": list(children)}
    node.update(value)
    return node


def _when(reading: Reading) -> Node:
    when = reading.when
    if when is None:
        return _node("time:unread")
    if when.day is None:
        return _node("time:latest")
    return _node(
        "time:period" if when.period else "time:day", _node("value:date", value=when.day.isoformat())
    )


def _filters(reading: Reading) -> Node:
    return _node(
        "where",
        *(
            _node(
                f"filter:{item.table}.{item.column}:{'above' if item.above else 'below'}",
                _node("value:number", value=item.value),
            )
            for item in reading.filters
        ),
    )


def _scopes(reading: Reading) -> list[Node]:
    return [
        _node(
            f"scope:{scope.column}{':not' if scope.negated else ''}",
            *(_node(f"value:entity:{scope.column}", value=value) for value in scope.values),
        )
        for scope in reading.scopes
    ]


def _codes(subject: Subject) -> Node:
    """The stocks returned, as the rules write them (sorted, distinct), under a label saying how many
    there are against what the question asks: the rules write other SQL for none, and for a top k
    answered in full or not."""
    codes = subject.codes
    if codes is None:
        return _node("answer:no_codes")
    if not codes:
        return _node("answer:empty")
    ranking = subject.reading.ranking
    returned = sorted(set(codes))
    size = "" if ranking is None else (":top_k_full" if len(returned) >= ranking.k else ":top_k_short")
    return _node(f"answer:codes{size}", _node("value:codes", value=returned))


def _groups(subject: Subject) -> list[Node]:
    group = subject.reading.group
    if group is None:
        return []
    column = subject.result.columns.index(group) if group in subject.result.columns else None
    values = (
        sorted({str(row[column]) for row in subject.result.rows if isinstance(row[column], str)})
        if column is not None
        else []
    )
    return [_node(f"group:{group}", *([_node("value:groups", value=values)] if values else []))]


def describe(check: ReverseCheck, nth: int, subject: Subject) -> Node | None:
    """The tree of `check`, the `nth` (from 0) check its rule wrote for this answer; None when the
    rule is not described here."""
    inputs = RULE_INPUTS.get(check.rule)
    if inputs is None:
        return None
    reading = subject.reading
    children: list[Node] = [_node(f"check:{nth}"), _node(f"database:{subject.database}")]
    if "when" in inputs:
        children.append(_when(reading))
    if "filters" in inputs:
        children.append(_filters(reading))
    if "scopes" in inputs:
        children += _scopes(reading)
    if "ranking" in inputs and reading.ranking is not None:
        ranking = reading.ranking
        order = "desc" if ranking.descending else "asc"
        children.append(_node(f"ranking:{ranking.table}.{ranking.column}:{order}:top{ranking.k}"))
    if "aggregate" in inputs and reading.aggregate is not None:
        aggregate = reading.aggregate
        children.append(_node(f"aggregate:{aggregate.function.value}:{aggregate.table}.{aggregate.column}"))
    if "groups" in inputs:
        children += _groups(subject)
    if "asked" in inputs:
        children += [_node(f"asked:{table}.{column}") for column, table in reading.asked]
    if "codes" in inputs:
        children.append(_codes(subject))
    return _node(f"{ROOT_PREFIX}{check.rule}", *children)


def describe_llm(qst: Mapping[str, object], r0: ResultRows, database: str, nth: int) -> Node:
    """The tree of the `nth` check the LLM's reverse-question writer writes for an answer: what it is
    given that shapes its checks — the question's reading (the QST, whose literals are value nodes), the
    answer's columns and whether it has no row, one or several, the database. Known before the writer
    is asked, so that a stored set of checks can stand in for it (llm_checks.py). The answer's values
    are not in the tree: a check whose SQL holds one is never stored."""
    rows = "none" if not r0.rows else "one" if len(r0.rows) == 1 else "several"
    return _node(
        f"{ROOT_PREFIX}{LLM_RULE}",
        _node(f"check:{nth}"),
        _node(f"database:{database}"),
        _node(f"answer:rows:{rows}"),
        _node("answer:columns", *(_node(f"column:{column}") for column in r0.columns)),
        dict(qst),
    )


def validate_reverse_tree(tree: object) -> Node:
    """The tree if it is a reverse check's — root `reverse:<rule>` of a described rule or of the LLM's
    checks, nodes in the
    QST's format — or QstError saying why not."""
    if not isinstance(tree, dict):
        raise QstError("a reverse check's tree must be a JSON object")
    label = tree.get("label")
    if not isinstance(label, str) or not label.startswith(ROOT_PREFIX):
        raise QstError(f"a reverse check's tree has a `{ROOT_PREFIX}<rule>` root, not {label!r}")
    if label.removeprefix(ROOT_PREFIX) not in {*RULE_INPUTS, LLM_RULE}:
        raise QstError(f"no reverse rule is described as {label!r}")
    to_tree(tree)  # every node has a label and a list of children
    return tree
