"""SQL templates with typed slots tied to QST value nodes.

`extract_template(qst, sql)` finds where the question's literals (value nodes of the QST) appear in
the SQL and replaces each such literal by a ClickHouse query parameter `{slot_N:Type}`, so the template
is itself valid parameterised SQL. `fill_template(template, qst)` renders the SQL for another QST with
the same structure (literal-only differences), or raises TemplateMismatch saying why it cannot.

A literal is bound to a value node only where the SQL *compares* or *limits* with it (operand of
=, <, >, …, BETWEEN, IN, LIMIT, possibly inside a unary conversion such as toDate or a minus sign).
A 6 in `round(x, 6)` or a 100 in `* 100` is never a slot. When the same literal is compared with
different expressions (`pe < 4` and `count() = 4`), the binding is ambiguous and is dropped; so is
any binding into an IN list that holds literals the QST does not explain.

Filling refuses rather than guesses:
- the new QST's structure differs (its shape signature is not the template's);
- a value changed that no slot carries (the SQL holds it in a derived form: 三年 → four report dates);
- two value nodes share one slot (same literal) and now differ;
- a changed literal names an output column (`n_income_attr_p_2023`): the filled SQL would label the
  new year's figures with the old year;
- a time-bearing value changed (a date, a year, a window length) while the SQL holds dates no slot
  explains: those were derived from the time scope (a day before a range, the start of an N-bar
  window) and would silently keep their old values;
- the SQL holds such dates and the market day is not the one they were resolved on ("today" moved).

A value node whose literal is a list of texts (`value:codes`, the stocks an answer returned, in a
reverse check's tree) is bound to every IN list of the SQL holding exactly those texts in that order:
the whole parenthesised list becomes one `{slot_N:Array(String)}` slot. When a single value node also
matches a member of such a list, the list could be either one's: neither is bound.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

import sqlglot
from sqlglot import exp

from backend.domain.language.qst import Node
from backend.domain.market.guard import DIALECT
from backend.domain.market.literals import string_list, string_literal
from backend.domain.paradigms.trees import (
    Path,
    canonical_qst,
    literal_key,
    node_at,
    shape_signature,
    value_nodes,
)

SlotKind = Literal["number", "string", "date", "year_of_date", "string_list"]
_PLACEHOLDER = re.compile(r"\{(slot_\d+):([\w()]+)\}")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# A year is recognised inside a date only at a year or quarter boundary: valid for every year.
_YEAR_DATE_SUFFIXES = ("-01-01", "-03-31", "-06-30", "-09-30", "-12-31")
_TIME_BEARING_VALUES = frozenset({"value:date", "value:year", "value:month", "value:quarter"})
_TIME_BEARING_PARENTS = frozenset({"time", "technical"})
_TIME_BEARING_CONDITIONS = frozenset({"condition:sustained", "fundamental:growth_streak"})
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_PLACEHOLDER_TYPES: dict[SlotKind, str] = {
    "number": "Float64",
    "string": "String",
    "date": "Date",
    "year_of_date": "Date",
    "string_list": "Array(String)",
}


class TemplateError(ValueError):
    """A template cannot be extracted from this SQL."""


class TemplateMismatch(ValueError):
    """The template cannot be filled from this QST (the message says why)."""


@dataclass(frozen=True)
class Slot:
    """One literal of the SQL, filled from the value node(s) at `paths` of the canonical QST."""

    name: str
    kind: SlotKind
    paths: tuple[Path, ...]
    original: str  # the literal as the SQL wrote it, kept verbatim while its value is unchanged
    negated: bool = False  # the literal sits under a unary minus
    date_suffix: str = ""  # year_of_date: the month and day kept around the year
    names_output: bool = False  # an output column is named after the literal (n_income_attr_p_2023)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "paths": [list(path) for path in self.paths],
            "original": self.original,
            "negated": self.negated,
            "date_suffix": self.date_suffix,
            "names_output": self.names_output,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Slot:
        return cls(
            name=str(data["name"]),
            kind=data["kind"],
            paths=tuple(tuple(int(index) for index in path) for path in data["paths"]),
            original=str(data["original"]),
            negated=bool(data.get("negated", False)),
            date_suffix=str(data.get("date_suffix", "")),
            names_output=bool(data.get("names_output", False)),
        )


@dataclass(frozen=True)
class SqlTemplate:
    text: str  # the SQL with {slot_N:Type} in place of the bound literals
    slots: tuple[Slot, ...]
    source_qst: Node  # canonical QST the template was extracted from
    fixed_dates: tuple[str, ...]  # ISO dates of the SQL that no slot explains
    resolved_on: date | None  # market day the SQL's dates were resolved on

    @property
    def shape(self) -> str:
        return shape_signature(self.source_qst)

    def bound_paths(self) -> set[Path]:
        return {path for slot in self.slots for path in slot.paths}


@dataclass(frozen=True)
class _Occurrence:
    start: int
    end: int  # inclusive, as sqlglot reports it
    literal: exp.Literal
    negated: bool
    compared_with: str
    in_list: int | None  # identifies the IN list the literal is a member of


def _is_unary_wrapper(node: exp.Expr, child: exp.Expr) -> bool:
    """A node that only converts its one operand: -x, (x), CAST(x AS T), toDate(x)."""
    if isinstance(node, exp.Neg | exp.Paren | exp.Cast):
        return True
    if isinstance(node, exp.Func):
        operands = [value for value in node.args.values() if isinstance(value, exp.Expr)]
        listed = [item for value in node.args.values() if isinstance(value, list) for item in value]
        return operands + listed == [child]
    return False


def _unqualified(expression: exp.Expr) -> str:
    """SQL of an expression with table qualifiers dropped: `db.trade_date` and `d.trade_date` are one
    column for the question, read from two subqueries."""
    copy = expression.copy()
    for column in copy.find_all(exp.Column):
        column.set("table", None)
    return copy.sql(dialect=DIALECT)


def _comparison_key(literal: exp.Literal) -> tuple[bool, str, int | None] | None:
    """(negated, what the literal is compared with, its IN list) when it is a compared or limiting
    operand."""
    anchor: exp.Expr = literal
    negated = False
    parent = anchor.parent
    while parent is not None and _is_unary_wrapper(parent, anchor):
        negated ^= isinstance(parent, exp.Neg)
        anchor, parent = parent, parent.parent
    if isinstance(parent, _COMPARISONS):
        other = parent.right if parent.left is anchor else parent.left
        return negated, _unqualified(other), None
    if isinstance(parent, exp.Between | exp.In) and parent.this is not anchor:
        return negated, _unqualified(parent.this), id(parent) if isinstance(parent, exp.In) else None
    if isinstance(parent, exp.Limit | exp.Offset):
        return negated, type(parent).__name__.upper(), None
    return None


def _literal_occurrences(tree: exp.Expr) -> list[_Occurrence]:
    occurrences = []
    for literal in tree.find_all(exp.Literal):
        key = _comparison_key(literal)
        meta = literal.meta
        if key is None or "start" not in meta or "end" not in meta:
            continue
        occurrences.append(_Occurrence(meta["start"], meta["end"], literal, *key))
    return sorted(occurrences, key=lambda occurrence: occurrence.start)


def _number(literal: exp.Literal, negated: bool) -> float | None:
    if literal.is_string:
        return None
    try:
        number = float(literal.this)
    except ValueError:
        return None
    return -number if negated else number


def _matches(node: Node, occurrence: _Occurrence) -> tuple[SlotKind, str] | None:
    """How this occurrence shows the node's literal (kind and kept date suffix), if it does."""
    label, value, literal = node["label"], node["value"], occurrence.literal
    if isinstance(value, bool):
        return None
    numeric = label in {"value:number", "value:month", "value:quarter", "value:year"}
    if numeric and isinstance(value, int | float) and _number(literal, occurrence.negated) == float(value):
        return "number", ""
    if label == "value:year" and isinstance(value, int) and literal.is_string:
        for suffix in _YEAR_DATE_SUFFIXES:
            if literal.this == f"{value:04d}{suffix}":
                return "year_of_date", suffix
    if label == "value:date" and literal.is_string and literal.this == value:
        return "date", ""
    if label.startswith("value:entity:") and literal.is_string and literal.this == value:
        return "string", ""
    return None


