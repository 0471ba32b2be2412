"""Recorded AKShare responses: DataFrames rebuilt from tests/market/fixtures/akshare/*.json.

The files are hand-made in the shape akshare returns (see the folder's README). `RecordedAkshare` is
the `call` the AKShare source is given: it answers each call from its file and fails the test on a
call nothing was recorded for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pandas as pd

FIXTURES = Path(__file__).parent / "fixtures" / "akshare"


def fixture_name(function: str, arguments: Mapping[str, str]) -> str:
    return function + "".join(f"__{key}-{value}" for key, value in sorted(arguments.items())) + ".json"


def recorded_frame(path: Path) -> pd.DataFrame:
    body = json.loads(path.read_text(encoding="utf-8"))
    frame = pd.DataFrame(body["rows"], columns=body["columns"])
    for column in body["date_columns"]:
        frame[column] = [date.fromisoformat(value) for value in frame[column]]
    return frame


@dataclass
class RecordedAkshare:
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def __call__(self, function: str, arguments: Mapping[str, str]) -> pd.DataFrame:
        path = FIXTURES / fixture_name(function, arguments)
        assert path.is_file(), f"no recorded response for akshare.{function}({dict(arguments)})"
        self.calls.append((function, dict(arguments)))
        return recorded_frame(path)
