"""The three levels of the checklist: syntax (one query sqlglot reads), execution (as the caller ran
it), constraints — and the shape of what the checks return."""

from __future__ import annotations

import pytest
from sqlglot import exp

from backend.domain.pipeline.validate.checklist import (
    Attribution,
    ExecutionOutcome,
    Kind,
    Lang,
    Level,
    Outcome,
    check_execution,
    check_sql,
    check_syntax,
    default_vocabulary,
    extract_constraints,
)
from backend.domain.pipeline.validate.checklist.model import Finding


@pytest.mark.parametrize(
    "sql",
    [
        "SELEC ts_code FROM market.daily",
        "SELECT 1; SELECT 2",
        "INSERT INTO market.daily VALUES (1)",
        "",
    ],
)
def test_syntax_level_fails_what_is_not_one_query(sql: str) -> None:
    verdict, parsed = check_syntax(sql)
    assert parsed is None
    assert (verdict.level, verdict.outcome, verdict.attribution) == (
        Level.SYNTAX,
        Outcome.FAIL,
        Attribution.INVALID_SQL,
    )


def test_syntax_level_reads_ctes_named_with_keywords_as_the_guard_does() -> None:
    verdict, parsed = check_syntax(
        "WITH then AS (SELECT ts_code, close FROM market.daily), "
        "last AS (SELECT ts_code FROM market.stock_basic) "
        "SELECT CASE WHEN then.close > 5 THEN 1 ELSE 0 END AS high "
        "FROM then JOIN last ON last.ts_code = then.ts_code"
    )
    assert verdict.outcome is Outcome.PASS
    assert parsed is not None
    assert [cte.alias for cte in parsed.tree.find_all(exp.CTE)] == ["then", "last"]
    assert parsed.tree.find(exp.Case) is not None


def test_constraints_are_undecidable_when_the_sql_does_not_parse() -> None:
    constraints = extract_constraints("市值大于100亿的银行股", default_vocabulary())
    verdicts = check_sql(constraints, "SELECT FROM WHERE")
    assert verdicts[0].outcome is Outcome.FAIL
    assert [verdict.outcome for verdict in verdicts[1:]] == [Outcome.UNDECIDABLE] * len(constraints)
    assert [verdict.constraint for verdict in verdicts[1:]] == constraints


def test_execution_level_takes_the_callers_outcome() -> None:
    failed = check_execution(ExecutionOutcome(error="Code: 47. Unknown identifier total_mvv"))
    assert (failed.level, failed.outcome, failed.attribution) == (
        Level.EXECUTION,
        Outcome.FAIL,
        Attribution.INVALID_SQL,
    )
    assert "total_mvv" in failed.reason
    ran = check_execution(ExecutionOutcome(error=None, row_count=12))
    assert (ran.outcome, ran.attribution) == (Outcome.PASS, None)
    assert "12 rows" in ran.reason


def test_constraints_carry_kind_span_and_text_in_the_question_language() -> None:
    zh = extract_constraints("市值最大的10只银行股", default_vocabulary())
    en = extract_constraints("The 10 largest bank stocks by market cap", default_vocabulary())
    assert {c.kind for c in zh} == {c.kind for c in en} == {Kind.TOP_K, Kind.ENTITY, Kind.COLUMN}
    assert all(c.lang is Lang.ZH for c in zh) and all(c.lang is Lang.EN for c in en)
    top = next(c for c in zh if c.kind is Kind.TOP_K)
    assert (
        top.span.text == "最大的10只"
        and "市值最大的10只银行股"[top.span.start : top.span.end] == "最大的10只"
    )
    assert "降序" in top.text
    assert "descending" in next(c for c in en if c.kind is Kind.TOP_K).text


def test_a_failure_always_names_what_it_blames() -> None:
    with pytest.raises(ValueError):
        Finding(Outcome.FAIL, "no culprit")
    with pytest.raises(ValueError):
        Finding(Outcome.PASS, "a culprit on a pass", Attribution.UNIT)
    verdicts = check_sql(
        extract_constraints("市值大于100亿", default_vocabulary()), "SELECT 1 WHERE total_mv > 100"
    )
    assert [(v.outcome, v.attribution) for v in verdicts] == [
        (Outcome.PASS, None),
        (Outcome.FAIL, Attribution.UNIT),
        (Outcome.PASS, None),  # total_mv is read, not its neighbour circ_mv
    ]
