"""Property tests: the parser never raises on arbitrary text, and any SQL it compiles passes the guard."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.market.guard import check_read_only

WORDS = [
    "市盈率",
    "低于",
    "15",
    "且",
    "净利润",
    "连续三年",
    "增长",
    "今日",
    "收盘价",
    "突破",
    "60日均线",
    "科技股",
    "各行业",
    "涨幅",
    "前三",
    "平均",
    "市值",
    "大于",
    "100亿",
    "上交所",
    "沪深300",
    "不属于",
    "或",
    "最高",
    "的",
    "股票",
    "PE",
    "below",
    "above",
    "and",
    "or",
    "not",
    "top",
    "10",
    "stocks",
    "by",
    "market cap",
    "last",
    "30",
    "days",
    "2025-09-08",
    "Sep 8 2025",
    "2024年",
    "三成",
    "一千亿",
    "🚀",
    "'; DROP TABLE daily; --",
    "SELECT * FROM system.tables",
    "UNION SELECT 1",
    "/*",
    "*/",
    "\\",
    "%",
    "（",
    "）",
    "\x00",
]

translator = BuiltinTranslator()
relaxed = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _check(question: str, context: LanguageContext) -> None:
    translation = translator.translate(question, context)
    assert translation.status in {"ok", "not_understood"}, translation.message
    if translation.status == "ok":
        assert translation.sql is not None
        check_read_only(translation.sql)
    else:
        assert translation.sql is None and translation.message


@relaxed
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(language_context: LanguageContext, text: str) -> None:
    _check(text, language_context)


@relaxed
@given(st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join))
def test_word_salad_of_known_words_compiles_to_guarded_sql(
    language_context: LanguageContext, text: str
) -> None:
    _check(text, language_context)


@relaxed
@given(st.lists(st.sampled_from(WORDS), max_size=14).map("".join))
def test_unspaced_chinese_style_salad(language_context: LanguageContext, text: str) -> None:
    _check(text, language_context)


def test_very_long_and_emoji_questions(language_context: LanguageContext) -> None:
    _check("市盈率低于15" * 1700, language_context)  # 10 200 characters: refused as too long
    _check("🚀📈" * 300, language_context)
    _check("PE below 15 " + "and " * 400 + "ROE above 10%", language_context)


def test_sql_in_a_question_only_reaches_sql_as_a_typed_value(language_context: LanguageContext) -> None:
    translation = translator.translate("'; DROP TABLE daily; --", language_context)
    assert translation.status == "not_understood" and translation.sql is None
    translation = translator.translate("市值大于100亿 UNION SELECT name FROM system.tables", language_context)
    assert translation.sql is None
