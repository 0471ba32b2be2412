"""SQL templates: exact round trip, fills that agree with the compiler, and every refusal."""

from __future__ import annotations

import random
from datetime import date
from typing import Any

import pytest
from sqlglot import exp

from backend.domain.language.compiler import Compiler
from backend.domain.language.context import LanguageContext
from backend.domain.language.qst import Node
from backend.domain.language.translation import Translation
from backend.domain.language_bench.compare import ResultTable, compare_results
from backend.domain.market.guard import DIALECT, check_read_only
from backend.domain.market.store import MarketStore
from backend.domain.paradigms.templates import (
    SqlTemplate,
    TemplateError,
    TemplateMismatch,
    extract_template,
    fill_template,
)
from backend.domain.paradigms.trees import canonical_qst, node_at, value_nodes

DAY = date(2025, 12, 31)


def leaf(label: str, value: Any = None) -> Node:
    node: Node = {"label": label, "children": []}
    if value is not None:
        node["value"] = value
    return node


def close_on_day(day: str, exchange: str, limit: int) -> Node:
    """'<day>收盘价最高的<exchange>股票', as the parser writes it."""
    scope = {"label": "scope:exchange", "children": [leaf("value:entity:exchange", exchange)]}
    return {
        "label": "select",
        "children": [
            {"label": "return", "children": [leaf("entity:stock")]},
            {"label": "time:date", "children": [leaf("value:date", day)]},
            {"label": "where", "children": [scope]},
            {"label": "order:desc", "children": [leaf("attribute:close")]},
            {"label": "limit", "children": [leaf("value:number", limit)]},
        ],
    }


CLOSE_SQL = (
    "SELECT d.ts_code, d.close FROM market.daily AS d INNER JOIN market.stock_basic AS b "
    "ON b.ts_code = d.ts_code WHERE d.trade_date = toDate('2025-09-08') AND b.exchange = 'SSE' "
    "ORDER BY d.close DESC, d.ts_code LIMIT 1"
)


def with_value(qst: Node, path: tuple[int, ...], value: Any) -> Node:
    changed = canonical_qst(qst)
    node_at(changed, path)["value"] = value
    return changed


def test_literal_only_variant_is_filled_and_passes_the_guard() -> None:
    template = extract_template(close_on_day("2025-09-08", "SSE", 1), CLOSE_SQL, resolved_on=DAY)
    assert [slot.kind for slot in template.slots] == ["date", "string", "number"]
    assert "{slot_0:Date}" in template.text and "{slot_2:Float64}" in template.text
    assert template.fixed_dates == ()
    filled = fill_template(template, close_on_day("2025-09-09", "SZSE", 3), market_day=None)
    assert filled == (
        CLOSE_SQL.replace("2025-09-08", "2025-09-09").replace("'SSE'", "'SZSE'").replace("LIMIT 1", "LIMIT 3")
    )
    check_read_only(filled)


def test_filling_with_the_source_qst_gives_back_the_sql_byte_for_byte(
    dev_translations: list[Translation],
) -> None:
    for translation in dev_translations:
        assert translation.qst is not None and translation.sql is not None
        template = extract_template(translation.qst, translation.sql, resolved_on=DAY)
        assert fill_template(template, translation.qst, market_day=DAY) == translation.sql


def _variant(qst: Node, rng: random.Random, entities: dict[str, list[Any]]) -> Node | None:
    """The QST with one literal changed to another plausible one."""
    canonical = canonical_qst(qst)
    path, node = rng.choice(list(value_nodes(canonical)) or [((), {})])
    if not path:
        return None
    value = node["value"]
    label = node["label"]
    if label == "value:number":
        new: Any = value + 1 if isinstance(value, int) else round(value * 1.5, 4)
    elif label == "value:date":
        new = "2025-09-09" if value != "2025-09-09" else "2025-09-10"
    elif label in {"value:year", "value:month", "value:quarter"}:
        new = {"value:year": value - 1, "value:month": value % 12 + 1, "value:quarter": value % 4 + 1}[label]
    else:
        others = [item for item in entities.get(label, []) if item != value]
        if not others:
            return None
        new = rng.choice(others)
    return with_value(canonical, path, new)


