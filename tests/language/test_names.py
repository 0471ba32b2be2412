"""Names people use (issue 8 item 6): short forms from the data, curated aliases, English names,
pinyin initials, and ambiguous words refused with their candidates instead of resolved to one."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.language.names import stock_words


@dataclass(frozen=True)
class _Stock:
    ts_code: str
    name: str
    cnspell: str = ""


STOCKS = [
    _Stock("600519.SH", "贵州茅台", "gzmt"),
    _Stock("600036.SH", "招商银行", "zsyh"),
    _Stock("300750.SZ", "宁德时代"),  # no initials in the data: pypinyin gives ndsd
    _Stock("000001.SZ", "平安银行", "payh"),
    _Stock("601318.SH", "中国平安", "zgpa"),
    _Stock("600000.SH", "浦发银行", "pfyh"),
    _Stock("002218.SZ", "拓日新能", "trxn"),
    _Stock("301162.SZ", "国能日新", "gnrx"),
    _Stock("603033.SH", "三维股份", "swgf"),
    _Stock("831834.BJ", "三维股份", "swgf"),
]


@pytest.fixture(scope="module")
def words() -> dict[str, tuple[str, ...]]:
    return stock_words(STOCKS, taken={"日", "新高", "银行", "pe"})


def test_stored_names_curated_aliases_and_english_names(words: dict[str, tuple[str, ...]]) -> None:
    assert words["贵州茅台"] == ("600519.SH",)
    assert words["招行"] == ("600036.SH",)  # curated: not a substring of 招商银行
    assert words["moutai"] == ("600519.SH",)
    assert words["kweichow moutai"] == ("600519.SH",)
    assert words["ping an bank"] == ("000001.SZ",)
    assert words["catl"] == ("300750.SZ",)


def test_short_forms_are_derived_from_the_data(words: dict[str, tuple[str, ...]]) -> None:
    assert words["茅台"] == ("600519.SH",)  # last two characters, in no other name
    assert words["宁德"] == ("300750.SZ",)  # first two characters
    assert "银行" not in words  # a word with a meaning of its own is never a name


def test_pinyin_initials_from_the_data_or_pypinyin(words: dict[str, tuple[str, ...]]) -> None:
    assert words["gzmt"] == ("600519.SH",)
    assert words["ndsd"] == ("300750.SZ",)


def test_ambiguous_words_keep_every_candidate(words: dict[str, tuple[str, ...]]) -> None:
    assert words["平安"] == ("000001.SZ", "601318.SH")
    assert words["三维股份"] == ("603033.SH", "831834.BJ")  # two listings share the name


def test_a_short_form_straddling_question_words_is_no_name(words: dict[str, tuple[str, ...]]) -> None:
    assert "日新" not in words  # 60日新高 is 日 + 新高, not a stock


def test_questions_with_names_people_use(language_context: LanguageContext) -> None:
    named = {"茅台2024年营收": "600519.SH", "What are Moutai's trailing P/E and market cap?": "600519.SH",
             "招行的市盈率": "600036.SH"}  # fmt: skip
    for question, code in named.items():
        translation = translate_question(question, language_context)
        assert translation.status == "ok", (question, translation.message)
        assert f"b.ts_code = '{code}'" in (translation.sql or "")
    refused = translate_question("平安的市盈率", language_context)
    assert refused.status == "not_understood"
    assert "平安银行" in refused.message and "中国平安" in refused.message


@pytest.mark.parametrize(
    ("question", "industry"),
    [
        ("average PE of coal miners", "煤炭开采"),
        ("baijiu makers with a PE below 30", "白酒"),
        ("automakers with revenue above 10 billion yuan", "汽车整车"),
        ("brokers and insurers with a PB under 2", "证券"),
        ("semiconductors with a PE below 50", "半导体"),
    ],
)
def test_industries_named_in_english(question: str, industry: str, language_context: LanguageContext) -> None:
    translation = translate_question(question, language_context)
    assert translation.status == "ok", translation.message
    assert f"'{industry}'" in (translation.sql or "")
