"""`manage.py equiv` and its validators: the SQL guard and the query limits of every other SQL path, deep
nesting as a verdict (no RecursionError), no scratch folder left behind, colour only on a terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from backend.domain.equivalence import (
    ChdbValidator,
    Counterexample,
    Schema,
    SqliteValidator,
    ValidationFailed,
    check_equivalence,
)
from backend.domain.equivalence.counterexample import CounterexampleTable
from backend.domain.equivalence.schema import ColumnDef
from backend.domain.market.config import QueryLimits

REPO = Path(__file__).resolve().parents[2]
DDL_SQLITE = Path(__file__).parent / "fixtures" / "ddl_sqlite.sql"
SEPARATED = ("SELECT ts_code FROM daily WHERE close > 10", "SELECT ts_code FROM daily WHERE close >= 10")
TWICE = ("SELECT ts_code FROM daily UNION ALL SELECT ts_code FROM daily", "SELECT ts_code FROM daily")
ESCAPE = "\x1b["


def two_rows(sql_type: str = "Int64") -> Counterexample:
    table = CounterexampleTable("t", (ColumnDef("x", "int", False, sql_type),), [(1,), (2,)])
    return Counterexample({"t": table})


def equiv_json(*arguments: str) -> dict[str, Any]:
    out = StringIO()
    call_command("equiv", *arguments, "--json", stdout=out)
    payload: dict[str, Any] = json.loads(out.getvalue())
    return payload


# --- the guard ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT ts_code FROM daily SETTINGS max_result_rows = 0",
        "SELECT ts_code FROM daily WHERE ts_code IN (SELECT name FROM system.tables)",
        "SELECT ts_code FROM file('/etc/passwd', 'CSV', 'ts_code String')",
        "SELECT ts_code FROM daily INTO OUTFILE 'leak.csv'",
        "SELECT ts_code FROM daily; DROP TABLE daily",
    ],
)
def test_sql_the_guard_refuses_is_neither_encoded_nor_run(sql: str) -> None:
    result = check_equivalence(sql, "SELECT ts_code FROM daily", schema=Schema.market(), bound=1)

    assert result.verdict == "unsupported"
    assert result.reason.startswith("refused by the SQL guard: ")
    assert result.counterexample is None and result.results is None


def test_the_clickhouse_validator_runs_each_query_through_the_guard() -> None:
    with pytest.raises(ValidationFailed, match=r"^query_rejected: .*internal database system"):
        ChdbValidator().execute(["SELECT name FROM system.tables"], two_rows())


def test_the_clickhouse_validator_applies_the_row_limit() -> None:
    assert ChdbValidator().execute(["SELECT x FROM t ORDER BY x"], two_rows()) == [[(1,), (2,)]]
    with pytest.raises(ValidationFailed, match=r"^result_too_large: "):
        ChdbValidator(limits=QueryLimits(max_result_rows=1)).execute(["SELECT x FROM t"], two_rows())


def test_the_clickhouse_validator_applies_the_time_limit() -> None:
    endless = "SELECT count() FROM t CROSS JOIN numbers(100000000000) AS n"
    with pytest.raises(ValidationFailed, match=r"^query_timeout: "):
        ChdbValidator(limits=QueryLimits(max_execution_seconds=1)).execute([endless], two_rows())


def test_the_command_confirms_counterexamples_under_the_query_limit_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert equiv_json(*TWICE, "--bound", "1")["verdict"] == "not_equivalent"

    monkeypatch.setattr(settings, "QUERY_MAX_RESULT_ROWS", 1)
    limited = equiv_json(*TWICE, "--bound", "1")

    assert limited["verdict"] == "unknown"
    assert limited["reason"].startswith("counterexample not verifiable: result_too_large: ")


def test_the_sqlite_validator_only_reads() -> None:
    for statement in [
        "ATTACH DATABASE 'elsewhere.sqlite3' AS other",
        "DELETE FROM t",
        "PRAGMA table_info(t)",
    ]:
        with pytest.raises(ValidationFailed, match="not authorized"):
            SqliteValidator().execute([statement], two_rows("INTEGER"))
    assert not Path("elsewhere.sqlite3").exists()


def test_the_sqlite_validator_applies_the_row_and_time_limits() -> None:
    with pytest.raises(ValidationFailed, match="more than 1 rows"):
        SqliteValidator(QueryLimits(max_result_rows=1)).execute(["SELECT x FROM t"], two_rows("INTEGER"))
    endless = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c"
    with pytest.raises(ValidationFailed, match="time limit"):
        SqliteValidator(QueryLimits(max_execution_seconds=1)).execute([endless], two_rows("INTEGER"))


# --- deep nesting ------------------------------------------------------------------------------------

NESTINGS: dict[str, Callable[[int], str]] = {
    "parentheses": lambda n: "SELECT a FROM r WHERE " + "(" * n + "b > 1" + ")" * n,
    "and-chain": lambda n: "SELECT a FROM r WHERE " + " AND ".join(["b > 1"] * n),
    "subqueries": lambda n: "SELECT a FROM " + "(SELECT a, b FROM " * n + "r" + ")" * n + " WHERE b > 1",
}


@pytest.mark.parametrize("dialect", ["clickhouse", "sqlite"])
@pytest.mark.parametrize("shape", sorted(NESTINGS))
def test_deep_nesting_is_a_clear_verdict_not_a_recursion_error(dialect: str, shape: str) -> None:
    deep = NESTINGS[shape](3000)

    payload = equiv_json(
        deep, "SELECT a FROM r WHERE b > 1", "--schema", str(DDL_SQLITE), "--dialect", dialect, "--bound", "1"
    )

    assert payload["verdict"] == "unsupported"
    assert "nested too deeply" in payload["reason"]


# --- scratch folders ---------------------------------------------------------------------------------


def scratch_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "VERISCREEN_DATA_DIR": str(tmp_path / "data")}
    return env, scratch


def equiv_leftovers(scratch: Path) -> list[str]:
    return sorted(name for name in os.listdir(scratch) if name.startswith("equiv"))


def test_the_command_leaves_no_scratch_folder(tmp_path: Path) -> None:
    env, scratch = scratch_env(tmp_path)
    completed = subprocess.run(
        [sys.executable, "manage.py", "equiv", *SEPARATED, "--json", "--bound", "1"],
        env=env, capture_output=True, text=True, cwd=REPO, timeout=180, check=False,
    )  # fmt: skip

    assert completed.returncode == 0, completed.stderr[-2000:]
    assert json.loads(completed.stdout)["confirmed"] is True  # the counterexample ran in a scratch folder
    assert equiv_leftovers(scratch) == []


FAILING_VALIDATION = """
from backend.domain.equivalence import ChdbValidator, ValidationFailed
from backend.domain.equivalence.counterexample import Counterexample, CounterexampleTable
from backend.domain.equivalence.schema import ColumnDef
table = CounterexampleTable("t", (ColumnDef("x", "int", False, "Int64"),), [(1,)])
try:
    ChdbValidator().execute(["SELECT x + 'text' FROM t"], Counterexample({"t": table}))
