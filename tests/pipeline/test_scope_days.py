"""The days a candidate fixes that only the data can judge: which day's index list it reads, and the
day it reads a gain's base close on (a stock suspended that day has an earlier base)."""

from __future__ import annotations

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.index_lists import ANY_TIME
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.scope_days import base_day_check, end_day_check, membership_checks

LIST = "SELECT con_code FROM market.index_weight WHERE index_code = '000300.SH'{day}"
MEMBERS_SQL = """
SELECT b.ts_code FROM market.daily_basic AS b
WHERE b.trade_date = (SELECT max(trade_date) FROM market.daily) AND b.ts_code IN ({members})
ORDER BY b.pe ASC LIMIT 10
"""


def _snapshots(store: MarketStore) -> list[str]:
    rows = store.query(
        "SELECT DISTINCT trade_date FROM market.index_weight WHERE index_code = '000300.SH' "
        "AND trade_date <= (SELECT max(trade_date) FROM market.daily) ORDER BY trade_date DESC"
    ).rows
    return [str(row[0])[:10] for row in rows]


def _membership(store: MarketStore, question: str, day: str) -> list[CheckResult]:
    sql = MEMBERS_SQL.format(members=LIST.format(day=day))
    constraints = extract_constraints(question, default_vocabulary())
    return membership_checks(constraints, parse_sql(sql), store, "market", "zh")


@pytest.mark.parametrize(
    ("day", "verdict"),
    [
        (" AND trade_date = (SELECT max(trade_date) FROM market.index_weight)", "pass"),
        (" AND trade_date = '{latest}'", "pass"),
        (" AND trade_date = '{older}'", "undecidable"),
        ("", "undecidable"),
    ],
)
def test_with_no_day_named_the_members_are_the_latest_list(
    demo_store: MarketStore, day: str, verdict: str
) -> None:
    latest, older = _snapshots(demo_store)[:2]
    [check] = _membership(
        demo_store, "沪深300成分股中市盈率最低的10只", day.format(latest=latest, older=older)
    )
    assert (check.check_id, check.kind, check.verdict, check.point) == (
        "grounded-membership",
        "entity",
        verdict,
        None,
    )
    assert check.sql and check.reason


def test_a_report_period_is_not_the_day_of_the_list(demo_store: MarketStore) -> None:
    older = _snapshots(demo_store)[3]
    question = f"{older[:4]}年一季度净利润同比下滑超过50%的沪深300成分股"
    [check] = _membership(demo_store, question, f" AND trade_date = '{older}'")
    assert check.verdict == "undecidable" and older in check.reason


def test_a_day_named_is_the_day_of_the_list(demo_store: MarketStore) -> None:
    older = _snapshots(demo_store)[2]
    question = f"{older}收盘价最高的沪深300成分股"
    [check] = _membership(demo_store, question, f" AND trade_date = '{older}'")
    assert check.verdict == "pass"


@pytest.mark.parametrize(
    ("day", "verdict"),
    [(" AND w.trade_date = (SELECT max(trade_date) FROM market.index_weight)", "pass"), ("", "undecidable")],
)
def test_members_joined_and_counted_are_a_list_read(demo_store: MarketStore, day: str, verdict: str) -> None:
    constraints = extract_constraints("沪深300成分股来自多少个不同的行业？", default_vocabulary())
    sql = parse_sql(
        "SELECT count(DISTINCT b.industry) FROM market.index_weight AS w "
        "JOIN market.stock_basic AS b ON b.ts_code = w.con_code "
        f"WHERE w.index_code = '000300.SH'{day}"
    )
    [check] = membership_checks(constraints, sql, demo_store, "market", "zh")
    assert check.verdict == verdict


def test_no_index_list_read_no_check(demo_store: MarketStore) -> None:
    constraints = extract_constraints("沪深300成分股中市盈率最低的10只", default_vocabulary())
    sql = parse_sql("SELECT ts_code FROM market.daily_basic ORDER BY pe LIMIT 10")
    assert membership_checks(constraints, sql, demo_store, "market", "zh") == []


GAIN_SQL = """
SELECT ts_code FROM (
  SELECT ts_code, sumIf(close, trade_date = '{end}') / sumIf(close, trade_date = '{base}') - 1 AS gain
  FROM market.daily WHERE trade_date IN ('{base}', '{end}') GROUP BY ts_code
  HAVING countIf(trade_date = '{base}') = 1 AND countIf(trade_date = '{end}') = 1)
WHERE gain > 0.5
"""


def _suspension_day(store: MarketStore) -> tuple[str, str, str]:
    """(a day some stock did not trade on though it traded before and trades on the last day,
    a day every such stock traded on, the last day)."""
    end = str(store.query("SELECT max(trade_date) FROM market.daily").rows[0][0])[:10]
    counts = store.query(
        f"""
        SELECT day, (SELECT count() FROM market.daily WHERE trade_date = '{end}') -
               countIf(ts_code IN (SELECT ts_code FROM market.daily WHERE trade_date = '{end}')) AS absent
        FROM (SELECT trade_date AS day, ts_code FROM market.daily
              WHERE trade_date >= toDate('{end}') - 200 AND ts_code IN (SELECT ts_code FROM market.daily
                GROUP BY ts_code HAVING min(trade_date) < toDate('{end}') - 250))
        GROUP BY day ORDER BY day
        """
    ).rows
    gap = next(str(day)[:10] for day, absent in counts if absent > 0)
    full = next(str(day)[:10] for day, absent in counts if absent == 0)
    return gap, full, end


