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


def invisible_characters(sql: str) -> str | None:
    for position, char in enumerate(sql):
        if char in _ORDINARY_CONTROLS:
            continue
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
            name = unicodedata.name(char, "unnamed")
            return (
                f"invisible or control character U+{ord(char):04X} ({name}) at position {position} "
                "is not allowed: it can make SQL read differently from how it runs"
            )
    return None
