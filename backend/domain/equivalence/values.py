"""Symbolic SQL values: a z3 term plus an is-NULL flag, with SQL three-valued logic and calendar dates.

Kinds: "int", "real", "string", "date" (a day number since 1970-01-01; calendar functions split it
into (year, month, day) with month-length and leap-year constraints), "bool" (a three-valued truth
value) and "null" (an untyped NULL literal that takes the kind of its partner).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from fractions import Fraction

import z3

from backend.domain.equivalence.errors import Unsupported

EPOCH = dt.date(1970, 1, 1)
MAX_DAY_NUMBER = 65535  # ClickHouse Date ends at 2149-06-06
FALSE = z3.BoolVal(False)
TRUE = z3.BoolVal(True)


@dataclass(frozen=True)
class Val:
    kind: str
    v: z3.ExprRef
    null: z3.BoolRef
    literal: object = None  # the Python value when the term is a SQL literal (for implicit casts)


def bool_val(truth: z3.BoolRef, null: z3.BoolRef = FALSE) -> Val:
    return Val("bool", truth, null)


def null_val(kind: str = "null") -> Val:
    return Val(kind, default_term(kind), TRUE)


def default_term(kind: str) -> z3.ExprRef:
    """The value ClickHouse uses for a non-Nullable column with no value (outer joins, empty sums)."""
    if kind in ("int", "date", "null"):
        return z3.IntVal(0)
    if kind == "real":
        return z3.RealVal(0)
    if kind == "string":
        return z3.StringVal("")
    return FALSE


def int_const(value: int) -> Val:
    return Val("int", z3.IntVal(value), FALSE, value)


def real_const(value: Fraction | float | str) -> Val:
    return Val("real", z3.RealVal(str(value)), FALSE, Fraction(str(value)))


def string_const(value: str) -> Val:
    return Val("string", z3.StringVal(value), FALSE, value)


def date_const(value: dt.date) -> Val:
    return Val("date", z3.IntVal((value - EPOCH).days), FALSE, value)


def parse_date_literal(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


# --- three-valued logic -------------------------------------------------------------------------


def is_true(value: Val) -> z3.BoolRef:
    """A row passes WHERE / ON / HAVING only when the condition is TRUE (not FALSE, not NULL)."""
    return z3.And(z3.Not(value.null), value.v)


def and3(a: Val, b: Val) -> Val:
    false_a = z3.And(z3.Not(a.null), z3.Not(a.v))
    false_b = z3.And(z3.Not(b.null), z3.Not(b.v))
    is_false = z3.Or(false_a, false_b)
    return bool_val(z3.And(is_true(a), is_true(b)), z3.And(z3.Not(is_false), z3.Or(a.null, b.null)))


def or3(a: Val, b: Val) -> Val:
    is_t = z3.Or(is_true(a), is_true(b))
    return bool_val(is_t, z3.And(z3.Not(is_t), z3.Or(a.null, b.null)))


def not3(a: Val) -> Val:
    return bool_val(z3.Not(a.v), a.null)


# --- kinds and casts ----------------------------------------------------------------------------


def numeric_prefix(text: str) -> Fraction:
    """SQLite's reading of a string as a number: the longest numeric prefix, else 0 ('+-' -> 0)."""
    stripped = text.strip()
    best = Fraction(0)
    for end in range(1, len(stripped) + 1):
        try:
            best = Fraction(stripped[:end])
        except (ValueError, ZeroDivisionError):
            continue
    return best


def as_real(value: Val) -> z3.ArithRef:
    if value.kind == "real":
        return value.v
    if value.kind in ("int", "null", "date"):
        return z3.ToReal(value.v)
    raise Unsupported(f"{value.kind} used as a number")


def unify_numeric(a: Val, b: Val) -> tuple[z3.ExprRef, z3.ExprRef, str]:
    kinds = {a.kind, b.kind} - {"null"}
    if not kinds:
        return z3.IntVal(0), z3.IntVal(0), "int"
    if kinds <= {"int"}:
        return a.v, b.v, "int"
    if kinds <= {"int", "real"}:
        return as_real(a), as_real(b), "real"
    if kinds == {"date"} or kinds <= {"date", "int"}:
        return a.v, b.v, "date"
    raise Unsupported(f"arithmetic between {a.kind} and {b.kind}")


def coerce_literal(value: Val, kind: str) -> Val | None:
    """Implicit cast of a literal to the kind of the column it meets (e.g. '2024-01-31' vs a Date)."""
    if value.literal is None or value.kind == kind:
        return None
    literal = value.literal
    if kind == "date" and isinstance(literal, str):
        parsed = parse_date_literal(literal)
        return date_const(parsed) if parsed else None
    if kind == "string" and isinstance(literal, int | Fraction) and not isinstance(literal, bool):
        text = str(literal) if isinstance(literal, int) else str(float(literal))
        return string_const(text)
    if kind in ("int", "real") and isinstance(literal, str):
        try:
            number = Fraction(literal.strip())
        except (ValueError, ZeroDivisionError):
            return None
        return int_const(int(number)) if number.denominator == 1 and kind == "int" else real_const(number)
    return None