def _names_an_output(value: Any, kind: SlotKind, output_names: list[str]) -> bool:
    """Whether an output column's name spells the literal (a year, a date, a number, a text)."""
    if kind == "string":
        return any(str(value) in name for name in output_names)
    if kind == "date":
        forms = [str(value), str(value).replace("-", "")]
    elif isinstance(value, float) and not value.is_integer():
        forms = [repr(value), repr(value).replace(".", "_")]
    else:
        forms = [str(int(value))]
    pattern = re.compile("|".join(rf"(?<![0-9]){re.escape(form)}(?![0-9])" for form in forms))
    return any(pattern.search(name) for name in output_names)


def _is_text_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in value)


def _parenthesised(sql: str, members: list[exp.Expr]) -> tuple[int, int] | None:
    """The span of the parentheses around an IN list's members (inclusive), None if not plainly there."""
    first, last = members[0].meta, members[-1].meta
    if "start" not in first or "end" not in last:
        return None
    opening = sql.rfind("(", 0, first["start"])
    closing = sql.find(")", last["end"] + 1)
    if opening < 0 or closing < 0:
        return None
    if sql[opening + 1 : first["start"]].strip() or sql[last["end"] + 1 : closing].strip():
        return None
    return opening, closing


def _list_bindings(
    canonical: Node, statement: exp.Expr, sql: str
) -> dict[Path, list[tuple[int, int, set[int]]]]:
    """For each value node holding a list of texts: the IN lists holding exactly it, as (start, end
    of the parentheses, start offsets of the members)."""
    found: dict[Path, list[tuple[int, int, set[int]]]] = {}
    lists = [node for node in statement.find_all(exp.In) if node.expressions]
    for path, node in value_nodes(canonical):
        if not _is_text_list(node["value"]):
            continue
        for in_list in lists:
            members = in_list.expressions
            if not all(isinstance(item, exp.Literal) and item.is_string for item in members):
                continue
            if [item.this for item in members] != node["value"]:
                continue
            span = _parenthesised(sql, members)
            if span is not None:
                found.setdefault(path, []).append((*span, {item.meta["start"] for item in members}))
    return found


