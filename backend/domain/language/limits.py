"""Limits on what may be asked, shared by the engine, the ask API and the terminal (import-light)."""

MAX_QUESTION_CHARS = 2000
