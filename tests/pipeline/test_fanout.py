"""A join that only filters must not repeat the rows it filters: decided on the demo store's rows."""

from __future__ import annotations

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.fanout import fanout_checks

LATEST = "(SELECT max(trade_date) FROM market.daily)"
SNAPSHOT = "(SELECT max(trade_date) FROM market.index_weight WHERE index_code = '000300.SH')"
MEMBERS = "INNER JOIN market.index_weight AS w ON w.con_code = d.ts_code AND w.index_code = '000300.SH'"


@pytest.mark.parametrize(
    ("sql", "verdicts"),
    [
        # every snapshot of the index joined to filter the members: each member once per snapshot
        (f"SELECT d.ts_code FROM market.daily AS d {MEMBERS} WHERE d.trade_date = {LATEST}", ["fail"]),
        (f"SELECT count() FROM market.daily AS d {MEMBERS} WHERE d.trade_date = {LATEST}", ["fail"]),
        # the top rows of a subquery filled by one stock's repeats
        (
            "SELECT avg(pe) FROM (SELECT b.pe FROM market.daily_basic AS b "
            "INNER JOIN market.daily AS d ON d.ts_code = b.ts_code AND d.trade_date >= b.trade_date - 30 "
            f"WHERE b.trade_date = {LATEST} ORDER BY b.total_mv DESC LIMIT 10)",
            ["fail"],
        ),
        # the snapshot fixed: one row per member
        (
            f"SELECT d.ts_code FROM market.daily AS d {MEMBERS} AND w.trade_date = {SNAPSHOT} "
            f"WHERE d.trade_date = {LATEST}",
            ["pass"],
        ),
        # every day's valuation row joined to count companies per region: one count per stock-day
        (
            "SELECT s.industry, count() AS companies FROM market.stock_basic AS s "
            "INNER JOIN market.daily_basic AS v ON v.ts_code = s.ts_code "
            "GROUP BY s.industry ORDER BY companies DESC LIMIT 3",
            ["fail"],
        ),
        # repeats that change nothing: DISTINCT, max(), IN (…), a joined table whose columns are shown
        (f"SELECT DISTINCT d.ts_code FROM market.daily AS d {MEMBERS} WHERE d.trade_date = {LATEST}", []),
        (f"SELECT max(d.pct_chg) FROM market.daily AS d {MEMBERS} WHERE d.trade_date = {LATEST}", []),
        (
            f"SELECT count() FROM market.daily WHERE trade_date = {LATEST} AND ts_code IN "
            f"(SELECT d.ts_code FROM market.daily AS d {MEMBERS})",
            [],
        ),
        (
            f"SELECT d.ts_code, w.trade_date FROM market.daily AS d {MEMBERS} WHERE d.trade_date = {LATEST}",
            [],
        ),
    ],
)
def test_a_filtering_join_keeps_each_row_once(demo_store: MarketStore, sql: str, verdicts: list[str]) -> None:
    assert [check.verdict for check in fanout_checks(parse_sql(sql), demo_store, "en")] == verdicts
