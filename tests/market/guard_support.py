"""Fixture files of the guard tests: hostile statements and legitimate screens, with header comments."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "guard"


@dataclass(frozen=True)
class GuardCase:
    name: str
    sql: str
    headers: dict[str, str]

    @property
    def parameters(self) -> dict[str, Any]:
        return json.loads(self.headers.get("parameters", "{}"))


def _headers(sql: str) -> dict[str, str]:
    headers: dict[str, str] = {}
    for line in sql.splitlines():
        if not line.startswith("-- ") or ":" not in line:
            break
        key, _, value = line[3:].partition(":")
        headers[key.strip()] = value.strip()
    return headers


def load_cases(folder: str) -> list[GuardCase]:
    paths = sorted((FIXTURES / folder).glob("*.sql"))
    return [
        GuardCase(path.stem, text, _headers(text))
        for path in paths
        for text in [path.read_text(encoding="utf-8")]
    ]