def _same_answer(store: MarketStore, expected_sql: str, sql: str) -> bool:
    """Execution accuracy as the dev benchmark measures it (extra columns allowed, order kept)."""
    expected, got = store.query(expected_sql), store.query(sql)
    return compare_results(
        ResultTable(expected.columns, expected.rows), ResultTable(got.columns, got.rows), order_matters=True
    ).match


def test_filled_sql_returns_what_the_compiler_returns_for_the_variant(
    dev_translations: list[Translation], paradigm_context: LanguageContext, demo_store: MarketStore
) -> None:
    """Ground truth for slot filling: the built-in compiler on the variant QST. Every fill must
    give the same rows; refusals are fine (and counted, so the test notices if filling stops working)."""
    rng = random.Random(8)
    entities: dict[str, list[Any]] = {}
    for translation in dev_translations:
        for _path, node in value_nodes(canonical_qst(translation.qst or {})):
            entities.setdefault(node["label"], []).append(node["value"])
    market_day = paradigm_context.latest_trade_date
    filled = refused = 0
    for translation in dev_translations:
        assert translation.qst is not None and translation.sql is not None
        template = extract_template(translation.qst, translation.sql, resolved_on=market_day)
        variant = _variant(translation.qst, rng, entities)
        if variant is None:
            continue
        try:
            sql = fill_template(template, variant, market_day=market_day)
        except TemplateMismatch:
            refused += 1
            continue
        check_read_only(sql)
        compiled, _warnings = Compiler(paradigm_context).compile_qst(variant)
        assert _same_answer(demo_store, compiled.sql(dialect=DIALECT), sql), translation.question
        filled += 1
    assert filled >= 80 and refused >= 20


def _template(qst: Node, sql: str, resolved_on: date | None = DAY) -> SqlTemplate:
    return extract_template(qst, sql, resolved_on=resolved_on)


def test_a_different_structure_is_refused() -> None:
    template = _template(close_on_day("2025-09-08", "SSE", 1), CLOSE_SQL)
    other = close_on_day("2025-09-08", "SSE", 1)
    other["children"][3]["label"] = "order:asc"
    with pytest.raises(TemplateMismatch, match="structure differs"):
        fill_template(template, other, market_day=None)


def test_a_value_the_sql_holds_in_a_derived_form_is_refused() -> None:
    qst = close_on_day("2025-09-08", "SSE", 1)
    # the SQL adds an exchange the question did not name: the list is not the question's
    sql = CLOSE_SQL.replace("b.exchange = 'SSE'", "b.exchange IN ('SSE', 'BSE')")
    template = _template(qst, sql)
    assert [slot.kind for slot in template.slots] == ["date", "number"]
    assert "2025-09-09" in fill_template(template, close_on_day("2025-09-09", "SSE", 2), market_day=None)
    with pytest.raises(TemplateMismatch, match="does not show where"):
        fill_template(template, close_on_day("2025-09-08", "SZSE", 1), market_day=None)


def test_time_bearing_values_are_refused_when_the_sql_holds_derived_dates() -> None:
    qst = close_on_day("2025-09-08", "SSE", 1)
    # "up the day before": 2025-09-05 comes from 2025-09-08 but is not in the QST
    sql = CLOSE_SQL.replace(
        "b.exchange = 'SSE'",
        "b.exchange = 'SSE' AND d.ts_code IN "
        "(SELECT ts_code FROM market.daily WHERE trade_date = toDate('2025-09-05') AND pct_chg > 0)",
    )
    template = _template(qst, sql)
    assert template.fixed_dates == ("2025-09-05",)
    assert "SZSE" in fill_template(template, close_on_day("2025-09-08", "SZSE", 1), market_day=DAY)
    with pytest.raises(TemplateMismatch, match="derived from the time scope"):
        fill_template(template, close_on_day("2025-09-09", "SSE", 1), market_day=DAY)


