"""Do the rows an answer counts or lists repeat? Decided with data, on the candidate's own rows.

- **a count of things** (多少家公司, 几个行业, how many stocks / trading days): a count() in the answer
  counts rows; when a join repeats a stock (one row per report period, per index snapshot, per day)
  or the rows span several days, it counts the same stock more than once. The reverse query keeps
  the candidate whole and adds, beside each counting projection, the number of *different* stocks
  (industries, days) among the same rows: uniqExact(ts_code). A count that differs from it on a row
  of the answer counts repeats. A count the question asks of occurrences (次数, times) is left alone.
- **a sum or average over a join** (avg(f.roe) joined to every index snapshot): each row of the
  aggregated table should be read once; the reverse query adds count() and the number of different
  rows of that table (uniqExact of its key) to the candidate.
- **a list of things** (which stocks / 哪些行业) made only of names and codes: the same row twice
  (an industry per falling stock, a stock per joined period) lists a thing twice. The reverse query
  counts the candidate's rows and its distinct rows.

Both read only the question's text, the candidate's tree and the data — never another check.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from sqlglot import exp

from backend.domain.market.guard import DIALECT
from backend.domain.pipeline.ports import MarketReader
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check, own_rows
from backend.domain.pipeline.validate.reverse.subject import number_of

_STOCK_KEYS = ("ts_code", "con_code")


@dataclass(frozen=True)
class _Counted:
    what: str  # stocks, industries, trading days
    keys: tuple[str, ...]  # the columns naming one of them, in preference order


_STOCKS = _Counted("stocks", _STOCK_KEYS)
_INDUSTRIES = _Counted("industries", ("industry",))
_DAYS = _Counted("trading days", ("trade_date", "cal_date"))  # the calendar names a day by cal_date
_COUNTED = (
    (
        re.compile(
            r"多少\s*(?:只|家|支)|几\s*(?:只|家|支)|家数|只数|(?:股票|公司)(?:的)?(?:数量|个数)"
            r"|\b(?:how many|number of)\s+(?:of\s+(?:the\s+|these\s+|today'?s\s+|all\s+)?)?"
            r"(?:different\s+|distinct\s+|unique\s+)?(?:\w+\s+){0,2}?"
            r"(?:stocks|companies|shares|constituents|members|firms|names)\b"
        ),
        _STOCKS,
    ),
    (
        re.compile(
            r"(?:多少|几)\s*个?\s*(?:不同的?)?行业|行业(?:的)?(?:数量|个数)|行业(?:一共|共)?有\s*(?:多少|几)\s*个"
            r"|\b(?:how many|number of)\s+(?:different\s+|distinct\s+)?industries\b"
        ),
        _INDUSTRIES,
    ),
    (
        re.compile(
            r"(?:多少|几)\s*个?\s*交易日|(?:多少|几)\s*天"
            r"|\b(?:how many|number of)\s+(?:different\s+)?(?:trading\s+)?(?:days|sessions)\b"
        ),
        _DAYS,
    ),
)
# Several counts asked side by side (how many industries and how many regions): a count(DISTINCT y) of
# another column may be the count of another thing asked, not a wrong distinct.
_COUNT_CUES = re.compile(r"多少|几\s*(?:只|家|支|个|天)|\bhow many\b|\bnumber of\b")
# Occurrences are counted with their repeats: 涨停次数, how many times, stock-days.
_OCCURRENCES = re.compile(r"次|\btimes\b|\boccurrences?\b|stock-days?|\binstances\b")
# Columns that name a thing, not measure it: a list made only of them lists things.
_NAMING = {"ts_code", "con_code", "symbol", "name", "industry", "exchange", "market", "area", "index_code"}


def _counted(question: str) -> _Counted | None:
    if _OCCURRENCES.search(question):
        return None
    found = {counted for pattern, counted in _COUNTED if pattern.search(question.lower())}
    return found.pop() if len(found) == 1 else None


_TABLE_KEYS = {
    "daily": {"ts_code", "trade_date"},
    "daily_basic": {"ts_code", "trade_date"},
    "income": {"ts_code"},
    "fina_indicator": {"ts_code"},
    "stock_basic": {"ts_code", "industry"},
    "index_weight": {"con_code", "trade_date"},
    "trade_cal": {"cal_date"},
}


def _key_column(select: exp.Select, counted: _Counted, ctes: dict[str, exp.Expr]) -> exp.Column | None:
    """The column naming the counted thing in the SELECT's first source that has one."""
    from_ = select.args.get("from_")
    tables = [from_.this] if isinstance(from_, exp.From) else []
    tables += [join.this for join in select.args.get("joins") or []]
    for source in tables:
        offered: set[str] = set()
        if isinstance(source, exp.Table) and source.name.lower() in ctes:
            cte = ctes[source.name.lower()]
            if isinstance(cte, exp.Select):
                offered = {projection.alias_or_name.lower() for projection in cte.expressions}
        elif isinstance(source, exp.Table):
            offered = _TABLE_KEYS.get(source.name.lower(), set())
        elif isinstance(source, exp.Subquery) and isinstance(source.this, exp.Select):
            offered = {projection.alias_or_name.lower() for projection in source.this.expressions}
        key = next((key for key in counted.keys if key in offered), None)
        if key is not None:
            qualifier = source.alias_or_name if len(tables) > 1 else ""
            return exp.column(key, table=qualifier or None)
    return None