def extract_template(qst: Node, sql: str, *, resolved_on: date | None) -> SqlTemplate:
    """Template of `sql` with the literals of `qst` turned into slots. `resolved_on` is the market
    day the SQL was written for (its "today"), or None when unknown."""
    if _PLACEHOLDER.search(sql):
        raise TemplateError("the SQL already contains a {slot_N:Type} parameter")
    try:
        statements = [statement for statement in sqlglot.parse(sql, read=DIALECT) if statement is not None]
    except Exception as error:  # any sqlglot failure means the SQL cannot be templated
        raise TemplateError(f"the SQL could not be parsed: {error}") from error
    if len(statements) != 1:
        raise TemplateError(f"a template holds exactly one statement, got {len(statements)}")
    canonical = canonical_qst(qst)
    occurrences = _literal_occurrences(statements[0])
    output_names = [str(name) for name in getattr(statements[0], "named_selects", [])]

    # Which occurrences each value node could be, and in which form.
    readings: dict[Path, dict[int, tuple[SlotKind, str]]] = {}
    for path, node in value_nodes(canonical):
        found = {index: form for index, occ in enumerate(occurrences) if (form := _matches(node, occ))}
        if found and len({occurrences[index].compared_with for index in found}) == 1:
            readings[path] = found
    # An IN list holding a literal no value node explains is not the question's list (an industry
    # group spelled out as industries, a value the writer added): none of its members is a slot.
    explained = {index for found in readings.values() for index in found}
    lists: dict[int, set[int]] = {}
    for index, occurrence in enumerate(occurrences):
        if occurrence.in_list is not None:
            lists.setdefault(occurrence.in_list, set()).add(index)
    unexplained = {index for members in lists.values() if not members <= explained for index in members}
    readings = {path: found for path, found in readings.items() if not unexplained & found.keys()}
    # Lists of texts: an IN list claimed by two list nodes, or whose member a single node also
    # reads, is ambiguous and binds nothing.
    list_bindings = _list_bindings(canonical, statements[0], sql)
    list_claims: dict[int, int] = {}
    for spans in list_bindings.values():
        for start, _end, _members in spans:
            list_claims[start] = list_claims.get(start, 0) + 1
    ambiguous_starts = {
        occurrences[index].start
        for found in readings.values()
        for index in found
        for spans in list_bindings.values()
        for _start, _end, members in spans
        if occurrences[index].start in members
    }
    readings = {
        path: found
        for path, found in readings.items()
        if not {occurrences[index].start for index in found} & ambiguous_starts
    }
    list_slots = {
        path: [
            (start, end)
            for start, end, members in spans
            if list_claims[start] == 1 and not members & ambiguous_starts
        ]
        for path, spans in list_bindings.items()
    }
    # Value nodes reading exactly the same occurrences share them; partial overlaps are ambiguous.
    groups: dict[frozenset[int], list[Path]] = {}
    for path, found in readings.items():
        groups.setdefault(frozenset(found), []).append(path)
    claimed: dict[int, int] = {}
    for indexes in groups:
        for index in indexes:
            claimed[index] = claimed.get(index, 0) + 1
    slots_by_occurrence: dict[int, tuple[SlotKind, str, tuple[Path, ...]]] = {}
    for indexes, paths in groups.items():
        if any(claimed[index] > 1 for index in indexes):
            continue
        for index in indexes:
            kind, suffix = readings[paths[0]][index]
            slots_by_occurrence[index] = (kind, suffix, tuple(sorted(paths)))

    # (start, end, kind, suffix, paths, negated) of every slot occurrence, in the SQL's order.
    bound: list[tuple[int, int, SlotKind, str, tuple[Path, ...], bool]] = [
        (occurrences[index].start, occurrences[index].end, kind, suffix, paths, occurrences[index].negated)
        for index, (kind, suffix, paths) in slots_by_occurrence.items()
    ]
    bound += [
        (start, end, "string_list", "", (path,), False)
        for path, spans in list_slots.items()
        for start, end in spans
    ]
    slots: list[Slot] = []
    pieces: list[str] = []
    cursor = 0
    for start, end, kind, suffix, slot_paths, negated in sorted(bound):
        name = f"slot_{len(slots)}"
        original = sql[start : end + 1]
        value = node_at(canonical, slot_paths[0])["value"]
        names_output = kind != "string_list" and _names_an_output(value, kind, output_names)
        slots.append(Slot(name, kind, slot_paths, original, negated, suffix, names_output))
        pieces.extend((sql[cursor:start], f"{{{name}:{_PLACEHOLDER_TYPES[kind]}}}"))
        cursor = end + 1
    pieces.append(sql[cursor:])

    slot_spans = {(occurrences[index].start, occurrences[index].end) for index in slots_by_occurrence}
    fixed_dates = sorted(
        {
            str(literal.this)
            for literal in statements[0].find_all(exp.Literal)
            if literal.is_string
            and _ISO_DATE.match(str(literal.this))
            and (literal.meta.get("start"), literal.meta.get("end")) not in slot_spans
        }
    )
    return SqlTemplate(
        text="".join(pieces),
        slots=tuple(slots),
        source_qst=canonical,
        fixed_dates=tuple(fixed_dates),
        resolved_on=resolved_on,
    )


