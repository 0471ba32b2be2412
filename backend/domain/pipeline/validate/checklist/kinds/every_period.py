"""Every-day / every-year quantifiers: 每天都 / 连续N天 / 都超过 / every day / each of the last N / in a row.

The condition must hold on all the days (years, periods) at once, which takes an aggregate over
them: HAVING count() = N / countIf(…) = N / min(…) > 0, arrayAll, … A SQL with no aggregate,
window, array test, self-join or per-stock subquery filters row by row: it lists each day on which
the condition held instead of the stocks for which it held every day.
Growth every year over a year range ("grew revenue every year from 2020 through 2024") is measured
in the first year against the year before it: a SQL that reads neither that year nor a stored
year-over-year rate compares one year fewer than asked (or reads the range otherwise: undecidable).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import COUNT, Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    columns_of,
    enclosing_select,
    is_date_column,
    under_not,
)

_ALWAYS = re.compile(
    rf"每(?:天|日|个交易日|年|期|个报告期|季度)都|连续\s*{COUNT}\s*个?\s*(?:交易日|天|日|年|报告期|期|季度|周|月)"
    r"|\d{4}\s*年?\s*(?:和|与|及|、)\s*\d{4}\s*年[^，,。]{0,15}?都"
    rf"|\bevery (?:trading )?(?:day|year|session)\b|\b{COUNT} consecutive\b"
    rf"|\b{COUNT} (?:trading )?(?:days|years|sessions) in a row\b"
    r"|\bnever\b.{0,40}?\bon any day\b|\bin both \d{4} and \d{4}\b"
)
# "each of the last N …" is a quantifier unless a statistic is asked per period (then it groups).
_EACH = re.compile(rf"\b(?:in|on|for) each of the (?:last|past) {COUNT}\b|\beach (?:trading )?day\b")
_COUNT_ASKED = re.compile(r"\b(?:how many|number of)\b", re.IGNORECASE)
_YEAR_RANGE = re.compile(
    r"\b(?:from|between)\s+(?P<en>\d{4})\s+(?:through|to|until|and)\s+\d{4}\b"
    r"|(?P<zh>\d{4})\s*年?\s*(?:到|至|-|—|~)\s*\d{4}\s*年"
)
_GROWTH = re.compile(
    r"增长|增加|上升|提高|提升|\b(?:grew|grow|grows|growing|growth|increased?|increasing|rose|rising)\b"
)
_ALL_TESTS = {"arrayall", "arrayexists", "arraycount", "hasall", "arraymin", "arraymax", "grouparray"}


@dataclass(frozen=True)
class EveryPeriodDetail:
    kind: ClassVar[Kind] = Kind.EVERY_PERIOD
    growth_from: int = 0  # the first year of a range over which growth is asked every year, or 0
    # "how many … hit limit-up on each of the last 5 days" reads also as one count per day
    per_day_too: bool = False

    def check(self, sql: Sql) -> Finding:
        havings = [select.args["having"] for select in sql.selects if select.args.get("having")]
        if havings and not sql.functions & _ALL_TESTS and all(_only_totals(having) for having in havings):
            return failed(
                Attribution.AGGREGATION,
                "the HAVING tests a sum or an average over the periods (a net move), not every period",
            )
        if (
            havings
            and not sql.functions & _ALL_TESTS
            and all(_only_some_period(having) for having in havings)
        ):
            return failed(
                Attribution.AGGREGATION,
                "the HAVING tests the largest (or smallest) value the wrong way round: max(x) > c holds "
                "when one period is above c, every period needs min(x) > c",
            )
        if havings or sql.functions & _ALL_TESTS:
            base = self.growth_from - 1
            if self.growth_from and not _reads_year(sql, base) and not _reads_growth_rate(sql):
                return undecided(
                    f"growth in {self.growth_from} is measured against {base}, which the SQL does not "
                    "read (nor a stored year-over-year rate)"
                )
            if self.per_day_too:
                return undecided(
                    "the condition is tested over all periods at once, but the count asked may be one per day"
                )
            return passed("the condition is tested over all periods at once (HAVING or an array test)")
        if _aggregates(sql) or _combines_rows(sql):
            return undecided(
                "the SQL aggregates or combines rows without HAVING; the all-periods test is not read"
            )
        return failed(
            Attribution.AGGREGATION,
            "the condition is checked row by row: the SQL lists each period it held on, not the stocks "
            "for which it held on every one",
        )


_EXISTS_SIDE: dict[type[exp.Expr], tuple[type[exp.Expr], ...]] = {
    exp.Max: (exp.GT, exp.GTE),
    exp.Min: (exp.LT, exp.LTE),
}
_MIRROR: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.LT,
    exp.GTE: exp.LTE,
    exp.LT: exp.GT,
    exp.LTE: exp.GTE,
}


def _some_period_test(comparison: exp.Expr) -> bool:
    """max(x) > c or min(x) < c (either way round): true when one period passes, not all."""
    op, extreme, constant = type(comparison), comparison.this, comparison.expression
    if isinstance(extreme, exp.Literal | exp.Neg):
        op, extreme, constant = _MIRROR[op], constant, extreme
    extreme = extreme.this if isinstance(extreme, exp.Paren) else extreme
    wanted = _EXISTS_SIDE.get(type(extreme), ())
    return isinstance(constant, exp.Literal | exp.Neg) and op in wanted


def _only_some_period(having: exp.Expr) -> bool:
    """Every test of a measured column in the HAVING is a some-period test (max(pct_chg) > 0); a count
    of rows beside it (count() = 5) only checks that the days exist."""
    measured = [
        node
        for node in having.find_all(exp.AggFunc, exp.Anonymous)
        if any(not is_date_column(column) for column in columns_of(node))
    ]
    if not measured or not all(isinstance(node, exp.Max | exp.Min) for node in measured):
        return False
    return all(
        isinstance(node.parent, exp.GT | exp.GTE | exp.LT | exp.LTE) and _some_period_test(node.parent)
        for node in measured
    )


def _only_totals(having: exp.Expr) -> bool:
    """HAVING sum(pct_chg) > 0: the only aggregates of a measured column are sums or averages (a count
    of rows beside them only checks that the days exist). min(…), countIf(…), max(…) test each row;
    sumIf(x, day = …) picks one period's value."""
    measured = [
        node
        for node in having.find_all(exp.AggFunc, exp.Anonymous)
        if any(not is_date_column(column) for column in columns_of(node))
    ]
    return bool(measured) and all(isinstance(node, exp.Sum | exp.Avg) for node in measured)