except ValidationFailed as error:
    print("refused:", error)
"""


def test_the_scratch_folder_is_deleted_when_validation_fails(tmp_path: Path) -> None:
    env, scratch = scratch_env(tmp_path)
    completed = subprocess.run(
        [sys.executable, "-c", FAILING_VALIDATION],
        env=env, capture_output=True, text=True, cwd=REPO, timeout=180, check=False,
    )  # fmt: skip

    assert completed.returncode == 0, completed.stderr[-2000:]
    assert equiv_leftovers(scratch) == []
    assert completed.stdout.startswith("refused: query_failed: ")


# --- colour ------------------------------------------------------------------------------------------


class TerminalOutput(StringIO):
    def isatty(self) -> bool:
        return True


def equiv_output(stdout: StringIO, *arguments: str) -> str:
    call_command("equiv", *SEPARATED, "--bound", "1", *arguments, stdout=stdout, force_color=True)
    return stdout.getvalue()


def test_the_verdict_is_coloured_on_a_terminal_only() -> None:
    on_terminal = equiv_output(TerminalOutput())
    into_a_file = equiv_output(StringIO())

    assert f"verdict: {ESCAPE}" in on_terminal
    assert ESCAPE not in into_a_file
    assert "verdict: not_equivalent (bound 1, bag semantics)" in into_a_file


def test_json_has_no_colour_even_on_a_terminal() -> None:
    output = equiv_output(TerminalOutput(), "--json")

    assert ESCAPE not in output
    assert json.loads(output)["verdict"] == "not_equivalent"


def run_on_a_terminal(env: dict[str, str], *arguments: str) -> str:
    """`manage.py equiv …` with stdout and stderr on a pseudo-terminal, as typed in a shell."""
    controller, terminal = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "manage.py", "equiv", *arguments],
        stdout=terminal,
        stderr=terminal,
        cwd=REPO,
        env=env,
    ) as process:
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal is closed once the process has exited
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=180)
    os.close(controller)
    return b"".join(chunks).decode()


def test_on_a_real_terminal_only_the_text_report_is_coloured(tmp_path: Path) -> None:
    env, _scratch = scratch_env(tmp_path)
    text = run_on_a_terminal(env, *SEPARATED, "--bound", "1")
    as_json = run_on_a_terminal(env, *SEPARATED, "--bound", "1", "--json")
    error_as_json = run_on_a_terminal(env, "SELECT 1", "SELECT 1", "--json", "--schema", "/no/such/ddl.sql")

    assert ESCAPE in text and "not_equivalent" in text
    assert ESCAPE not in as_json and json.loads(as_json)["verdict"] == "not_equivalent"
    assert ESCAPE not in error_as_json and "no such DDL file" in error_as_json
