"""Behaviour of check_equivalence beyond the fixture pairs: the seed anecdote, known non-equivalent
rewrites, spurious counterexamples, counterexample reuse and the result shape."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from backend.domain.equivalence import (
    ChdbValidator,
    CounterexampleStore,
    Schema,
    SqliteValidator,
    ValidationFailed,
    check_equivalence,
)
from backend.domain.equivalence.counterexample import Counterexample, CounterexampleTable
from backend.domain.equivalence.schema import ColumnDef

FIXTURES = Path(__file__).parent / "fixtures"
SQLITE_SCHEMA = Schema.from_ddl((FIXTURES / "ddl_sqlite.sql").read_text(encoding="utf-8"), "sqlite")

# The seed's BIRD example: the gold SQL wrote `rnp != '-' OR '+-'` for "rnp is neither '-' nor '+-'".
SEED_GOLD = (
    "SELECT p.birthday FROM patient AS p JOIN laboratory AS l ON p.id = l.id "
    "WHERE l.rnp != '-' OR '+-' ORDER BY p.birthday DESC LIMIT 1"
)
SEED_INTENDED = (
    "SELECT p.birthday FROM patient AS p JOIN laboratory AS l ON p.id = l.id "
    "WHERE l.rnp != '-' AND l.rnp != '+-' ORDER BY p.birthday DESC LIMIT 1"
)


def test_seed_anecdote_string_literal_in_boolean_context_is_caught() -> None:
    # SQLite reads the string '+-' in a boolean context as the number 0 (its numeric prefix is
    # empty), i.e. FALSE, so the gold condition is just `rnp != '-'` and lets '+-' through.
    result = check_equivalence(SEED_GOLD, SEED_INTENDED, schema=SQLITE_SCHEMA, dialect="sqlite")
    assert result.verdict == "not_equivalent"
    assert result.confirmed
    assert result.counterexample is not None
    rnp_values = [row[1] for row in result.counterexample["laboratory"]["rows"]]
    assert "+-" in rnp_values
    assert result.results is not None and result.results["a"] != result.results["b"]


def test_sqlite_really_reads_the_literal_as_false() -> None:
    connection = sqlite3.connect(":memory:")
    assert connection.execute("SELECT CASE WHEN '+-' THEN 1 ELSE 0 END").fetchone() == (0,)
    assert connection.execute("SELECT CASE WHEN '2abc' THEN 1 ELSE 0 END").fetchone() == (1,)


def test_seed_anecdote_in_clickhouse_is_unsupported_because_clickhouse_rejects_it() -> None:
    ddl = "CREATE TABLE laboratory (id Int64, rnp String) ENGINE = Memory"
    schema = Schema.from_ddl(ddl, "clickhouse")
    gold = "SELECT id FROM laboratory WHERE rnp != '-' OR '+-'"
    result = check_equivalence(gold, "SELECT id FROM laboratory WHERE rnp != '-'", schema=schema)
    assert result.verdict == "unsupported"
    assert "string in a boolean context" in result.reason
    # chdb itself refuses the gold query, so no verdict could be confirmed there.
    database = Counterexample(
        {"laboratory": CounterexampleTable("laboratory", schema.tables["laboratory"].columns)}
    )
    with pytest.raises(ValidationFailed, match=r"ILLEGAL_TYPE_OF_ARGUMENT|Illegal type"):
        ChdbValidator().execute([gold], database)


def test_cosette_count_bug_is_not_equivalent_with_a_confirmed_counterexample() -> None:
    text = (FIXTURES / "cosette" / "countbug.sql").read_text(encoding="utf-8")
    statements = [s.strip() for s in text.split(";") if s.strip()]
    schema = Schema.from_ddl(";".join(statements[:2]), "sqlite")
    q1, q2 = (s.split("\n", 1)[1] for s in statements[2:])
    result = check_equivalence(q1, q2, schema=schema, dialect="sqlite")
    assert result.verdict == "not_equivalent" and result.confirmed
    # The bug shows on a part with quantity 0 and no qualifying supply: q1 returns it, q2 does not.
    assert result.results is not None
    assert len(result.results["a"]) > len(result.results["b"])


def test_spurious_counterexample_is_never_a_verdict() -> None:
    # Encode with SQLite semantics (7 / 2 = 3) but confirm on ClickHouse (7 / 2 = 3.5): every
    # model the solver finds (x = 3, x = -3, ...) separates the queries only in the encoding.
    schema = Schema.from_ddl("CREATE TABLE t (x INTEGER NOT NULL)", "sqlite")
    result = check_equivalence(
        "SELECT x FROM t WHERE x / 2 = 1",
        "SELECT x FROM t WHERE x = 2",
        schema=schema,
        dialect="sqlite",
        bound=2,
        validator=ChdbValidator(),
    )
    assert result.verdict == "unknown"
    assert not result.confirmed
    assert result.spurious, result.reason
    assert "spurious" in result.reason
    for candidate in result.spurious:
        assert candidate["results"]["a"] == candidate["results"]["b"]


def test_same_pair_with_the_matching_engine_is_confirmed() -> None:
    schema = Schema.from_ddl("CREATE TABLE t (x INTEGER NOT NULL)", "sqlite")
    result = check_equivalence(
        "SELECT x FROM t WHERE x / 2 = 1",
        "SELECT x FROM t WHERE x = 2",
        schema=schema,
        dialect="sqlite",
        bound=2,
    )
    assert result.verdict == "not_equivalent" and result.confirmed


def test_counterexample_reuse_tests_stored_databases_before_the_solver() -> None:
    store = CounterexampleStore()
    gold = "SELECT ts_code FROM daily WHERE close > 10"
    market = Schema.market()
    first = check_equivalence(
        gold, "SELECT ts_code FROM daily WHERE close >= 10", schema=market, counterexample_store=store
    )
    assert first.verdict == "not_equivalent" and not first.reused
    assert len(store) == 1
    # Another candidate with the same boundary mistake is separated by the stored database.
    second = check_equivalence(
        gold, "SELECT ts_code FROM daily WHERE close >= 10 AND vol >= 0 OR close >= 10", schema=market,
        counterexample_store=store,
    )  # fmt: skip
    assert second.verdict == "not_equivalent" and second.reused and second.confirmed
    assert second.counterexample == first.counterexample
    # A correct candidate is not separated by the stored database and gets a full check.
    third = check_equivalence(
        gold, "SELECT ts_code FROM daily WHERE 10 < close", schema=market, counterexample_store=store
    )
    assert third.verdict == "equivalent" and not third.reused


def test_result_as_dict_has_the_documented_keys() -> None:
    result = check_equivalence(
        "SELECT name FROM stock_basic WHERE exchange = 'SSE'",
        "SELECT name FROM stock_basic WHERE exchange = 'SZSE'",
        schema=Schema.market(),
        bound=2,
    )
    payload = result.to_dict()
    for key in ("verdict", "bound", "counterexample", "confirmed", "seconds", "reason"):
        assert key in payload
    assert payload["verdict"] == "not_equivalent"
    assert payload["counterexample"]["stock_basic"]["columns"][0] == "ts_code"
    exchanges = {row[7] for row in payload["counterexample"]["stock_basic"]["rows"]}
    assert exchanges & {"SSE", "SZSE"}


def test_unparseable_sql_is_unsupported_not_a_crash() -> None:
    result = check_equivalence("SELECT FROM WHERE", "SELECT 1", schema=Schema.market())
    assert result.verdict == "unsupported"


def test_sqlite_validator_reports_engine_errors() -> None:
    table = CounterexampleTable("t", (ColumnDef("x", "int", False, "INTEGER"),), [(1,)])
    database = Counterexample({"t": table})
    assert SqliteValidator().execute(["SELECT x FROM t"], database) == [[(1,)]]
    with pytest.raises(ValidationFailed):
        SqliteValidator().execute(["SELECT nope FROM t"], database)


JOIN_RUNNING_SERVER = """
import sys
from backend.domain.equivalence import ChdbValidator
from backend.domain.market.embedded import open_embedded
from backend.domain.equivalence.counterexample import Counterexample, CounterexampleTable
from backend.domain.equivalence.schema import ColumnDef
market = open_embedded(sys.argv[1])  # as the market store opens it
table = CounterexampleTable("t", (ColumnDef("x", "int", False, "Int64"),), [(1,), (2,)])
print(ChdbValidator().execute(["SELECT sum(x) FROM t"], Counterexample({"t": table})))
print(market.query("SELECT count() FROM system.databases WHERE name LIKE 'equiv_%'").result_rows)
"""


def test_chdb_validator_joins_the_server_the_process_already_runs(tmp_path: Path) -> None:
    # chdb runs one embedded server per process: a process that opened the market store first must
    # still validate counterexamples, in a throw-away database that is dropped afterwards.
    completed = subprocess.run(
        [sys.executable, "-c", JOIN_RUNNING_SERVER, str(tmp_path / "market")],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2], check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.splitlines() == ["[[(3,)]]", "[(0,)]"]


def test_market_foreign_keys_are_an_opt_in_assumption() -> None:
    joined = "SELECT d.ts_code, d.close FROM daily AS d JOIN stock_basic AS b ON d.ts_code = b.ts_code"
    plain = "SELECT ts_code, close FROM daily"
    # Without the assumption a bar whose stock is missing from stock_basic separates the queries.
    without = check_equivalence(joined, plain, schema=Schema.market(), bound=2)
    assert without.verdict == "not_equivalent"
    assert without.counterexample is not None and not without.counterexample["stock_basic"]["rows"]
    # With it (and ts_code the primary key of stock_basic) the join neither drops nor repeats bars.
    assumed = check_equivalence(joined, plain, schema=Schema.market(assume_foreign_keys=True), bound=2)
    assert assumed.verdict == "equivalent"
