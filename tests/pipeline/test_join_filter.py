"""A condition against constants in the ON clause of a LEFT JOIN removes no row: it fails unless the
SELECT tells matched rows from unmatched ones (WHERE, HAVING, an aggregate of the joined side); a
join key, a snapshot day or an inner join is no check."""

from __future__ import annotations

import pytest

from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.join_filter import join_filter_check

LATEST = "(SELECT max(trade_date) FROM market.daily)"
DAILY = "SELECT d.ts_code FROM market.daily AS d"


@pytest.mark.parametrize(
    ("sql", "fails"),
    [
        # a threshold on the joined table: every stock is listed, with the figure or a default
        (
            f"{DAILY} LEFT JOIN market.daily_basic AS m ON m.ts_code = d.ts_code "
            f"AND m.trade_date = d.trade_date AND m.pe < 15 WHERE d.trade_date = {LATEST}",
            True,
        ),
        # an exchange test on the joined list: every exchange is counted
        (
            "SELECT count() FROM market.daily AS d LEFT JOIN market.stock_basic AS s "
            "ON s.ts_code = d.ts_code AND s.exchange = 'SZSE' "
            f"WHERE d.trade_date = {LATEST} AND d.pct_chg > 5",
            True,
        ),
        # a list of regions grouped on: all other stocks form an empty group
        (
            "SELECT s.area, avg(m.pb) FROM market.daily_basic AS m LEFT JOIN market.stock_basic AS s "
            "ON s.ts_code = m.ts_code AND s.area IN ('广东', '浙江') GROUP BY s.area",
            True,
        ),
        # a condition on the kept side in the ON clause removes nothing either
        (
            "SELECT d.ts_code FROM market.daily AS d LEFT JOIN market.stock_basic AS s "
            "ON s.ts_code = d.ts_code AND NOT d.pct_chg < 0",
            True,
        ),
        # the same condition as an inner join filters
        (
            "SELECT count() FROM market.daily AS d INNER JOIN market.stock_basic AS s "
            "ON s.ts_code = d.ts_code AND s.exchange = 'SZSE' WHERE d.pct_chg > 5",
            False,
        ),
        # the joined table's snapshot day picked in the ON clause
        (
            "SELECT s.ts_code, m.total_mv FROM market.stock_basic AS s LEFT JOIN market.daily_basic AS m "
            "ON m.ts_code = s.ts_code AND m.trade_date = '2025-06-30'",
            False,
        ),
        # the unmatched rows kept on purpose (an anti join written out)
        (
            "SELECT s.ts_code FROM market.stock_basic AS s LEFT JOIN market.index_weight AS w "
            "ON w.con_code = s.ts_code AND w.index_code = '000905.SH' WHERE w.con_code = ''",
            False,
        ),
        # the matches counted per group, zero where none
        (
            "SELECT s.industry, count(m.ts_code) FROM market.stock_basic AS s "
            f"LEFT JOIN market.daily_basic AS m ON m.ts_code = s.ts_code AND m.trade_date = {LATEST} "
            "AND m.turnover_rate > 10 GROUP BY s.industry",
            False,
        ),
    ],
)
def test_left_join_filter(sql: str, fails: bool) -> None:
    check = join_filter_check(parse_sql(sql), "en")
    assert (check is not None and check.verdict == "fail") is fails