def _is_time_bearing(canonical: Node, path: Path) -> bool:
    """Dates, years, months, quarters, and the counts of windows and streaks: the values a compiler
    turns into resolved dates."""
    if node_at(canonical, path)["label"] in _TIME_BEARING_VALUES:
        return True
    parent = node_at(canonical, path[:-1])["label"]
    return parent.partition(":")[0] in _TIME_BEARING_PARENTS or parent in _TIME_BEARING_CONDITIONS


def _render(slot: Slot, value: Any) -> str:
    if slot.kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise TemplateMismatch(f"{slot.name} needs a finite number, got {value!r}")
        number = -value if slot.negated else value
        if isinstance(number, int):
            text = str(number)
        elif number.is_integer() and abs(number) < 2**53:
            text = str(int(number))
        else:
            text = repr(number)
        return f"({text})" if text.startswith("-") else text
    if slot.kind == "string_list":
        if not _is_text_list(value):
            raise TemplateMismatch(f"{slot.name} needs a non-empty list of texts, got {value!r}")
        return string_list(value)
    if slot.kind == "year_of_date":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 9999:
            raise TemplateMismatch(f"{slot.name} needs a year, got {value!r}")
        return string_literal(f"{value:04d}{slot.date_suffix}")
    if not isinstance(value, str):
        raise TemplateMismatch(f"{slot.name} needs a text value, got {value!r}")
    if slot.kind == "date":
        try:
            date.fromisoformat(value)
        except ValueError as error:
            raise TemplateMismatch(f"{slot.name} needs an ISO date, got {value!r}") from error
        if not _ISO_DATE.match(value):
            raise TemplateMismatch(f"{slot.name} needs an ISO date, got {value!r}")
    return string_literal(value)


