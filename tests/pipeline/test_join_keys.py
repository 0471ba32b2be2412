"""A join keyed on two kinds of codes (a stock code with an index code or a bare six-digit symbol)
matches the wrong rows or none: judged on the tree, only a failure is a check."""

from __future__ import annotations

import pytest

from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.join_keys import join_keys_check

SNAPSHOT = "w.trade_date = (SELECT max(trade_date) FROM market.index_weight WHERE index_code = '000905.SH')"


@pytest.mark.parametrize(
    ("sql", "fails"),
    [
        # the company looked up by the index's code instead of the member's
        (
            "SELECT s.industry, count() FROM market.index_weight AS w "
            "JOIN market.stock_basic AS s ON s.ts_code = w.index_code "
            f"WHERE w.index_code = '000905.SH' AND {SNAPSHOT} GROUP BY s.industry",
            True,
        ),
        # the bare symbol against the suffixed code of a subquery's bars: nothing matches
        (
            "SELECT s.name, x.vol FROM (SELECT ts_code, vol FROM market.daily "
            "WHERE trade_date = '2025-11-28') AS x LEFT JOIN market.stock_basic AS s ON x.ts_code = s.symbol",
            True,
        ),
        # a CTE passing the code on, matched with the index list's index code in WHERE
        (
            "WITH v AS (SELECT ts_code, pb FROM market.daily_basic WHERE trade_date = '2025-11-28') "
            "SELECT v.pb FROM v, market.index_weight AS w WHERE v.ts_code = w.index_code",
            True,
        ),
        # members matched by their own code, bars with valuations: the same kind each side
        (
            "SELECT s.industry, count() FROM market.index_weight AS w "
            "JOIN market.stock_basic AS s ON s.ts_code = w.con_code "
            f"WHERE w.index_code = '000905.SH' AND {SNAPSHOT} GROUP BY s.industry",
            False,
        ),
        (
            "SELECT d.ts_code FROM market.daily AS d JOIN market.daily_basic AS b "
            "ON b.ts_code = d.ts_code AND b.trade_date = d.trade_date WHERE d.trade_date = '2025-11-28'",
            False,
        ),
        # the index's own description looked up by the list's index code
        (
            "SELECT i.name, count() FROM market.index_weight AS w JOIN market.index_basic AS i "
            "ON i.ts_code = w.index_code GROUP BY i.name",
            False,
        ),
        # a computed key: its kind is not read
        (
            "SELECT s.name FROM market.daily AS d JOIN market.stock_basic AS s "
            "ON s.symbol = substring(d.ts_code, 1, 6) WHERE d.trade_date = '2025-11-28'",
            False,
        ),
    ],
)
def test_join_keys_match_codes_of_one_kind(sql: str, fails: bool) -> None:
    check = join_keys_check(parse_sql(sql), "en")
    assert (check is not None and check.verdict == "fail") is fails
