"""Small builders of sqlglot expressions: every literal goes through them, so no user text is ever
spliced into SQL, and derived values are rounded the same way wherever they are compared."""

from __future__ import annotations

from datetime import date

from sqlglot import exp

from backend.domain.language.compiler.errors import CompileError
from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import Compare

DERIVED_DECIMALS = 6  # semantic_model.yaml conventions → derived_precision
OPS = {">": exp.GT, ">=": exp.GTE, "<": exp.LT, "<=": exp.LTE, "=": exp.EQ, "!=": exp.NEQ}


def date_literal(value: date) -> exp.Expr:
    return call("toDate", exp.Literal.string(value.isoformat()))


def number(value: float | int) -> exp.Expr:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    literal = exp.Literal.number(abs(value))
    return exp.Neg(this=literal) if value < 0 else literal


def string(value: str) -> exp.Expr:
    return exp.Literal.string(value)


def col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table)


def call(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def table(context: LanguageContext, name: str, alias: str | None = None) -> exp.Expr:
    source = exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(context.database))
    return exp.alias_(source, alias, table=True) if alias else source


def conjunction(conditions: list[exp.Expr]) -> exp.Expr:
    return exp.and_(*conditions) if len(conditions) > 1 else conditions[0]


def is_in(expression: exp.Expr, values: list[exp.Expr]) -> exp.Expr:
    return exp.In(this=expression, expressions=values)


def in_query(expression: exp.Expr, query: exp.Query) -> exp.Expr:
    return exp.In(this=expression, query=exp.Subquery(this=query))


def on_date(column: str, day: date) -> exp.Expr:
    return exp.EQ(this=col(column), expression=date_literal(day))


def days_after_until(base: date, end: date) -> exp.Expr:
    """Trading days of a window: after its base day, up to and including its end."""
    return exp.and_(
        exp.GT(this=col("trade_date"), expression=date_literal(base)),
        exp.LTE(this=col("trade_date"), expression=date_literal(end)),
    )


def membership(column: exp.Expr, values: tuple[str, ...]) -> exp.Expr:
    if len(values) == 1:
        return exp.EQ(this=column, expression=string(values[0]))
    return is_in(column, [string(value) for value in values])


def ordered(expression: exp.Expr, direction: str) -> exp.Ordered:
    """An ordering key of the question; rows without a value go last either way."""
    return exp.Ordered(this=expression, desc=direction == "desc", nulls_first=False)


def settled(expression: exp.Expr) -> exp.Expr:
    """A derived value (average, gain, ratio, formula) rounded to DERIVED_DECIMALS for a comparison.

    Stored prices have 2 decimals, so "close above its MA" or "gain over 30%" often meet exact
    mathematical ties that float arithmetic tips either way (8.64 vs 8.640000000000002); rounding
    the derived side settles them to the exact value. Shown values keep full precision.
    """
    return call("round", expression.copy(), number(DERIVED_DECIMALS))


def derived(expression: exp.Expr) -> exp.Expr:
    """Mark a computed value, so that comparisons settle it (see `settled`)."""
    expression.meta["derived"] = True
    return expression


def operand(expression: exp.Expr) -> exp.Expr:
    """A copy of a value to stand inside an operation: bracketed when it is an operation itself (a
    formula such as least(open, close) - low), so that 100 × it keeps its order."""
    copied = expression.copy()
    return exp.Paren(this=copied) if isinstance(copied, exp.Binary) else copied


def comparable(expression: exp.Expr) -> exp.Expr:
    return settled(expression) if expression.meta.get("derived") else expression


def comparison(expression: exp.Expr, condition: Compare) -> exp.Expr:
    """`expression` OP value (or BETWEEN) of a Compare, whose values are already in the stored unit."""
    expression = comparable(expression)
    if condition.op == "between":
        if condition.value2 is None:
            raise CompileError("between needs two values")
        low, high = sorted((condition.value, condition.value2))
        return exp.Between(this=expression, low=number(low), high=number(high))
    if condition.op == "has":  # 有市盈率的: a value at all (a loss maker has no P/E)
        return exp.Not(this=exp.Is(this=expression, expression=exp.Null()))
    if condition.op not in OPS:
        raise CompileError(f"unknown operator {condition.op!r}")
    return OPS[condition.op](this=expression, expression=number(condition.value))
