"""Ownership of an embedded data directory: the lock decides, the record only describes the holder."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from backend.apps.marketdata.forwarding import ServerUnreachable, loopback_address
from backend.domain.market.ownership import (
    LOCK_FILE,
    RECORD_FILE,
    DirectoryInUse,
    Owner,
    announce,
    claim,
    release,
    server_or_claim,
)


@pytest.fixture
def directory(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "chdb"
    release(tmp_path / "chdb")  # whatever a test claimed in this process


def hold_lock(directory: Path, record: dict[str, object] | None) -> int:
    """Lock the directory through a descriptor of its own, as another process would, and record it."""
    directory.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    if record is not None:
        (directory / RECORD_FILE).write_text(json.dumps(record), encoding="utf-8")
    return descriptor


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def recorded(directory: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((directory / RECORD_FILE).read_text(encoding="utf-8"))
    return data


def test_claim_records_the_owner_and_release_removes_the_record(directory: Path) -> None:
    claim(directory, Owner(pid=os.getpid(), command="manage.py sql"))
    assert recorded(directory) == {"pid": os.getpid(), "command": "manage.py sql", "host": None, "port": None}
    claim(directory, Owner(pid=os.getpid(), command="something else"))  # held already: nothing changes
    assert recorded(directory)["command"] == "manage.py sql"
    release(directory)
    assert not (directory / RECORD_FILE).exists()


def test_a_serving_owner_is_named_with_its_address(directory: Path) -> None:
    descriptor = hold_lock(
        directory, {"pid": os.getpid(), "command": "manage.py serve", "host": "127.0.0.1", "port": 8123}
    )
    try:
        with pytest.raises(DirectoryInUse) as refusal:
            claim(directory, Owner.of_this_process())
    finally:
        os.close(descriptor)
    assert str(refusal.value) == (
        f"VeriScreen is already serving {directory} (pid {os.getpid()} on 127.0.0.1:8123); "
        "stop it or set VERISCREEN_DATA_DIR"
    )


def test_another_command_is_named_and_an_unknown_holder_still_refuses(directory: Path) -> None:
    descriptor = hold_lock(directory, {"pid": os.getpid(), "command": "manage.py market generate"})
    try:
        with pytest.raises(DirectoryInUse, match=r"in use by another process \(pid \d+: manage.py market"):
            claim(directory, Owner.of_this_process())
        (directory / RECORD_FILE).write_text("{not json", encoding="utf-8")
        with pytest.raises(DirectoryInUse, match=r"in use by another process; wait for it"):
            claim(directory, Owner.of_this_process())
    finally:
        os.close(descriptor)


def test_a_record_without_its_lock_is_stale(directory: Path) -> None:
    directory.mkdir(parents=True)
    for pid in (dead_pid(), os.getppid()):  # dead, or alive but no longer holding the lock
        stale = {"pid": pid, "command": "manage.py serve", "host": "127.0.0.1", "port": 8000}
        (directory / RECORD_FILE).write_text(json.dumps(stale), encoding="utf-8")
        assert server_or_claim(directory, Owner(pid=os.getpid(), command="manage.py sql"), 0) is None
        assert recorded(directory)["command"] == "manage.py sql"
        release(directory)


def test_a_serving_server_is_found_and_a_starting_one_waited_for(directory: Path) -> None:
    serving = Owner(pid=os.getpid(), command="manage.py serve", host="127.0.0.1", port=8123)
    descriptor = hold_lock(directory, asdict(serving))
    try:
        assert server_or_claim(directory, Owner.of_this_process(), 0) == serving
        (directory / RECORD_FILE).write_text(json.dumps({**asdict(serving), "port": None}), encoding="utf-8")
        with pytest.raises(DirectoryInUse, match=r"starting on 127\.0\.0\.1"):
            server_or_claim(directory, Owner.of_this_process(), 0.3)
    finally:
        os.close(descriptor)


def test_announce_rewrites_only_a_held_directory(directory: Path) -> None:
    owner = Owner(pid=os.getpid(), command="manage.py serve", host="127.0.0.1")
    with pytest.raises(RuntimeError):
        announce(directory, owner)
    claim(directory, owner)
    announce(directory, Owner(pid=os.getpid(), command="manage.py serve", host="127.0.0.1", port=8123))
    assert recorded(directory)["port"] == 8123


@pytest.mark.parametrize(
    ("host", "address"),
    [("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "127.0.0.1"), ("localhost", "127.0.0.1"), ("::", "::1")],
)
def test_the_terminal_reaches_a_server_through_loopback(host: str, address: str) -> None:
    assert loopback_address(Owner(pid=1, command="manage.py serve", host=host, port=8000)) == address


def test_a_server_on_another_interface_is_not_reached() -> None:
    with pytest.raises(ServerUnreachable, match=r"listens on 192\.0\.2\.7 only"):
        loopback_address(Owner(pid=1, command="manage.py serve", host="192.0.2.7", port=8000))