def with_kind(value: Val, kind: str) -> Val:
    """Give an untyped NULL literal the kind of its partner."""
    if value.kind == "null":
        return null_val(kind)
    return value


# --- comparisons ----------------------------------------------------------------------------------


def terms_equal(a: Val, b: Val) -> z3.BoolRef:
    """Equality of the underlying terms, ignoring NULL flags (callers combine with them)."""
    if a.kind == b.kind or {a.kind, b.kind} <= {"int", "date", "null"}:
        if a.kind == "bool" or b.kind == "bool":
            return a.v == b.v if a.kind == b.kind else FALSE
        return a.v == b.v
    if {a.kind, b.kind} <= {"int", "real", "null"}:
        return as_real(a) == as_real(b)
    return FALSE


def same_value(a: Val, b: Val) -> z3.BoolRef:
    """NULL-safe equality used for DISTINCT, GROUP BY and comparing result rows (NULL equals NULL)."""
    if z3.is_false(a.null) and z3.is_false(b.null):
        return terms_equal(a, b)  # the common NOT NULL case, without the NULL cases
    return z3.Or(z3.And(a.null, b.null), z3.And(z3.Not(a.null), z3.Not(b.null), terms_equal(a, b)))


def less_than(a: Val, b: Val) -> z3.BoolRef:
    if a.kind == "string" and b.kind == "string":
        return z3.StrLT(a.v, b.v) if hasattr(z3, "StrLT") else a.v < b.v
    x, y, _ = unify_numeric(a, b)
    return x < y


# --- calendar -------------------------------------------------------------------------------------


# Days before the first of each month in a common year; the leap day is added separately.
_DAYS_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def _is_leap(year: z3.ArithRef) -> z3.BoolRef:
    # Years are limited to 1970..2149, where 2000 is the only century leap year and 2100 is not one.
    return z3.And(year % 4 == 0, year != 2100)


def _days_before_month(month: z3.ArithRef) -> z3.ArithRef:
    result: z3.ArithRef = z3.IntVal(_DAYS_BEFORE_MONTH[-1])
    for index in range(len(_DAYS_BEFORE_MONTH) - 2, -1, -1):
        result = z3.If(month == index + 1, _DAYS_BEFORE_MONTH[index], result)
    return result


def _days_from_civil(year: z3.ArithRef, month: z3.ArithRef, day: z3.ArithRef) -> z3.ArithRef:
    """Day number since 1970-01-01 of a valid date in 1970..2149, in linear integer arithmetic."""
    leap_days_before_year = (year - 1969) / 4 - z3.If(year > 2100, 1, 0)
    leap_day = z3.If(z3.And(month > 2, _is_leap(year)), 1, 0)
    return 365 * (year - 1970) + leap_days_before_year + _days_before_month(month) + leap_day + day - 1


def _month_length(year: z3.ArithRef, month: z3.ArithRef) -> z3.ArithRef:
    thirty = z3.Or(month == 4, month == 6, month == 9, month == 11)
    return z3.If(month == 2, z3.If(_is_leap(year), 29, 28), z3.If(thirty, 30, 31))


def valid_date(year: z3.ArithRef, month: z3.ArithRef, day: z3.ArithRef) -> z3.BoolRef:
    return z3.And(
        year >= 1970, year <= 2149, month >= 1, month <= 12, day >= 1, day <= _month_length(year, month)
    )


class Calendar:
    """Splits day numbers into (year, month, day) once per term, with validity constraints."""

    def __init__(self, constraints: list[z3.BoolRef], prefix: str) -> None:
        self._constraints = constraints
        self._prefix = prefix
        self._parts: dict[int, tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]] = {}

    def parts(self, day_number: z3.ArithRef) -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]:
        key = day_number.get_id()
        if key not in self._parts:
            index = len(self._parts)
            y, m, d = (z3.Int(f"{self._prefix}cal{index}_{p}") for p in "ymd")
            self._constraints.append(valid_date(y, m, d))
            self._constraints.append(_days_from_civil(y, m, d) == day_number)
            self._parts[key] = (y, m, d)
        return self._parts[key]

    def from_parts(self, year: z3.ArithRef, month: z3.ArithRef, day: z3.ArithRef) -> z3.ArithRef:
        return _days_from_civil(year, month, day)

    def add_months(self, day_number: z3.ArithRef, months: int) -> z3.ArithRef:
        """ClickHouse/SQL month arithmetic: the day is clamped to the length of the target month."""
        y, m, d = self.parts(day_number)
        total = y * 12 + (m - 1) + months
        new_y, new_m = total / 12, total % 12 + 1
        new_d = z3.If(d > _month_length(new_y, new_m), _month_length(new_y, new_m), d)
        return _days_from_civil(new_y, new_m, new_d)


def day_number_to_date(days: int) -> dt.date:
    return EPOCH + dt.timedelta(days=days)
