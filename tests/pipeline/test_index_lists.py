"""Index lists read as the question asks: one snapshot (not every list ever published, unless any
time is asked) and only when the question names an index. Judged on the tree, only failures."""

from __future__ import annotations

import pytest

from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.index_lists import index_lists_check

LATEST = "(SELECT max(trade_date) FROM market.daily)"
PINNED = (
    "(w.index_code, w.trade_date) IN (SELECT index_code, max(trade_date) FROM market.index_weight "
    "GROUP BY index_code)"
)
EVERY = (
    "SELECT d.ts_code, d.pct_chg FROM market.daily AS d "
    "JOIN market.index_weight AS w ON w.con_code = d.ts_code"
)


@pytest.mark.parametrize(
    ("question", "sql", "attribution"),
    [
        # every snapshot joined: former members in, each member once per month
        (
            "中证500成分股今天跌幅最大的5只",
            f"{EVERY} AND w.index_code = '000905.SH' WHERE d.trade_date = {LATEST} "
            "ORDER BY d.pct_chg LIMIT 5",
            "time_scope",
        ),
        (
            "How many members of each index fell today?",
            "SELECT w.index_code, countIf(d.pct_chg < 0) FROM market.index_weight AS w "
            f"JOIN market.daily AS d ON d.ts_code = w.con_code WHERE d.trade_date = {LATEST} "
            "GROUP BY w.index_code",
            "time_scope",
        ),
        # the members as an IN list of every snapshot
        (
            "Average turnover of the ChiNext index constituents today",
            f"SELECT avg(turnover_rate) FROM market.daily_basic WHERE trade_date = {LATEST} AND ts_code IN "
            "(SELECT con_code FROM market.index_weight WHERE index_code = '399006.SZ')",
            "time_scope",
        ),
        # no index asked: the join keeps index members only
        (
            "Which boards had more than 40 stocks hitting a 52-week low today?",
            "SELECT s.market, count() AS n FROM market.daily AS d JOIN market.index_weight AS w "
            f"ON w.con_code = d.ts_code JOIN market.stock_basic AS s ON s.ts_code = d.ts_code "
            f"WHERE d.trade_date = {LATEST} AND {PINNED} GROUP BY s.market HAVING n > 40",
            "condition",
        ),
        # one snapshot per index: right
        (
            "How many members of each index fell today?",
            "SELECT w.index_code, countIf(d.pct_chg < 0) FROM market.index_weight AS w "
            f"JOIN market.daily AS d ON d.ts_code = w.con_code WHERE d.trade_date = {LATEST} AND {PINNED} "
            "GROUP BY w.index_code",
            None,
        ),
        # any time asked: every snapshot is what is read
        (
            "上证50历史上曾经有过哪些成分股？",
            "SELECT DISTINCT con_code FROM market.index_weight WHERE index_code = '000016.SH'",
            None,
        ),
        (
            "How many different stocks were ever in the CSI 500?",
            "SELECT uniqExact(con_code) FROM market.index_weight WHERE index_code = '000905.SH'",
            None,
        ),
        # no index list read
        ("今天各行业涨停家数", f"SELECT count() FROM market.daily WHERE trade_date = {LATEST}", None),
    ],
)
def test_index_lists_read_as_asked(question: str, sql: str, attribution: str | None) -> None:
    check = index_lists_check(question, parse_sql(sql), default_vocabulary(), "en")
    assert (None if check is None else check.attribution) == attribution
