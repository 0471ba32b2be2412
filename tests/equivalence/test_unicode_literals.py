"""Chinese (non-ASCII) and long string literals must be reachable by the symbolic tables.

Found by the language benchmark: with stored strings confined to short printable ASCII, no row could
equal '光伏设备', both queries returned nothing on every bounded database, and two queries that differ
on real data were reported equivalent.
"""

from __future__ import annotations

import pytest

from backend.domain.equivalence import Schema, check_equivalence

MARKET = Schema.market()

ONLY_2024 = (
    "SELECT i.ts_code FROM market.income AS i INNER JOIN market.stock_basic AS s ON s.ts_code = i.ts_code "
    "WHERE i.end_date = '2024-12-31' AND s.industry = '光伏设备' AND i.n_income_attr_p > 500000000"
)
BOTH_YEARS = (
    "SELECT i.ts_code FROM market.income AS i INNER JOIN market.stock_basic AS s ON s.ts_code = i.ts_code "
    "WHERE i.end_date IN ('2023-12-31', '2024-12-31') AND s.industry = '光伏设备' "
    "GROUP BY i.ts_code HAVING count() = 2 AND min(i.n_income_attr_p) > 500000000"
)


@pytest.mark.parametrize(
    ("sql_a", "sql_b"),
    [
        (ONLY_2024, BOTH_YEARS),
        (
            "SELECT ts_code FROM market.stock_basic WHERE industry = '光伏设备'",
            "SELECT ts_code FROM market.stock_basic WHERE industry = '光伏设备' AND area = '江苏'",
        ),
        (
            "SELECT ts_code FROM market.stock_basic WHERE name LIKE '%银行'",
            "SELECT ts_code FROM market.stock_basic WHERE name LIKE '%银行' AND market = '主板'",
        ),
        (
            "SELECT ts_code FROM market.stock_basic WHERE name = 'A long company name, Inc.'",
            "SELECT ts_code FROM market.stock_basic WHERE name = 'A long company name, Inc.' AND area = 'x'",
        ),
    ],
)
def test_filters_on_non_ascii_or_long_literals_are_told_apart(sql_a: str, sql_b: str) -> None:
    result = check_equivalence(sql_a, sql_b, schema=MARKET, bound=3)
    assert result.verdict == "not_equivalent", result.reason
    assert result.confirmed


def test_the_counterexample_carries_the_literal_as_text() -> None:
    result = check_equivalence(
        "SELECT ts_code FROM market.stock_basic WHERE industry = '光伏设备'",
        "SELECT ts_code FROM market.stock_basic WHERE industry = '光伏设备' AND area = '江苏'",
        schema=MARKET,
        bound=2,
    )
    assert result.counterexample is not None
    industries = [row[5] for row in result.counterexample["stock_basic"]["rows"]]
    assert "光伏设备" in industries


def test_reordered_filters_on_a_chinese_literal_stay_equivalent() -> None:
    result = check_equivalence(
        "SELECT ts_code FROM market.stock_basic WHERE industry = '光伏设备' AND area = '江苏'",
        "SELECT ts_code FROM market.stock_basic WHERE area = '江苏' AND industry = '光伏设备'",
        schema=MARKET,
        bound=3,
    )
    assert result.verdict == "equivalent", result.reason
