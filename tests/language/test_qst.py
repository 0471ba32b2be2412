"""QST format: typed values outside labels, zss distance, JSON round trip, validation."""

from __future__ import annotations

import json

import pytest

from backend.domain.language.api import translate_question
from backend.domain.language.context import LanguageContext
from backend.domain.language.qst import (
    QstError,
    qst_distance,
    qst_from_json,
    qst_to_json,
    qst_to_screen,
    screen_to_qst,
)


def _qst(question: str, context: LanguageContext) -> dict:
    translation = translate_question(question, context)
    assert translation.status == "ok", translation.message
    assert translation.qst is not None
    return translation.qst


def test_questions_differing_in_literals_are_close(language_context: LanguageContext) -> None:
    first = _qst("2025年9月8日收盘价最高的上证所股票", language_context)
    second = _qst("2025年9月9日收盘价最高的深交所股票", language_context)
    assert first != second  # the literals differ …
    assert qst_distance(first, second) <= 1  # … the structure does not


def test_same_structure_across_languages(language_context: LanguageContext) -> None:
    chinese = _qst("2025年9月8日收盘价最高的上证所股票", language_context)
    english = _qst(
        "Which Shanghai Stock Exchange stock had the highest closing price on Sep 8 2025?", language_context
    )
    assert qst_distance(chinese, english) == 0


@pytest.mark.parametrize(
    "other",
    [
        "市盈率低于15且净利润连续三年增长",
        "统计各行业板块涨幅前三的股票及其平均市值",
        "今日收盘价突破60日均线的科技股有哪些",
    ],
)
def test_structurally_different_questions_are_far(language_context: LanguageContext, other: str) -> None:
    base = _qst("2025年9月8日收盘价最高的上证所股票", language_context)
    assert qst_distance(base, _qst(other, language_context)) > 3


def test_value_nodes_are_typed_and_keep_literals_out_of_labels(language_context: LanguageContext) -> None:
    qst = _qst("市值大于100亿的银行股", language_context)
    text = qst_to_json(qst)
    assert "100" not in "".join(_all_labels(qst))
    assert '"label": "value:number"' in text
    assert '"label": "value:entity:industry"' in text


def _all_labels(node: dict) -> list[str]:
    return [node["label"], *[label for child in node.get("children", []) for label in _all_labels(child)]]


def test_json_round_trip_is_lossless(language_context: LanguageContext) -> None:
    for question in (
        "市盈率低于8或股息率高于5%的银行股",
        "近30天涨幅最大的10只股票",
        "今天上涨的股票有多少只",
    ):
        qst = _qst(question, language_context)
        again = qst_from_json(qst_to_json(qst))
        assert again == json.loads(qst_to_json(qst))
        assert screen_to_qst(qst_to_screen(again)) == again


@pytest.mark.parametrize(
    "broken",
    [
        "[]",
        '{"label": "where", "children": []}',
        '{"label": "select", "children": [{"label": "limit", "children": []}]}',
        '{"label": "select", "children": [{"label": "where", "children": [{"label": "condition:compare",'
        ' "children": [{"label": "attribute:pe"}, {"label": "operator:~"},'
        ' {"label": "value:number", "value": 1}]}]}]}',
        '{"label": "select", "children": [{"label": "time:date", "children": []}]}',
        '{"label": "select", "children": [{"label": "time:recent_days", "children": '
        '[{"label": "value:number", "value": "30"}]}]}',
        "not json",
    ],
)
def test_validation_names_the_problem(broken: str) -> None:
    with pytest.raises(QstError):
        qst_from_json(broken)
