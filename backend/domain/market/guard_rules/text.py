"""Rules on the raw text, before any tokenizing."""

from __future__ import annotations

import unicodedata

# Control and format characters (zero-width spaces, BOM, bidirectional overrides — the "Trojan
# Source" trick), line/paragraph separators, surrogates and private-use characters: nothing a screen
# needs, and each can make SQL read differently on screen from how ClickHouse runs it.
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co"}
_ORDINARY_CONTROLS = {"\t", "\n", "\r"}


def empty_text(sql: str) -> str | None:
    if not sql or not sql.strip():
        return "empty SQL: there is nothing to run"
    return None


def oversized_text(sql: str, max_chars: int) -> str | None:
    if len(sql) > max_chars:
        return f"the SQL is too long ({len(sql)} characters; at most {max_chars} are accepted)"
    return None


def _invisible(char: str) -> bool:
    return char not in _ORDINARY_CONTROLS and unicodedata.category(char) in _INVISIBLE_CATEGORIES


def invisible_characters(sql: str) -> str | None:
    # A long SQL text has few distinct characters: judge each once, and look for the position of the
    # first offending one only when there is one.
    if not any(_invisible(char) for char in set(sql)):
        return None
    for position, char in enumerate(sql):
        if _invisible(char):
            name = unicodedata.name(char, "unnamed")
            return (
                f"invisible or control character U+{ord(char):04X} ({name}) at position {position} "
                "is not allowed: it can make SQL read differently from how it runs"
            )
    return None