def test_resolved_dates_are_refused_on_another_market_day() -> None:
    qst = close_on_day("2025-09-08", "SSE", 1)
    sql = CLOSE_SQL.replace(
        "b.exchange = 'SSE'", "b.exchange = 'SSE' AND b.list_date <= toDate('2025-12-31')"
    )
    template = _template(qst, sql, resolved_on=DAY)
    fill_template(template, close_on_day("2025-09-08", "SZSE", 1), market_day=DAY)
    with pytest.raises(TemplateMismatch, match="resolved on 2025-12-31"):
        fill_template(template, close_on_day("2025-09-08", "SZSE", 1), market_day=date(2026, 1, 5))


def test_a_literal_naming_an_output_column_is_refused() -> None:
    qst = close_on_day("2025-09-08", "SSE", 1)
    sql = CLOSE_SQL.replace("d.close FROM", "d.close AS close_20250908 FROM")
    template = _template(qst, sql)
    assert "SZSE" in fill_template(template, close_on_day("2025-09-08", "SZSE", 1), market_day=None)
    with pytest.raises(TemplateMismatch, match="output column of the SQL is named after '2025-09-08'"):
        fill_template(template, close_on_day("2025-09-09", "SSE", 1), market_day=None)


def test_value_nodes_sharing_a_literal_share_a_slot_and_must_stay_equal() -> None:
    qst = close_on_day("2025-09-08", "SSE", 5)
    qst["children"][2]["children"].append(
        {
            "label": "condition:compare",
            "children": [leaf("attribute:pe"), leaf("operator:<"), leaf("value:number", 5)],
        }
    )
    sql = CLOSE_SQL.replace("LIMIT 1", "LIMIT 5").replace(
        "b.exchange = 'SSE'", "b.exchange = 'SSE' AND d.pe < 5"
    )
    template = _template(qst, sql)
    # `pe < 5` and `LIMIT 5` compare the literal with different things: ambiguous, so no slot at all
    assert all(slot.kind != "number" for slot in template.slots)
    with pytest.raises(TemplateMismatch, match="does not show where"):
        fill_template(template, with_value(qst, (2, 0, 2), 6), market_day=None)


def test_negative_literals_and_quotes_are_rendered_safely() -> None:
    qst = close_on_day("2025-09-08", "SSE", 1)
    qst["children"][2]["children"].append(
        {
            "label": "condition:compare",
            "children": [leaf("attribute:pct_chg"), leaf("operator:>"), leaf("value:number", -3)],
        }
    )
    sql = CLOSE_SQL.replace("b.exchange = 'SSE'", "b.exchange = 'SSE' AND d.pct_chg > -3")
    template = _template(qst, sql)
    hostile = "SSE' OR 1 = 1 --"
    changed = with_value(with_value(qst, (2, 0, 2), -2.5), (2, 1, 0), hostile)
    filled = fill_template(template, changed, market_day=None)
    assert "d.pct_chg > -2.5" in filled
    assert "b.exchange = 'SSE'' OR 1 = 1 --'" in filled  # one string literal: the quote is doubled
    assert hostile in {literal.this for literal in check_read_only(filled).find_all(exp.Literal)}
    positive = fill_template(template, with_value(qst, (2, 0, 2), 4), market_day=None)
    assert "d.pct_chg > -(-4)" in positive


@pytest.mark.parametrize(
    ("path", "value"), [((1, 0), "2025-13-01"), ((1, 0), 20250908), ((4, 0), "ten"), ((4, 0), True)]
)
def test_values_of_the_wrong_type_are_refused(path: tuple[int, ...], value: Any) -> None:
    template = _template(close_on_day("2025-09-08", "SSE", 1), CLOSE_SQL)
    with pytest.raises(TemplateMismatch):
        fill_template(
            template, with_value(close_on_day("2025-09-08", "SSE", 1), path, value), market_day=None
        )


def test_sql_that_cannot_be_templated_is_refused() -> None:
    qst = close_on_day("2025-09-08", "SSE", 1)
    with pytest.raises(TemplateError, match="already contains"):
        extract_template(qst, CLOSE_SQL.replace("LIMIT 1", "LIMIT {slot_0:UInt32}"), resolved_on=None)
    with pytest.raises(TemplateError, match="exactly one statement"):
        extract_template(qst, f"{CLOSE_SQL}; SELECT 1", resolved_on=None)
    with pytest.raises(TemplateError, match="could not be parsed"):
        extract_template(qst, "SELECT FROM WHERE (", resolved_on=None)