def _date_lookup(select: exp.Select | None) -> bool:
    """SELECT max(trade_date) … / SELECT DISTINCT trade_date …: picks days, not stocks."""
    if select is None:
        return False
    columns = [columns_of(projection) for projection in select.expressions]
    return all(names and all(map(is_date_column, names)) for names in columns)


def _aggregates(sql: Sql) -> bool:
    return any(
        not _date_lookup(enclosing_select(node)) for node in sql.tree.find_all(exp.AggFunc, exp.Window)
    )


def _combines_rows(sql: Sql) -> bool:
    """Other ways to say "on every day": a self-join, ts_code NOT IN (the days it failed), or the
    intersection of several per-stock subqueries."""
    for select in sql.selects:
        items = [select.args["from_"].this] if isinstance(select.args.get("from_"), exp.From) else []
        items += [join.this for join in select.args.get("joins") or []]
        names = [item.name for item in items if isinstance(item, exp.Table)]
        if len(names) != len(set(names)):
            return True
    per_stock = 0
    for node in sql.tree.find_all(exp.In, exp.Exists):
        query = node.args.get("query") if isinstance(node, exp.In) else node.this
        inner = query.this if isinstance(query, exp.Subquery) else query
        if isinstance(inner, exp.Select) and not _date_lookup(inner):
            if under_not(node):
                return True
            per_stock += 1
    return per_stock >= 2


def _reads_year(sql: Sql, year: int) -> bool:
    """A date of the year, the year as a number (toYear(end_date) >= 2019) or as a string."""
    return (
        any(day.year == year for day in sql.dates)
        or year in sql.numbers
        or any(str(year) in text for text in sql.strings)
    )


def _reads_growth_rate(sql: Sql) -> bool:
    return any("yoy" in column.name.lower() for column in sql.tree.find_all(exp.Column))


def _growth_from(question: Question) -> int:
    years = _YEAR_RANGE.search(question.text)
    if years is None or _GROWTH.search(question.text) is None:
        return 0
    return int(years["en"] or years["zh"])


def extract(question: Question) -> list[Constraint]:
    cue = _ALWAYS.search(question.text)
    each = _EACH.search(question.text)
    if cue is None and each is not None and not question.statistic_before(each.start()):
        cue = each
    if cue is None:
        return []
    # a count before "on each of the last N days" (no statistic per period, no quantifier word): the
    # stocks that met the condition on every day, or the number meeting it on each day
    counted = _COUNT_ASKED.search(question.text, 0, cue.start())
    per_day_too = cue is each and counted is not None
    span = question.span(cue.start(), cue.end())
    text = question.says(
        f"“{span.text}”：条件须在每一期都成立", f"“{span.text}”: the condition must hold on every period"
    )
    return [Constraint(span, text, question.lang, EveryPeriodDetail(_growth_from(question), per_day_too))]
