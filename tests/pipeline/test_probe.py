"""Probe: names, short names and pinyin initials grounded in stock_basic; days, years, industries and
indexes checked against the data; findings recorded in the trace."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest

from backend.domain.market.store import MarketStore
from backend.domain.pipeline.probe import probe_question
from backend.domain.pipeline.probe.mentions import NameMention, find_mentions
from backend.domain.pipeline.probe.probes import calendar_probe, read_names
from backend.domain.pipeline.trace import Trace
from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.checklist.question import read_question


@dataclass(frozen=True)
class Rows:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    column_types: list[str]


STOCKS = Rows(
    ["ts_code", "name", "cnspell"],
    [
        ("600519.SH", "贵州茅台", "gzmt"),
        ("600036.SH", "招商银行", "zsyh"),
        ("000001.SZ", "平安银行", "payh"),
        ("601318.SH", "中国平安", "zgpa"),
        ("300750.SZ", "宁德时代", "ndsd"),
    ],
    ["String"] * 3,
)


def _mention(text: str) -> NameMention:
    from pypinyin import Style, lazy_pinyin

    initials = "".join(lazy_pinyin(text, style=Style.FIRST_LETTER)).lower() if not text.isascii() else ""
    return NameMention(text, initials)


@pytest.mark.parametrize(
    ("mention", "kind", "value"),
    [
        ("贵州茅台", "stock", "贵州茅台 600519.SH"),
        ("茅台", "stock", "贵州茅台 600519.SH"),
        ("招行", "stock", "招商银行 600036.SH"),
        ("宁德", "stock", "宁德时代 300750.SZ"),
        ("gzmt", "stock", "贵州茅台 600519.SH"),
        ("贵州矛台", "stock", "贵州茅台 600519.SH"),  # a homophone: the same pinyin initials
        ("平安", "stock_candidates", "平安银行 000001.SZ | 中国平安 601318.SH"),
    ],
)
def test_names_short_names_and_initials_are_grounded(mention: str, kind: str, value: str) -> None:
    [found] = read_names([_mention(mention)])(STOCKS)
    assert (found.mention, found.kind, found.value) == (mention, kind, value)


def test_a_name_inside_a_grounded_name_is_not_grounded_again() -> None:
    found = read_names([_mention("贵州茅台"), _mention("茅台"), _mention("州茅")])(STOCKS)
    assert [item.mention for item in found] == ["贵州茅台"]


def test_nothing_is_grounded_from_words_that_fit_no_stock() -> None:
    assert read_names([_mention("火星"), _mention("abcd")])(STOCKS) == []


def test_mentions_leave_vocabulary_words_out() -> None:
    vocabulary = default_vocabulary()
    question = "茅台和招行今日的市盈率"
    mentions = find_mentions(read_question(question, vocabulary), extract_constraints(question, vocabulary))
    texts = {mention.text for mention in mentions.names}
    assert {"茅台", "招行"} <= texts
    assert not texts & {"市盈率", "今日"}


def test_probing_the_demo_store(demo_store: MarketStore) -> None:
    vocabulary = default_vocabulary()
    question = "2025年9月8日茅台和招行的收盘价，2024年的银行股和沪深300"
    trace = Trace()
    evidence = probe_question(
        read_question(question, vocabulary),
        extract_constraints(question, vocabulary),
        demo_store,
        demo_store.database,
        trace,
    )
    found = {(item.mention, item.kind): item.value for item in evidence}
    assert found[("茅台", "stock")] == "贵州茅台 600519.SH"
    assert found[("招行", "stock")] == "招商银行 600036.SH"
    assert found[("2025-09-08", "date")] == "a trading day with bars"
    assert found[("2024", "year")] == "has daily bars"
    assert found[("银行股", "industry")].startswith("银行 (")
    assert found[("沪深300", "index")].startswith("000300.SH: latest snapshot")
    assert found[("茅台", "stock_bars")].startswith("600519.SH: bars up to")
    events = [event for event in trace.to_list() if event["type"] == "probe_finding"]
    assert len(events) == len(evidence)
    assert {event["probe_round"] for event in events} == {1, 2}
    assert all(event["sql"] for event in events)


def test_one_round_only_when_asked(demo_store: MarketStore) -> None:
    vocabulary = default_vocabulary()
    question = "茅台的收盘价"
    trace = Trace()
    probe_question(
        read_question(question, vocabulary),
        extract_constraints(question, vocabulary),
        demo_store,
        "market",
        trace,
        1,
    )
    assert {event["probe_round"] for event in trace.to_list()} == {1}


def test_the_calendar_tells_the_range_and_each_named_day_and_year(demo_store: MarketStore) -> None:
    probe = calendar_probe(
        demo_store.database,
        [date(2025, 9, 6), date(2025, 9, 8), date(2021, 3, 1)],  # a Saturday, a Monday, before the data
        [2019, 2024, 2025],
    )
    found = [(item.mention, item.kind, item.value) for item in probe.read(demo_store.query(probe.sql))]
    assert found[0][:2] == ("data", "calendar") and found[0][2].startswith("daily bars from ")
    assert found[1:] == [
        ("2025-09-06", "date", "no bars on that day (not a trading day here)"),
        ("2025-09-08", "date", "a trading day with bars"),
        ("2021-03-01", "date", "no bars on that day (not a trading day here)"),
        ("2019", "year", "has no daily bars in the data"),
        ("2024", "year", "has daily bars"),
        ("2025", "year", "has daily bars"),
    ]


def test_the_calendar_with_nothing_named_tells_the_range_alone(demo_store: MarketStore) -> None:
    probe = calendar_probe(demo_store.database, [], [])
    found = probe.read(demo_store.query(probe.sql))
    assert [(item.mention, item.kind) for item in found] == [("data", "calendar")]
