"""Schema reading (DDL and the market schema) and the calendar encoding of dates."""

from __future__ import annotations

import datetime as dt

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.domain.equivalence import Schema
from backend.domain.equivalence import values as V

DDL = """
CREATE TABLE `dept` (`deptno` int primary key not null, `name` varchar(10) not null);
CREATE TABLE emp (
  empno INT NOT NULL,
  deptno INT REFERENCES dept,
  hired DATE,
  pay DECIMAL(10, 2),
  PRIMARY KEY (empno)
);
CREATE TABLE assignment (empno INT, project TEXT, FOREIGN KEY (empno) REFERENCES emp (empno));
INSERT INTO dept VALUES (1, 'x');
"""


def test_ddl_gives_kinds_nullability_and_keys() -> None:
    schema = Schema.from_ddl(DDL, "mysql")
    assert set(schema.tables) == {"dept", "emp", "assignment"}
    emp = schema.tables["emp"]
    assert [c.kind for c in emp.columns] == ["int", "int", "date", "real"]
    assert emp.primary_key == ("empno",)
    assert not emp.column("empno").nullable and emp.column("hired").nullable  # type: ignore[union-attr]
    # A REFERENCES without columns points at the parent's primary key.
    assert emp.foreign_keys[0].parent == "dept" and emp.foreign_keys[0].parent_columns == ("deptno",)
    assert schema.tables["assignment"].foreign_keys[0].parent_columns == ("empno",)


def test_clickhouse_ddl_types() -> None:
    ddl = "CREATE TABLE q (d Date, n Nullable(Float64), c LowCardinality(String), u UInt8) ENGINE = Memory"
    table = Schema.from_ddl(ddl, "clickhouse").tables["q"]
    assert [(c.kind, c.nullable) for c in table.columns] == [
        ("date", False), ("real", True), ("string", False), ("int", False),
    ]  # fmt: skip
    assert table.column("u").minimum == 0 and table.column("u").maximum == 255  # type: ignore[union-attr]


def test_market_schema_comes_from_the_canonical_tables() -> None:
    schema = Schema.market()
    daily = schema.tables["daily"]
    assert daily.primary_key == ("ts_code", "trade_date")
    assert daily.column("trade_date").kind == "date"  # type: ignore[union-attr]
    assert schema.tables["stock_basic"].column("delist_date").nullable  # type: ignore[union-attr]


@settings(max_examples=40, deadline=None)
@given(st.dates(min_value=dt.date(1970, 1, 1), max_value=dt.date(2149, 6, 6)))
def test_calendar_split_matches_the_real_calendar(day: dt.date) -> None:
    constraints: list[z3.BoolRef] = []
    calendar = V.Calendar(constraints, "t")
    number = (day - V.EPOCH).days
    year, month, date = calendar.parts(z3.IntVal(number))
    solver = z3.Solver()
    solver.add(*constraints)
    assert solver.check() == z3.sat
    model = solver.model()
    assert (model.eval(year).as_long(), model.eval(month).as_long(), model.eval(date).as_long()) == (
        day.year, day.month, day.day,
    )  # fmt: skip
    # And the split is unique: no other (year, month, day) names the same day number.
    solver.add(z3.Or(year != day.year, month != day.month, date != day.day))
    assert solver.check() == z3.unsat


def test_month_lengths_and_leap_years() -> None:
    y, m, d = z3.Ints("y m d")
    for year, month, last in (
        (2024, 2, 29),
        (2023, 2, 28),
        (2000, 2, 29),
        (2100, 2, 28),
        (2025, 4, 30),
        (2025, 3, 31),
    ):
        solver = z3.Solver()
        solver.add(V.valid_date(y, m, d), y == year, m == month, d == last + 1)
        assert solver.check() == z3.unsat, (year, month)
        solver = z3.Solver()
        solver.add(V.valid_date(y, m, d), y == year, m == month, d == last)
        assert solver.check() == z3.sat


def test_numeric_prefix_follows_sqlite() -> None:
    assert V.numeric_prefix("+-") == 0
    assert V.numeric_prefix("12abc") == 12
    assert V.numeric_prefix(" 2.5x") == V.Fraction("2.5")
