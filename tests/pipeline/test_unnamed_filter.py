"""A filter keeping a board, exchange or industry the question never names fails; values named by
the question (an industry group's members, the Beijing exchange as a board, 两市 as both exchanges),
a dimension named as such, and tests under OR or inside functions are not judged."""

from __future__ import annotations

import pytest

from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.checklist.sqltree import parse_sql
from backend.domain.pipeline.validate.unnamed_filter import unnamed_filter_check

LATEST = "(SELECT max(trade_date) FROM market.daily)"
BARS = (
    "SELECT count() FROM market.daily AS d JOIN market.stock_basic AS s ON s.ts_code = d.ts_code "
    f"WHERE d.trade_date = {LATEST}"
)


@pytest.mark.parametrize(
    ("question", "condition", "fails"),
    [
        # insurers widened to every financial industry
        ("保险股今天有几只上涨？", "s.industry IN ('保险', '银行', '证券') AND d.pct_chg > 0", True),
        # the STAR Market asked, ChiNext kept
        (
            "How many STAR Market stocks fell more than 4% today?",
            "s.market = '创业板' AND d.pct_chg < -4",
            True,
        ),
        # the main board read as one exchange
        ("主板今天成交额超过10亿的有几只", "s.exchange = 'SZSE' AND d.amount > 1000000", True),
        # both exchanges read as one board
        ("沪深两市今天有多少只股票收跌", "s.market = '主板' AND d.pct_chg < 0", True),
        # what is named
        ("保险股今天有几只上涨？", "s.industry = '保险' AND d.pct_chg > 0", False),
        ("沪深两市今天有多少只股票收跌", "s.exchange IN ('SSE', 'SZSE') AND d.pct_chg < 0", False),
        ("北交所今天有几只股票涨超10%", "s.market = '北交所' AND d.pct_chg > 10", False),
        (
            "How many financial stocks rose today?",
            "s.industry IN ('银行', '证券', '保险') AND d.pct_chg > 0",
            False,
        ),
        # a dimension named as such: its values are the groups asked
        ("每个板块今天各有几只股票涨停", "s.market IN ('主板', '创业板', '科创板')", False),
        # a rule per board under OR, a test inside a function
        (
            "今天涨停的股票有几只",
            "((s.market = '主板' AND d.close = round(d.pre_close * 1.1, 2)) "
            "OR (s.market = '创业板' AND d.close = round(d.pre_close * 1.2, 2)))",
            False,
        ),
        ("今天涨停的股票有几只", "if(s.market = '主板', 1.1, 1.2) > 0", False),
    ],
)
def test_unnamed_filter(question: str, condition: str, fails: bool) -> None:
    sql = parse_sql(f"{BARS} AND {condition}")
    check = unnamed_filter_check(question, sql, default_vocabulary(), "en")
    assert (check is not None and check.verdict == "fail") is fails
