"""Who owns an embedded market data directory: one process at a time, a server or a terminal command.

chdb lets a single process open a data directory (a second one fails with a raw "Cannot lock file"
error, and a client opened before fork() hangs in the child). VeriScreen therefore decides ownership
itself, before chdb is opened: the owner holds an exclusive flock on `veriscreen.lock` inside the
directory (the kernel releases it when the process dies, however it dies) and describes itself in
`veriscreen-owner.json` next to it. The record is believed only while that lock is held, so a record
left behind by a killed process is ignored.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from backend.domain.market.errors import StoreUnavailable

LOCK_FILE = "veriscreen.lock"
RECORD_FILE = "veriscreen-owner.json"
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class Owner:
    """The process holding a directory. A server has a `host`; it has a `port` once it listens."""

    pid: int
    command: str
    host: str | None = None
    port: int | None = None

    @classmethod
    def of_this_process(cls, command: str | None = None) -> Owner:
        program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
        return cls(pid=os.getpid(), command=command or " ".join([program, *sys.argv[1:2]]))

    @property
    def is_server(self) -> bool:
        return self.host is not None

    @property
    def serving(self) -> bool:
        return self.host is not None and self.port is not None


class DirectoryInUse(StoreUnavailable):
    """Another live process owns the directory; the message names it and says what to do."""

    def __init__(self, directory: Path, owner: Owner | None) -> None:
        self.directory = directory
        self.owner = owner
        super().__init__(_describe_refusal(directory, owner))


def _describe_refusal(directory: Path, owner: Owner | None) -> str:
    if owner is not None and owner.is_server:
        where = f"on {owner.host}:{owner.port}" if owner.serving else f"starting on {owner.host}"
        return (
            f"VeriScreen is already serving {directory} (pid {owner.pid} {where}); "
            "stop it or set VERISCREEN_DATA_DIR"
        )
    holder = f" (pid {owner.pid}: {owner.command})" if owner is not None else ""
    return (
        f"the market data directory {directory} is in use by another process{holder}; "
        "wait for it to finish or set VERISCREEN_DATA_DIR"
    )


# Directories this process holds, by real path. A forked child shares its parent's lock (same open
# file description), so it never tries to lock again: a second flock from it would fail.
_held: dict[str, int] = {}
_held_lock = threading.Lock()


def _key(directory: Path) -> str:
    return os.path.realpath(directory)


def _try_lock(directory: Path) -> int | None:
    directory.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    return descriptor


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, but another user's
        return True
    return True


def _parse_owner(data: Any) -> Owner | None:
    if not isinstance(data, dict):
        return None
    pid, command, host, port = data.get("pid"), data.get("command"), data.get("host"), data.get("port")
    if not isinstance(pid, int) or not isinstance(command, str):
        return None
    if not (host is None or isinstance(host, str)) or not (port is None or isinstance(port, int)):
        return None
    return Owner(pid=pid, command=command, host=host, port=port)


def _read_record(directory: Path) -> Owner | None:
    """The recorded owner if its process is alive (the caller knows the lock is held)."""
    try:
        owner = _parse_owner(json.loads((directory / RECORD_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return owner if owner is not None and _pid_alive(owner.pid) else None


def _write_record(directory: Path, owner: Owner) -> None:
    # Written whole and renamed into place, so a reader never sees half a record.
    handle, temporary = tempfile.mkstemp(prefix=".veriscreen-owner-", dir=directory)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump(asdict(owner), stream)
    os.replace(temporary, directory / RECORD_FILE)


def claim(directory: Path, owner: Owner) -> None:
    """Take `directory` for this process and record `owner`, or raise DirectoryInUse.

    Claiming a directory this process already holds does nothing (the first record stays).
    """
    with _held_lock:
        if _key(directory) in _held:
            return
        descriptor = _try_lock(directory)
        if descriptor is None:
            raise DirectoryInUse(Path(_key(directory)), _read_record(directory))
        _held[_key(directory)] = descriptor
        _write_record(directory, owner)


def announce(directory: Path, owner: Owner) -> None:
    """Replace the record of a directory this process holds (a server, once it listens)."""
    with _held_lock:
        if _key(directory) not in _held:
            raise RuntimeError(f"{directory} is not held by this process")
        _write_record(directory, owner)


def release(directory: Path) -> None:
    """Give the directory up: the record goes (if it is still this process's) and the lock is freed."""
    with _held_lock:
        descriptor = _held.pop(_key(directory), None)
        if descriptor is None:
            return
        if (recorded := _read_record(directory)) is not None and recorded.pid == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                (directory / RECORD_FILE).unlink()
        os.close(descriptor)


def server_or_claim(directory: Path, owner: Owner, start_wait_seconds: float) -> Owner | None:
    """The server that serves `directory`, or None once this process has claimed it.

    A server that holds the directory but does not listen yet is waited for, up to `start_wait_seconds`;
    any other owner raises DirectoryInUse.
    """
    deadline = time.monotonic() + start_wait_seconds
    while True:
        try:
            claim(directory, owner)
        except DirectoryInUse as refusal:
            holder = refusal.owner
            if holder is not None and holder.serving:
                return holder
            if holder is None or not holder.is_server or time.monotonic() >= deadline:
                raise
            time.sleep(_POLL_SECONDS)
        else:
            return None
