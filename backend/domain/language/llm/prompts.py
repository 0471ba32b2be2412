"""Prompt templates of the roles, kept as text files next to this module (`prompts/<role>.*.txt`).

Templates use `string.Template` placeholders ($name) so that JSON braces in them need no escaping;
values are inserted verbatim and never re-read as template text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from string import Template

_DIRECTORY = Path(__file__).resolve().parent / "prompts"


@cache
def _template(name: str) -> Template:
    return Template((_DIRECTORY / f"{name}.txt").read_text(encoding="utf-8"))


def render(role: str, **values: str) -> tuple[str, str]:
    """(system prompt, user prompt) of a role; a missing value raises KeyError naming it."""
    return (
        _template(f"{role}.system").substitute(values).strip(),
        _template(f"{role}.user").substitute(values).strip(),
    )


def block(title: str, lines: Iterable[str]) -> str:
    """An optional prompt section: empty when there is nothing to say."""
    items = [line for line in lines if line.strip()]
    return f"{title}\n" + "\n".join(items) + "\n\n" if items else ""


def examples_block(title: str, pairs: Sequence[tuple[str, str]], answer_label: str) -> str:
    lines = [f"Question: {question}\n{answer_label}:\n{answer}\n" for question, answer in pairs]
    return block(title, lines)


def bullet_list(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items if item.strip()) or "- (none given)"
