"""Adapting a matched paradigm's SQL to a new question (issue 10 item 3).

Slot filling first (`fill_template`: deterministic, no model). When it refuses — the QSTs differ in
more than literals, or a value is held in a derived form — and an adapter is configured (the LLM's
paradigm-adapter role, only when LLM_PROVIDER is not builtin), the adapter rewrites the paradigm's SQL
from the listed differences. Either way the SQL must pass the read-only guard here; the pipeline then
validates it like any generated SQL.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

from backend.domain.language.llm.errors import LlmError
from backend.domain.language.qst import Node
from backend.domain.language.translation import LlmCall
from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import check_read_only
from backend.domain.paradigms.templates import SqlTemplate, TemplateMismatch, fill_template
from backend.domain.paradigms.trees import preorder, to_tree

# (new question, paradigm question, paradigm SQL, differences, the list its LLM calls go to) → SQL
SqlAdapter = Callable[[str, str, str, Sequence[str], list[LlmCall]], str]
How = Literal["filled", "llm"]


class NotAdapted(ValueError):
    """The paradigm could not be adapted to the question (the message says why)."""


class AdapterFailed(NotAdapted):
    """The adapter itself failed (endpoint error, garbage, timeout); `calls` are its LLM calls."""

    def __init__(self, message: str, calls: Sequence[LlmCall]) -> None:
        super().__init__(message)
        self.calls = tuple(calls)


@dataclass(frozen=True)
class Adaptation:
    sql: str
    how: How
    llm_calls: tuple[LlmCall, ...] = ()


def source_sql(template: SqlTemplate) -> str:
    """The paradigm's own SQL (the template filled with its own QST, on the day it was resolved)."""
    return fill_template(template, template.source_qst, market_day=template.resolved_on)


def _node_text(label: str, literal: str | None) -> str:
    return label if literal is None else f"{label} = {literal}"


def qst_differences(source: Node, target: Node) -> list[str]:
    """The edits from the paradigm's QST to the question's, read off the two canonical preorders:
    one line per changed, inserted or removed node (what the adapter role is told to change)."""
    before = [_node_text(node.label, node.literal) for node in preorder(to_tree(source))]
    after = [_node_text(node.label, node.literal) for node in preorder(to_tree(target))]
    lines: list[str] = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lines += [f"paradigm has {text}" for text in before[i1:i2]]
        if tag in ("replace", "insert"):
            lines += [f"question has {text}" for text in after[j1:j2]]
    return lines


def _guarded(adaptation: Adaptation) -> Adaptation:
    try:
        check_read_only(adaptation.sql)
    except QueryRejected as error:
        raise NotAdapted(f"the adapted SQL is refused: {error}") from error
    return adaptation


def adapt(
    template: SqlTemplate,
    qst: Node,
    *,
    question: str,
    paradigm_question: str,
    market_day: date | None,
    adapter: SqlAdapter | None = None,
) -> Adaptation:
    """The paradigm's SQL for `qst`; NotAdapted when neither slot filling nor the adapter can give
    SQL the guard accepts."""
    try:
        return _guarded(Adaptation(fill_template(template, qst, market_day=market_day), "filled"))
    except TemplateMismatch as mismatch:
        if adapter is None:
            raise NotAdapted(f"slot filling refused: {mismatch}") from mismatch
    differences = qst_differences(template.source_qst, qst)
    calls: list[LlmCall] = []
    try:
        sql = adapter(question, paradigm_question, source_sql(template), differences, calls)
    except LlmError as error:
        raise AdapterFailed(str(error), calls) from error
    return _guarded(Adaptation(sql, "llm", tuple(calls)))
