"""LanguageContext: trading calendar, dictionaries drawn from the data, caching, schema prompt."""

from __future__ import annotations

from datetime import date

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.market.store import MarketStore


def test_latest_trading_day_is_the_last_day_with_bars(
    language_context: LanguageContext, demo_store: MarketStore
) -> None:
    latest = demo_store.query("SELECT max(trade_date) FROM market.daily").rows[0][0]
    assert language_context.latest_trade_date == latest
    previous = language_context.trading_day_offset(latest, -1)
    assert previous is not None and previous < latest and language_context.is_trading_day(previous)


def test_today_before_the_data_end_moves_the_latest_day(demo_store: MarketStore) -> None:
    context = LanguageContext.from_store(demo_store, today=date(2025, 9, 7))  # a Sunday
    assert context.latest_trade_date == date(2025, 9, 5)
    translation = translate_question("今天涨幅超过5%的股票", context)
    assert translation.sql is not None and "2025-09-05" in translation.sql


def test_contexts_are_cached_per_store(demo_store: MarketStore) -> None:
    first = LanguageContext.from_store(demo_store, today=date(2026, 1, 5))
    assert LanguageContext.from_store(demo_store, today=date(2026, 1, 5)) is first


def test_stocks_are_found_by_name_code_and_pinyin_initials(language_context: LanguageContext) -> None:
    stock = next(s for s in language_context.stocks if len(s.cnspell) >= 3 and s.cnspell.isalpha())
    for mention in (stock.name, stock.symbol, stock.ts_code, stock.cnspell):
        translation = translate_question(f"{mention}的收盘价", language_context)
        assert translation.status == "ok", (mention, translation.message)
        assert translation.sql is not None and f"'{stock.ts_code}'" in translation.sql


def test_schema_prompt_names_tables_units_and_conventions(language_context: LanguageContext) -> None:
    prompt = language_context.schema_prompt()
    for text in ("market.daily", "total_mv", "万元", "千元", "近N天", "沪深300"):
        assert text in prompt


def test_context_reloads_when_the_data_changes(empty_store: MarketStore) -> None:
    from backend.domain.market.demo import generate_demo

    before = LanguageContext.from_store(empty_store, today=date(2025, 12, 31))
    assert not before.has_data and before.stocks == []
    generate_demo(empty_store, seed=7, n_stocks=30, start=date(2025, 11, 1), end=date(2025, 12, 31))
    after = LanguageContext.from_store(empty_store, today=date(2025, 12, 31))
    assert after is not before
    listed = empty_store.query(f"SELECT count() FROM {empty_store.database}.stock_basic").rows[0][0]
    assert after.has_data and len(after.stocks) == listed > 0
    assert after.latest_trade_date == date(2025, 12, 31)
