"""The latest report period named is the newest end_date of the table read, and the only one: a SQL
reading every period or a period written out that is not the newest fails; a period picked by
max(end_date), or a question naming another period, is no check. Decided on the demo store."""

from __future__ import annotations

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.latest_period import latest_period_check

NEWEST = "(SELECT max(end_date) FROM market.fina_indicator)"
ZH = "最新报告期资产负债率超过70%的公司有多少家？"
EN = "Which companies had an ROE above 20% in the latest report period?"
LAST_FOUR = "Which companies had a debt-to-assets ratio above 70% in each of the last four report periods?"


@pytest.mark.parametrize(
    ("question", "sql", "verdict"),
    [
        (
            ZH,
            f"SELECT count() FROM market.fina_indicator WHERE end_date = {NEWEST} AND debt_to_assets > 70",
            None,
        ),
        (ZH, "SELECT count(DISTINCT ts_code) FROM market.fina_indicator WHERE debt_to_assets > 70", "fail"),
        (EN, "SELECT ts_code FROM market.fina_indicator WHERE end_date = '2000-12-31' AND roe > 20", "fail"),
        (
            EN,
            "SELECT f.ts_code FROM market.fina_indicator AS f "
            "JOIN market.stock_basic AS s ON s.ts_code = f.ts_code WHERE f.roe > 20",
            "fail",
        ),
        # no period named at all: the latest report is asked, not the last annual one nor every one
        (
            "浙江省资产负债率低于10%的公司",
            "SELECT ts_code FROM market.fina_indicator WHERE end_date = '2000-12-31' AND debt_to_assets < 10",
            "fail",
        ),
        (
            "banks with an ROE above 12%",
            "SELECT f.ts_code FROM market.fina_indicator AS f "
            "JOIN market.stock_basic AS s ON s.ts_code = f.ts_code WHERE f.roe > 12 AND s.industry = '银行'",
            "fail",
        ),
        (
            "banks with an ROE above 12%",
            f"SELECT ts_code FROM market.fina_indicator WHERE end_date = {NEWEST} AND roe > 12",
            None,
        ),
        # the whole history or several periods asked: any period may be read
        (
            "companies that ever reported a debt-to-assets above 95%",
            "SELECT DISTINCT ts_code FROM market.fina_indicator WHERE debt_to_assets > 95",
            None,
        ),
        # the last N report periods hold the newest: N old periods written out fail; a range is no check
        (
            LAST_FOUR,
            "SELECT ts_code FROM market.fina_indicator WHERE end_date IN "
            "('2000-03-31', '2000-06-30', '2000-09-30', '2000-12-31') AND debt_to_assets > 70 "
            "GROUP BY ts_code HAVING count() = 4",
            "fail",
        ),
        (
            LAST_FOUR,
            "SELECT ts_code FROM market.fina_indicator WHERE end_date >= '2000-03-31' "
            "AND debt_to_assets > 70 GROUP BY ts_code HAVING count() = 4",
            None,
        ),
        (
            LAST_FOUR,
            "SELECT ts_code FROM market.fina_indicator WHERE debt_to_assets > 70 GROUP BY ts_code",
            None,
        ),
        # another period named: the SQL may rightly read it
        (
            "2024年年报资产负债率超过70%的公司有多少家？",
            "SELECT count() FROM market.fina_indicator WHERE end_date = '2024-12-31' AND debt_to_assets > 70",
            None,
        ),
        # a period written with a two-digit year (FY24, Q3'25, 1H25) is another period named
        *(
            (
                question,
                "SELECT ts_code FROM market.fina_indicator WHERE end_date = '2000-12-31' AND roe > 20",
                None,
            )
            for question in ("top ROE in FY24", "ROE above 20% in Q3'25", "1H25 ROE", "24年ROE最高")
        ),
    ],
)
def test_the_latest_report_period(
    demo_store: MarketStore, question: str, sql: str, verdict: str | None
) -> None:
    check = latest_period_check(question, parse_sql(sql), demo_store, demo_store.database, "en")
    assert (check.verdict if check is not None else None) == verdict


def test_the_newest_period_written_out_is_no_check(demo_store: MarketStore) -> None:
    newest = demo_store.query("SELECT max(end_date) FROM market.fina_indicator").rows[0][0]
    sql = f"SELECT ts_code FROM market.fina_indicator WHERE end_date = '{newest}' AND roe > 20"
    assert latest_period_check(EN, parse_sql(sql), demo_store, demo_store.database, "en") is None
