"""Cold-start paradigm files: YAML lists of questions (the top-level `paradigms/seed/` directory).

Only the questions are stored. Their QST and SQL are produced by the built-in engine when they are
loaded, on that day's market data, so the dates a question resolves to are always the data's.

Kinds: `screen` and `reverse_check` store the question's own paradigm (a reverse check phrased as a
question); `reverse` stores the reverse checks the validation writes for the question's answer, each
as a reverse paradigm (its tree and SQL), and not the question.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

SeedKind = Literal["screen", "reverse_check", "reverse"]
_KINDS: tuple[SeedKind, ...] = ("screen", "reverse_check", "reverse")
_FIELDS = frozenset({"question", "kind", "topic", "pinned"})


class SeedFileError(ValueError):
    """A seed file that does not follow the format (the message names the file and entry)."""


@dataclass(frozen=True)
class SeedEntry:
    question: str
    kind: SeedKind
    topic: str
    pinned: bool
    source: str  # file name and entry number, for messages

    @classmethod
    def from_mapping(cls, data: Any, source: str) -> SeedEntry:
        if not isinstance(data, dict):
            raise SeedFileError(f"{source}: an entry must be a mapping")
        unknown = set(data) - _FIELDS
        if unknown:
            raise SeedFileError(f"{source}: unknown field(s) {', '.join(sorted(unknown))}")
        question = data.get("question")
        if not isinstance(question, str) or not question.strip():
            raise SeedFileError(f"{source}: `question` must be a non-empty text")
        kind = data.get("kind")
        if kind not in _KINDS:
            raise SeedFileError(f"{source}: `kind` must be one of {', '.join(_KINDS)}")
        pinned = data.get("pinned", False)
        if not isinstance(pinned, bool):
            raise SeedFileError(f"{source}: `pinned` must be true or false")
        return cls(question.strip(), kind, str(data.get("topic", "")), pinned, source)


def read_seed_file(path: Path) -> list[SeedEntry]:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise SeedFileError(f"{path.name}: not valid YAML ({error})") from error
    if not isinstance(document, dict) or not isinstance(document.get("paradigms"), list):
        raise SeedFileError(f"{path.name}: expected a top-level `paradigms:` list")
    return [
        SeedEntry.from_mapping(item, f"{path.name} entry {number}")
        for number, item in enumerate(document["paradigms"], start=1)
    ]


def read_seed_directory(directory: Path) -> list[SeedEntry]:
    """Every entry of every `*.yaml` file in the directory, files in name order."""
    if not directory.is_dir():
        raise SeedFileError(f"{directory} is not a directory")
    return [entry for path in sorted(directory.glob("*.yaml")) for entry in read_seed_file(path)]