def _base_check(store: MarketStore, base: str, end: str) -> CheckResult | None:
    constraints = extract_constraints(f"{base[:4]}年以来涨幅超过50%的股票", default_vocabulary())
    sql = parse_sql(GAIN_SQL.format(base=base, end=end))
    return base_day_check(constraints, sql, store, "market", "zh")


def test_a_base_day_some_stocks_did_not_trade_on_is_undecided(demo_store: MarketStore) -> None:
    gap, _full, end = _suspension_day(demo_store)
    check = _base_check(demo_store, gap, end)
    assert check is not None and check.verdict == "undecidable" and check.point is None
    assert check.check_id == "grounded-base-day" and gap in check.reason


def test_a_base_day_every_stock_traded_on_passes(demo_store: MarketStore) -> None:
    _gap, full, end = _suspension_day(demo_store)
    check = _base_check(demo_store, full, end)
    assert check is not None and check.verdict == "pass"


def test_a_base_close_looked_up_over_a_stretch_is_not_this_check(demo_store: MarketStore) -> None:
    constraints = extract_constraints("2025年以来涨幅超过50%的股票", default_vocabulary())
    sql = parse_sql(
        "SELECT ts_code FROM market.daily WHERE trade_date >= '2024-12-01' GROUP BY ts_code "
        "HAVING argMax(close, trade_date) / argMaxIf(close, trade_date, trade_date < '2025-01-01') > 1.5"
    )
    assert base_day_check(constraints, sql, demo_store, "market", "zh") is None


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("How many different stocks were members of the CSI 300 at some point in 2024?", "pass"),
        ("How many different stocks are members of the CSI 300 with a 2024 annual loss?", "undecidable"),
    ],
)
def test_lists_of_a_span_asked_at_any_time(demo_store: MarketStore, question: str, verdict: str) -> None:
    constraints = extract_constraints(question, default_vocabulary())
    sql = parse_sql(
        "SELECT count(DISTINCT con_code) FROM market.index_weight "
        "WHERE index_code = '000300.SH' AND toYear(trade_date) = 2024"
    )
    any_time = ANY_TIME.search(question) is not None
    [check] = membership_checks(constraints, sql, demo_store, "market", "en", any_time=any_time)
    assert check.verdict == verdict


YEAR_GAIN_SQL = """
SELECT countIf(last / base > 1.5) / count() FROM (
  SELECT ts_code, argMaxIf(close, trade_date, toYear(trade_date) = {year}) AS last,
         argMaxIf(close, trade_date, toYear(trade_date) = {year} - 1) AS base
  FROM market.daily WHERE toYear(trade_date) IN ({year} - 1, {year}) GROUP BY ts_code
  HAVING countIf(trade_date = '{end}') = 1 AND base > 0)
"""


def _year_end(store: MarketStore, year: int) -> tuple[str, int]:
    """The year's last trading day and the stocks that traded in the year but not on it."""
    end = str(
        store.query(f"SELECT max(trade_date) FROM market.daily WHERE toYear(trade_date) = {year}").rows[0][0]
    )
    missing = store.query(
        f"SELECT count() FROM (SELECT ts_code FROM market.daily WHERE toYear(trade_date) = {year} "
        f"GROUP BY ts_code HAVING countIf(trade_date = '{end[:10]}') = 0)"
    ).rows[0][0]
    return end[:10], int(missing)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_finished_year_read_as_the_stocks_with_a_bar_on_its_last_day(
    demo_store: MarketStore, lang: str
) -> None:
    latest = str(demo_store.query("SELECT max(trade_date) FROM market.daily").rows[0][0])[:10]
    year = int(latest[:4]) - 1  # held to its end
    end, missing = _year_end(demo_store, year)
    question = {
        "zh": f"{year}年全年涨超50%的股票占比",
        "en": f"Share of stocks up by more than half over {year}?",
    }
    constraints = extract_constraints(question[lang], default_vocabulary())
    sql = parse_sql(YEAR_GAIN_SQL.format(year=year, end=end))
    check = end_day_check(constraints, sql, demo_store, "market", "zh", question[lang])
    assert check is not None and check.check_id == "grounded-end-day"
    assert check.verdict == ("undecidable" if missing else "pass")
    # a figure of the latest day asks for a bar that day
    now = f"Stocks now more than half below their {year} high"
    assert (
        end_day_check(extract_constraints(now, default_vocabulary()), sql, demo_store, "market", "zh", now)
        is None
    )


def test_no_bar_required_or_a_year_under_way_is_not_this_check(demo_store: MarketStore) -> None:
    latest = str(demo_store.query("SELECT max(trade_date) FROM market.daily").rows[0][0])[:10]
    year = int(latest[:4])
    question = f"{year - 1}年涨幅超过50%的股票占比"
    constraints = extract_constraints(question, default_vocabulary())
    no_bar = YEAR_GAIN_SQL.format(year=year - 1, end="2000-01-01").replace(
        "countIf(trade_date = '2000-01-01') = 1 AND ", ""
    )
    assert end_day_check(constraints, parse_sql(no_bar), demo_store, "market", "zh", question) is None
    if latest[5:] != "12-31":
        question = f"{year}年涨幅超过50%的股票占比"
        constraints = extract_constraints(question, default_vocabulary())
        sql = parse_sql(YEAR_GAIN_SQL.format(year=year, end=latest))
        assert end_day_check(constraints, sql, demo_store, "market", "zh", question) is None