def _other_distinct(count: exp.Count, counted: _Counted) -> bool:
    """count(DISTINCT list_date) where stocks are counted: different values of another column."""
    distinct = count.this
    if not isinstance(distinct, exp.Distinct) or len(distinct.expressions) != 1:
        return False
    column = distinct.expressions[0]
    return isinstance(column, exp.Column) and column.name.lower() not in counted.keys


def _plain_counts(select: exp.Select, counted: _Counted, several: bool) -> list[tuple[int, exp.Count]]:
    """The answer's counting projections that do not count the different things asked: count(),
    count(x), or count(DISTINCT y) of another column (not count(DISTINCT ts_code)) when only one
    count is asked."""
    found = []
    for position, projection in enumerate(select.expressions):
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(inner, exp.Count) and (
            not isinstance(inner.this, exp.Distinct) or (not several and _other_distinct(inner, counted))
        ):
            found.append((position, inner))
    return found


def _recount_sql(sql: Sql, counted: _Counted, several: bool) -> tuple[str, list[int]] | None:
    """The candidate with, after its own projections, each plain count and the number of different
    counted things among the same rows; and the positions of the plain counts."""
    tree = sql.tree
    if not isinstance(tree, exp.Select):
        return None
    counts = _plain_counts(tree, counted, several)
    if not counts:
        return None
    argument_keys = [count.this for _, count in counts if isinstance(count.this, exp.Column)]
    if any(key.name.lower() not in counted.keys for key in argument_keys):
        return None  # count(x) of another column: what it counts is not the thing asked
    key = _key_column(tree, counted, sql.ctes)
    if key is None:
        return None
    recount = tree.copy()
    width = len(recount.expressions)
    for number, (position, _) in enumerate(counts):
        original = recount.expressions[position]
        count = original.this if isinstance(original, exp.Alias) else original
        assert isinstance(count, exp.Count)
        own_key = count.this if isinstance(count.this, exp.Column) else key
        recount.append("expressions", exp.alias_(count.copy(), f"vs_rows_{number}"))
        recount.append(
            "expressions",
            exp.alias_(exp.Anonymous(this="uniqExact", expressions=[own_key.copy()]), f"vs_things_{number}"),
        )
    return recount.sql(dialect=DIALECT), [width + 2 * n for n in range(len(counts))]


def _result(
    check_id: str,
    text: str,
    criterion: str,
    query: str,
    verdict: CheckVerdictValue,
    reason: str,
    started: float,
) -> CheckResult:
    return constraint_check(
        check_id=check_id,
        kind="multiplicity",
        text=text,
        criterion=criterion,
        sql=query,
        verdict=verdict,
        blames=Attribution.AGGREGATION,
        reason=reason,
        started=started,
    )


def count_check(question: str, sql: Sql, reader: MarketReader, lang: Lang) -> CheckResult | None:
    counted = _counted(question)
    several = len(_COUNT_CUES.findall(question.lower())) > 1
    recount = _recount_sql(sql, counted, several) if counted is not None else None
    if counted is None or recount is None:
        return None
    started = time.perf_counter()
    query, positions = recount
    text = says(lang, "计数是否只数不同的对象？", f"Does the count count different {counted.what}?")
    criterion = says(
        lang,
        "每一行的计数 = 同样的行里不同对象的个数",
        f"each count = the different {counted.what} among its rows",
    )
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        return _result("multiplicity-count", text, criterion, query, "undecidable", rows, started)
    for row in rows:
        for position in positions:
            counted_rows, things = number_of(row[position]), number_of(row[position + 1])
            if counted_rows is not None and things is not None and counted_rows != things:
                reason = (
                    f"the count counts {counted_rows:g} rows for {things:g} different {counted.what}: "
                    "a join or a span of days repeats them"
                )
                return _result("multiplicity-count", text, criterion, query, "fail", reason, started)
    reason = f"each count equals the different {counted.what} among its rows"
    return _result("multiplicity-count", text, criterion, query, "pass", reason, started)


