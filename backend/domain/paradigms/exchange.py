"""Paradigm export/import files (YAML), for curation: unlike the cold-start files, which hold only
questions, an export holds each paradigm whole — question, QST, SQL as written, status, pinned — so
that a library moves between installations as it was curated.

    paradigms:
      - question: 总市值超过1000亿的股票
        kind: question            # or reverse: a reverse check's tree and SQL
        qst: {label: select, children: [...]}
        sql: SELECT ...
        validation_status: verified
        pinned: false
        resolved_on: 2026-11-30
        check: {criterion: same_stocks, point: condition, of: 3}   # an LLM-written reverse check only
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import yaml

from backend.domain.language.qst import Node

_REQUIRED = ("question", "qst", "sql")
_FIELDS = frozenset(
    {*_REQUIRED, "kind", "validation_status", "pinned", "resolved_on", "origin", "id", "check"}
)
_KINDS = ("question", "reverse")


class ExchangeFileError(ValueError):
    """A paradigm file that does not follow the format (the message names the entry)."""


@dataclass(frozen=True)
class ExchangedParadigm:
    question: str
    qst: Node
    sql: str
    validation_status: str
    pinned: bool
    resolved_on: date | None
    kind: str = "question"
    check: dict[str, Any] | None = None  # an LLM reverse check's criterion, point and set size

    def to_mapping(self) -> dict[str, Any]:
        mapping = {
            "question": self.question,
            "kind": self.kind,
            "qst": self.qst,
            "sql": self.sql,
            "validation_status": self.validation_status,
            "pinned": self.pinned,
            "resolved_on": self.resolved_on,
        }
        return mapping if self.check is None else {**mapping, "check": self.check}


def _entry(data: Any, number: int) -> ExchangedParadigm:
    where = f"entry {number}"
    if not isinstance(data, dict):
        raise ExchangeFileError(f"{where}: must be a mapping")
    unknown = set(data) - _FIELDS
    if unknown:
        raise ExchangeFileError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    missing = [name for name in _REQUIRED if not data.get(name)]
    if missing:
        raise ExchangeFileError(f"{where}: missing {', '.join(missing)}")
    if not isinstance(data["question"], str) or not isinstance(data["sql"], str):
        raise ExchangeFileError(f"{where}: question and sql must be text")
    if not isinstance(data["qst"], dict):
        raise ExchangeFileError(f"{where}: qst must be a mapping")
    resolved_on = data.get("resolved_on")
    if resolved_on is not None and not isinstance(resolved_on, date):
        raise ExchangeFileError(f"{where}: resolved_on must be a date (YYYY-MM-DD)")
    pinned = data.get("pinned", False)
    if not isinstance(pinned, bool):
        raise ExchangeFileError(f"{where}: pinned must be true or false")
    kind = data.get("kind", "question")
    if kind not in _KINDS:
        raise ExchangeFileError(f"{where}: kind must be one of {', '.join(_KINDS)}")
    check = data.get("check")
    if check is not None and not isinstance(check, dict):
        raise ExchangeFileError(f"{where}: check must be a mapping")
    return ExchangedParadigm(
        question=data["question"].strip(),
        qst=data["qst"],
        sql=data["sql"].strip(),
        validation_status=str(data.get("validation_status", "unvalidated")),
        pinned=pinned,
        resolved_on=resolved_on,
        kind=kind,
        check=check,
    )


def read_exchange(text: str) -> list[ExchangedParadigm]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ExchangeFileError(f"not YAML: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("paradigms"), list):
        raise ExchangeFileError("the file must be a mapping with a 'paradigms' list")
    return [_entry(item, number) for number, item in enumerate(data["paradigms"], start=1)]


def write_exchange(paradigms: list[ExchangedParadigm]) -> str:
    return yaml.safe_dump(
        {"paradigms": [item.to_mapping() for item in paradigms]}, allow_unicode=True, sort_keys=False
    )
