"""Ranked readings (issue 8 item 5): BuiltinTranslator.translate_readings lists a question's readings
best first, each with SQL of its own; translate gives the first."""

from __future__ import annotations

from typing import Any

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.limits import MAX_QUESTION_CHARS
from backend.domain.language.parser import Parser
from backend.domain.language.translation import Translation
from backend.domain.market.store import MarketStore

ENGINE = BuiltinTranslator()


def _labels(node: dict[str, Any]) -> list[str]:
    found = [node["label"]]
    for child in node.get("children", []):
        found.extend(_labels(child))
    return found


def _readings(question: str, context: LanguageContext) -> list[Translation]:
    readings = ENGINE.translate_readings(question, context)
    assert all(reading.status == "ok" for reading in readings), [r.message for r in readings]
    return readings


# question → a label of the first reading, and (if any) the label a later reading has instead
TWO_WAYS = [
    ("近30天涨幅最大的10只股票", "time:recent_days", "time:recent_bars"),
    ("Stocks up more than 10% over the last 30 days", "time:recent_days", "time:recent_bars"),
    ("市盈率低于15的银行股", "attribute:pe", "attribute:pe_ttm"),
    ("Banks with a P/E below 8", "attribute:pe", "attribute:pe_ttm"),
    ("Average dividend yield today for banks, brokers and insurers", "group", None),
    ("银行、证券和保险的平均市净率", "group", None),
]


@pytest.mark.parametrize(("question", "first_only", "later_only"), TWO_WAYS)
def test_the_other_reading_comes_later(
    question: str, first_only: str, later_only: str | None, language_context: LanguageContext
) -> None:
    first, *later = _readings(question, language_context)
    assert first.qst is not None and first_only in _labels(first.qst)
    others = [_labels(reading.qst) for reading in later if reading.qst is not None]
    assert any(first_only not in labels and (later_only is None or later_only in labels) for labels in others)


@pytest.mark.parametrize(
    "question",
    [
        "近30个交易日涨幅最大的10只股票",
        "静态市盈率低于15的银行股",
        "市盈率TTM低于15的银行股",
        "今日收盘价最高的股票",
    ],
)
def test_words_that_say_which_reading_give_one(question: str, language_context: LanguageContext) -> None:
    assert len(_readings(question, language_context)) == 1


def test_conditions_after_a_ranking_filter_it_first_when_aggregated(
    language_context: LanguageContext,
) -> None:
    question = "Of the 50 largest companies by market cap, how many closed up today?"
    first, second = _readings(question, language_context)
    assert first.qst is not None and second.qst is not None
    top_first = _top(first.qst)
    assert "where" not in _labels(top_first)  # ranked among all stocks, then filtered
    assert "where" in _labels(_top(second.qst))  # the other way: ranked among the risers


def test_a_list_ranks_after_its_conditions_first(language_context: LanguageContext) -> None:
    readings = _readings("涨幅前10的股票中市盈率低于20的", language_context)
    assert readings[0].qst is not None
    assert "condition:top" not in _labels(readings[0].qst)
    assert any(r.qst is not None and "condition:top" in _labels(r.qst) for r in readings[1:])


def _top(qst: dict[str, Any]) -> dict[str, Any]:
    stack = [qst]
    while stack:
        node = stack.pop()
        if node["label"] == "condition:top":
            return node
        stack.extend(node.get("children", []))
    raise AssertionError("no condition:top")


@pytest.mark.parametrize(
    "question",
    [question for question, _first, _second in TWO_WAYS]
    + [
        "涨幅前10的股票中市盈率低于20的",
        "沪深300成分股里市盈率低于行业平均的",
        "近10个交易日平均涨幅超过5%的行业",
    ],
)
def test_readings_are_distinct_runnable_and_the_first_is_translate(
    question: str, language_context: LanguageContext, demo_store: MarketStore
) -> None:
    readings = _readings(question, language_context)
    assert len({reading.sql for reading in readings}) == len(readings) >= 2
    assert readings[0].sql == ENGINE.translate(question, language_context).sql
    for reading in readings:
        assert reading.sql is not None
        demo_store.query(reading.sql)


def test_parser_readings_start_with_parse(language_context: LanguageContext) -> None:
    parser = Parser(language_context)
    question = "近30天日均换手率最高的5只股票"
    assert parser.parse_readings(question)[0] == parser.parse(question)


@pytest.mark.parametrize(
    "question", ["", "市盈率低于15的火星股票", "今天哪些股票涨了" * (MAX_QUESTION_CHARS // 4)]
)
def test_a_question_without_a_reading_gives_one_refusal(
    question: str, language_context: LanguageContext
) -> None:
    readings = ENGINE.translate_readings(question, language_context)
    assert len(readings) == 1
    assert readings[0].status == "not_understood" and readings[0].sql is None
    assert readings[0].message == ENGINE.translate(question, language_context).message
