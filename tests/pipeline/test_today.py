"""今天 / today / the latest trading day is the latest trading day alone: a SQL that picks the day
before it, counts days back from it or reads every day fails; a day written out that is not the data's
newest fails (judged on the demo store); what the tree cannot tell (a range, the latest day picked too,
another day named) is no check."""

from __future__ import annotations

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.today import today_check

LATEST = "(SELECT max(trade_date) FROM market.daily)"
EARLIER = f"(SELECT max(trade_date) FROM market.daily WHERE trade_date < {LATEST})"
PICK = "SELECT ts_code FROM market.daily WHERE trade_date = "
SNAPSHOT = f"(SELECT max(trade_date) FROM market.index_weight WHERE trade_date <= {LATEST})"


@pytest.mark.parametrize(
    ("question", "sql", "verdict"),
    [
        (
            "今日振幅超过10%的股票有哪些？",
            f"{PICK}{EARLIER}",
            "fail",
        ),
        (
            "Which stocks rose today?",
            f"{PICK}{EARLIER} AND pct_chg > 0",
            "fail",
        ),
        (
            "今日振幅超过10%的股票有哪些？",
            f"{PICK}{LATEST}",
            None,
        ),
        # the first trading day of a range is not the latest
        (
            "哪些股票的市盈率低于10？",
            f"{PICK}(SELECT min(trade_date) FROM market.daily WHERE trade_date >= '2025-03-01')",
            "fail",
        ),
        # a range starting at the latest day has it as its first day
        (
            "Which stocks traded above 100 yuan today?",
            f"{PICK}(SELECT min(trade_date) FROM market.daily WHERE trade_date >= {LATEST})",
            None,
        ),
        # the latest index snapshot up to today is no earlier day
        (
            "今天沪深300成分股的平均涨幅",
            f"SELECT avg(pct_chg) FROM market.daily WHERE trade_date = {LATEST} AND ts_code IN "
            f"(SELECT con_code FROM market.index_weight WHERE trade_date = {SNAPSHOT})",
            None,
        ),
        # yesterday named, a day written out, or today's bar beside yesterday's
        ("今天涨幅超过昨天的股票", f"{PICK}{EARLIER}", None),
        (
            "今日振幅超过10%的股票有哪些？",
            f"{PICK}'2025-12-30'",
            None,
        ),
        (
            "Which stocks gapped up today?",
            "SELECT t.ts_code FROM market.daily AS t INNER JOIN market.daily AS p ON p.ts_code = t.ts_code "
            f"WHERE t.trade_date = {LATEST} AND p.trade_date = {EARLIER} AND t.low > p.high",
            None,
        ),
        # the latest trading day named as such: the same day, and it alone
        (
            "Which stocks fell more than 5% on the latest trading day?",
            f"{PICK}{EARLIER} AND pct_chg < -5",
            "fail",
        ),
        (
            "最新交易日换手率超过20%的股票",
            "SELECT DISTINCT ts_code FROM market.daily_basic "
            f"WHERE trade_date >= {LATEST} - 3 AND turnover_rate > 20",
            "fail",
        ),
        (
            "Which industries have the most stocks below book value on the latest trading day?",
            "SELECT s.industry, count() AS n FROM market.daily_basic AS b JOIN market.stock_basic AS s "
            "ON s.ts_code = b.ts_code WHERE b.pb < 1 GROUP BY s.industry ORDER BY n DESC LIMIT 1",
            "fail",
        ),
        (
            "Which industries have the most stocks below book value on the latest trading day?",
            "SELECT s.industry, count() AS n FROM market.daily_basic AS b JOIN market.stock_basic AS s "
            f"ON s.ts_code = b.ts_code WHERE b.trade_date = {LATEST} AND b.pb < 1 GROUP BY s.industry "
            "ORDER BY n DESC LIMIT 1",
            None,
        ),
        # no day named at all: the latest trading day is implied; history or a date asked is not
        (
            "市盈率低于10的银行股",
            f"SELECT ts_code FROM market.daily_basic WHERE trade_date = {EARLIER} AND pe < 10",
            "fail",
        ),
        ("Which stocks had the highest close ever?", f"{PICK}{EARLIER} ORDER BY close DESC LIMIT 1", None),
        # the latest bar per stock picked by ordering, or a window the question names: not read
        (
            "最新交易日换手率超过20%的股票",
            "SELECT ts_code FROM market.daily_basic WHERE turnover_rate > 20 "
            "ORDER BY trade_date DESC LIMIT 1 BY ts_code",
            None,
        ),
        (
            "Which stocks closed at a 60-day high on the latest trading day?",
            f"SELECT ts_code FROM market.daily WHERE trade_date >= {LATEST} - 90",
            None,
        ),
    ],
)
def test_today_is_the_latest_trading_day(question: str, sql: str, verdict: str | None) -> None:
    check = today_check(question, parse_sql(sql), "zh")
    assert (check.verdict if check is not None else None) == verdict


def test_a_day_written_out_is_judged_on_the_data(demo_store: MarketStore) -> None:
    """Today written as a day: the newest bar's day passes, another day (mid-year) fails; without the
    data, no check."""
    newest = demo_store.query("SELECT max(trade_date) FROM market.daily").rows[0][0]
    question = "Rank the 10 largest stocks by float market cap today, largest first."
    template = "SELECT ts_code, circ_mv FROM market.daily_basic WHERE trade_date = '{}' ORDER BY circ_mv DESC"

    def verdict(day: object, with_data: bool = True) -> str | None:
        reader = demo_store if with_data else None
        check = today_check(question, parse_sql(template.format(day)), "en", reader, demo_store.database)
        return check.verdict if check is not None else None

    assert verdict(newest) is None
    assert verdict("2000-06-30") == "fail"
    assert verdict("2000-06-30", with_data=False) is None
    # a day written on another date column is not the trading day's to judge
    listed = "SELECT ts_code FROM market.stock_basic WHERE list_date = '2000-06-30'"
    assert today_check("今天上市的股票", parse_sql(listed), "zh", demo_store, demo_store.database) is None