def fill_template(template: SqlTemplate, qst: Node, *, market_day: date | None) -> str:
    """The template's SQL for `qst`, which must differ from the template's QST only in literals.
    `market_day` is the market's "today" for the new question (None when unknown)."""
    if shape_signature(qst) != template.shape:
        raise TemplateMismatch("the question's structure differs from the paradigm's: slots cannot adapt it")
    if template.fixed_dates and market_day != template.resolved_on:
        raise TemplateMismatch(
            f"the SQL holds dates resolved on {template.resolved_on} ({', '.join(template.fixed_dates)}); "
            f"the market day is now {market_day}"
        )
    canonical = canonical_qst(qst)
    bound = template.bound_paths()
    for path, old_node in value_nodes(template.source_qst):
        new_value = node_at(canonical, path)["value"]
        if literal_key(new_value) == literal_key(old_node["value"]):
            continue
        described = f"{old_node['label']} {old_node['value']!r} → {new_value!r}"
        if path not in bound:
            raise TemplateMismatch(f"{described}: the SQL does not show where this value is used")
        if template.fixed_dates and _is_time_bearing(template.source_qst, path):
            raise TemplateMismatch(
                f"{described}: the SQL holds dates derived from the time scope "
                f"({', '.join(template.fixed_dates)}) that slots cannot recompute"
            )

    rendered: dict[str, str] = {}
    for slot in template.slots:
        values = {literal_key(node_at(canonical, path)["value"]) for path in slot.paths}
        if len(values) > 1:
            raise TemplateMismatch(f"{slot.name} is one literal in the SQL for values that now differ")
        value = node_at(canonical, slot.paths[0])["value"]
        unchanged = literal_key(value) == literal_key(node_at(template.source_qst, slot.paths[0])["value"])
        if not unchanged and slot.names_output:
            raise TemplateMismatch(f"{slot.name}: an output column of the SQL is named after {slot.original}")
        rendered[slot.name] = slot.original if unchanged else _render(slot, value)
    return _PLACEHOLDER.sub(lambda match: rendered[match.group(1)], template.text)
