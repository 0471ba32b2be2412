"""Plain-text progress: a redrawn bar on a terminal, one line per step elsewhere (logs, pipes)."""

from __future__ import annotations

from typing import Protocol

BAR_WIDTH = 30


class Progress(Protocol):
    def step(self, done: int, total: int, label: str) -> None: ...

    def finish(self) -> None: ...


class Stream(Protocol):
    def write(self, text: str, /) -> object: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...


class TextProgress:
    def __init__(self, stream: Stream, *, tty: bool | None = None) -> None:
        self._stream = stream
        self._tty = stream.isatty() if tty is None else tty
        self._drawn = False

    def step(self, done: int, total: int, label: str) -> None:
        if not self._tty:
            self._stream.write(f"[{done}/{total}] {label}\n")
            self._stream.flush()
            return
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self._stream.write(f"\r[{bar}] {done}/{total} {label[:60]:<60}")
        self._stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = False