def _lists_names(tree: exp.Expr) -> bool:
    """The answer is a plain list of names and codes: no grouping, no DISTINCT, no computed column."""
    if not isinstance(tree, exp.Select) or tree.args.get("distinct") or tree.args.get("group"):
        return False
    projections = [p.this if isinstance(p, exp.Alias) else p for p in tree.expressions]
    return bool(projections) and all(
        isinstance(p, exp.Column) and p.name.lower() in _NAMING for p in projections
    )


def list_check(question: str, sql: Sql, reader: MarketReader, lang: Lang) -> CheckResult | None:
    if _counted(question) is not None or not _lists_names(sql.tree):
        return None
    started = time.perf_counter()
    candidate = sql.tree.sql(dialect=DIALECT)
    query = (
        f"SELECT (SELECT count() FROM ({candidate})), "
        f"(SELECT count() FROM (SELECT DISTINCT * FROM ({candidate})))"
    )
    text = says(lang, "答案列出的每一行是否互不相同？", "Is each listed row a different one?")
    criterion = says(lang, "行数 = 不同的行数", "rows = different rows")
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        return _result("multiplicity-list", text, criterion, query, "undecidable", rows, started)
    listed, different = (number_of(cell) for cell in rows[0]) if rows else (None, None)
    if listed is None or different is None:
        return _result("multiplicity-list", text, criterion, query, "undecidable", "no counts", started)
    if listed != different:
        reason = f"{listed:g} rows for {different:g} different ones: the answer lists some twice"
        return _result("multiplicity-list", text, criterion, query, "fail", reason, started)
    return _result("multiplicity-list", text, criterion, query, "pass", f"{listed:g} different rows", started)


# The columns that name one row of a stored table.
ROW_KEYS = {
    "daily": ("ts_code", "trade_date"),
    "daily_basic": ("ts_code", "trade_date"),
    "income": ("ts_code", "end_date"),
    "fina_indicator": ("ts_code", "end_date"),
    "stock_basic": ("ts_code",),
    "index_weight": ("index_code", "con_code", "trade_date"),
}


def _aggregated_table(select: exp.Select) -> tuple[str, tuple[str, ...]] | None:
    """The alias and row key of the joined stored table whose column an answer's sum or average
    reads (only when the SELECT joins: one table alone cannot repeat its rows)."""
    if not select.args.get("joins"):
        return None
    tables = {
        source.alias_or_name: source.name.lower()
        for source in select.find_all(exp.Table)
        if source.find_ancestor(exp.Select) is select and source.name.lower() in ROW_KEYS
    }
    for projection in select.expressions:
        for aggregate in projection.find_all(exp.Sum, exp.Avg):
            aliases = {column.table for column in aggregate.find_all(exp.Column)}
            if len(aliases) == 1 and (alias := aliases.pop()) in tables:
                return alias, ROW_KEYS[tables[alias]]
    return None


def repeat_check(sql: Sql, reader: MarketReader, lang: Lang) -> CheckResult | None:
    """A sum or average over a join that repeats the rows it reads (one per index snapshot, per report
    period) weighs or counts them several times."""
    tree = sql.tree
    found = _aggregated_table(tree) if isinstance(tree, exp.Select) else None
    if found is None:
        return None
    alias, key = found
    started = time.perf_counter()
    recount = tree.copy()
    recount.append("expressions", exp.alias_(exp.Count(this=exp.Star()), "vs_rows"))
    keys = [exp.column(column, table=alias) for column in key]
    recount.append("expressions", exp.alias_(exp.Anonymous(this="uniqExact", expressions=keys), "vs_keys"))
    query = recount.sql(dialect=DIALECT)
    text = says(lang, "汇总读取的每一行是否只出现一次？", "Does the sum or average read each row once?")
    criterion = says(lang, "行数 = 不同的行数", f"rows = different rows of {alias}")
    rows = own_rows(reader, query)
    if isinstance(rows, str):
        return _result("multiplicity-repeat", text, criterion, query, "undecidable", rows, started)
    for row in rows:
        read, different = number_of(row[-2]), number_of(row[-1])
        if read is not None and different is not None and read != different:
            reason = (
                f"the aggregate reads {read:g} rows for {different:g} different rows of {alias}: "
                "a join repeats them"
            )
            return _result("multiplicity-repeat", text, criterion, query, "fail", reason, started)
    return _result("multiplicity-repeat", text, criterion, query, "pass", "each row is read once", started)


def multiplicity_checks(question: str, sql: Sql, reader: MarketReader, lang: Lang) -> list[CheckResult]:
    found = [
        count_check(question, sql, reader, lang),
        list_check(question, sql, reader, lang),
        repeat_check(sql, reader, lang),
    ]
    return [check for check in found if check is not None]
