"""The README's reading commands while `manage.py serve` runs on the same data: same output as alone.

One real server for the module, on a small demo in a data directory of its own. Every command runs
alone first, then beside the server (forwarded to it), and the two outputs must match, timings aside.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from backend.domain.market.ownership import LOCK_FILE, RECORD_FILE

# Every test here shares the module's server: xdist must run them in one worker.
pytestmark = pytest.mark.xdist_group("terminal-server")

ROOT = Path(__file__).resolve().parents[2]
SCREEN = (
    "SELECT d.ts_code, b.name, d.trade_date, d.close FROM market.daily AS d "
    "JOIN market.stock_basic AS b ON b.ts_code = d.ts_code "
    "WHERE d.trade_date = (SELECT max(trade_date) FROM market.daily) ORDER BY d.close DESC, d.ts_code LIMIT 5"
)
QUESTION = "2025年9月8日收盘价最高的上交所股票"
WRONG_UNIT = (
    "SELECT ts_code FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 100000000000"
)
# name → (arguments, expected exit status). Refusals must come back the same way as answers.
COMMANDS: dict[str, tuple[list[str], int]] = {
    "sql": (["sql", SCREEN], 0),
    "sql --json": (["sql", SCREEN, "--json"], 0),
    "sql refused by the guard": (["sql", "DROP TABLE market.daily"], 1),
    "sql refused by ClickHouse": (["sql", "SELECT no_such_column FROM market.daily"], 1),
    "ask": (["ask", QUESTION], 0),
    "ask --json": (["ask", QUESTION, "--json"], 0),
    "ask not understood --json": (["ask", "市盈率低于15的火星股票", "--json"], 1),
    "validate --json": (["validate", "总市值超过1000亿的股票", "--sql", WRONG_UNIT, "--json"], 0),
    "validate --no-correct": (["validate", "总市值超过1000亿的股票", "--sql", WRONG_UNIT, "--no-correct"], 0),
    "market stats": (["market", "stats"], 0),
    "market stats --json": (["market", "stats", "--json"], 0),
}
SERVER_START_SECONDS = 120
# The language engine, the store and the data libraries: a forwarded command needs none of them.
HEAVY_MODULES = {"backend.domain.language.parser", "langchain_core", "sqlglot", "chdb", "pyarrow", "z3"}


def environment(data_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("CLICKHOUSE_", "LLM_"))}
    return {**env, "VERISCREEN_DATA_DIR": str(data_dir), "PYTHONDONTWRITEBYTECODE": "1"}


def manage(
    data_dir: Path, *args: str, python_options: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *python_options, "manage.py", *args],
        cwd=ROOT,
        env=environment(data_dir),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _without_timings(text: str) -> str:
    """Timings (and the id of the recorded run) differ from run to run; everything else must not."""
    text = re.sub(r'"timings_ms": \{[^}]*\}', lambda found: re.sub(r"\d+(\.\d+)?", "T", found.group()), text)
    text = re.sub(r'"(at_ms|ms)": \d+(\.\d+)?', r'"\1": T', text)
    text = re.sub(r'"run_id": (\d+|null)', '"run_id": R', text)
    return re.sub(r"\d+(\.\d+)? ms\b", "T ms", text)


@dataclass(frozen=True)
class Outcome:
    status: int
    stdout: str
    stderr: str


def outcome(done: subprocess.CompletedProcess[str]) -> Outcome:
    return Outcome(done.returncode, _without_timings(done.stdout), _without_timings(done.stderr))


@dataclass
class RunningServer:
    process: subprocess.Popen[bytes]
    port: int
    chdb: Path


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("terminal")
    done = manage(directory, "market", "generate", "--stocks", "40")
    assert done.returncode == 0, done.stderr
    return directory


@pytest.fixture(scope="module")
def alone(data_dir: Path) -> dict[str, Outcome]:
    """Each command's output with no server running."""
    return {name: outcome(manage(data_dir, *args)) for name, (args, _status) in COMMANDS.items()}


def _read_record(chdb: Path) -> dict[str, object]:
    try:
        data: dict[str, object] = json.loads((chdb / RECORD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


@pytest.fixture(scope="module")
def server(data_dir: Path, alone: dict[str, Outcome]) -> Iterator[RunningServer]:
    """`manage.py serve --port 0` on the demo (started after `alone`, which must run without it)."""
    log = (data_dir / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", "0"],
        cwd=ROOT,
        env=environment(data_dir),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    chdb = Path(os.path.realpath(data_dir / "chdb"))
    deadline = time.monotonic() + SERVER_START_SECONDS
    while (record := _read_record(chdb)).get("pid") != process.pid or record.get("port") is None:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("the server did not start:\n" + (data_dir / "serve.log").read_text(encoding="utf-8"))
        time.sleep(0.1)
    port = record["port"]
    assert isinstance(port, int)
    try:
        yield RunningServer(process, port, chdb)
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        log.close()


@pytest.mark.parametrize("name", COMMANDS)
def test_command_gives_the_same_output_beside_the_server(
    name: str, alone: dict[str, Outcome], server: RunningServer, data_dir: Path
) -> None:
    args, status = COMMANDS[name]
    assert alone[name].status == status and alone[name].stdout + alone[name].stderr, alone[name]
    assert outcome(manage(data_dir, *args)) == alone[name]


def test_forwarded_ask_imports_neither_the_engine_nor_the_store(
    server: RunningServer, data_dir: Path
) -> None:
    done = manage(data_dir, "ask", QUESTION, "--json", python_options=("-X", "importtime"))
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert {
        name for name in imported if name.split(".")[0] in HEAVY_MODULES or name in HEAVY_MODULES
    } == set()


def test_a_second_server_refuses_with_one_line(server: RunningServer, data_dir: Path) -> None:
    done = manage(data_dir, "serve", "--port", "0")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"VeriScreen is already serving {server.chdb} (pid {server.process.pid} on 127.0.0.1:{server.port}); "
        "stop it or set VERISCREEN_DATA_DIR\n"
    )


def test_writing_commands_refuse_beside_the_server(server: RunningServer, data_dir: Path) -> None:
    done = manage(data_dir, "market", "generate", "--if-empty")
    assert done.returncode == 1
    assert done.stderr.startswith("CommandError: VeriScreen is already serving ")
    assert len(done.stderr.splitlines()) == 1


def test_a_stale_record_is_ignored_after_the_server_is_killed(
    server: RunningServer, alone: dict[str, Outcome], data_dir: Path
) -> None:
    # Last in the module: it kills the shared server.
    server.process.kill()
    server.process.wait(timeout=30)
    assert _read_record(server.chdb)["pid"] == server.process.pid  # left behind by SIGKILL
    assert outcome(manage(data_dir, "sql", SCREEN, "--json")) == alone["sql --json"]
    assert _read_record(server.chdb)["command"] == "manage.py sql"


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    """A live owner that does not answer: the command says so in one line and exits with 1."""
    chdb = tmp_path / "chdb"
    chdb.mkdir()
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    descriptor = os.open(chdb / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    record = {"pid": os.getpid(), "command": "manage.py serve", "host": "127.0.0.1", "port": closed_port}
    (chdb / RECORD_FILE).write_text(json.dumps(record), encoding="utf-8")
    try:
        done = manage(tmp_path, "sql", "SELECT 1")
    finally:
        os.close(descriptor)
    assert done.returncode == 1
    assert done.stderr == (
        "CommandError: cannot reach the VeriScreen server that owns the market data "
        f"(pid {os.getpid()} on 127.0.0.1:{closed_port}): Connection refused\n"
    )
