"""The error benchmark's parts: mutants by the NL2SQL-Bugs taxonomy, the result-changing filter, the
noisy generator, and the detection / false-alarm tallies on a few dev items."""

from __future__ import annotations

import random

import sqlglot

from backend.domain.language.context import LanguageContext
from backend.domain.language.translation import GenerationRequest, Guidance
from backend.domain.language_bench import load_dev_set
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.bench.mutants import ERROR_TYPES, mutate
from backend.domain.pipeline.bench.runner import (
    NoisyGold,
    _as_table,
    _same,
    detection,
    false_alarms,
    gold_tables,
    result_changing_mutants,
)
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.run import Ports
from backend.domain.pipeline.validate.checklist import default_vocabulary

EVERYTHING = """
SELECT DISTINCT s.industry, avg(b.pe) AS pe
FROM market.daily_basic AS b
INNER JOIN market.stock_basic AS s ON s.ts_code = b.ts_code AND s.list_status = 'L'
WHERE b.trade_date = (SELECT max(trade_date) FROM market.daily) AND b.total_mv > 1000000
  AND b.pb < 2 AND b.trade_date >= '2025-01-02'
GROUP BY s.industry
ORDER BY pe DESC
LIMIT 5
"""


def test_every_error_type_has_an_operator() -> None:
    mutants = mutate(EVERYTHING)
    assert {mutant.error_type for mutant in mutants} == set(ERROR_TYPES)


def test_mutants_are_distinct_single_edits_that_parse() -> None:
    gold = sqlglot.parse_one(EVERYTHING, dialect="clickhouse").sql(dialect="clickhouse")
    mutants = mutate(EVERYTHING)
    assert len({mutant.sql for mutant in mutants}) == len(mutants)
    for mutant in mutants:
        assert mutant.sql != gold and mutant.description
        sqlglot.parse_one(mutant.sql, dialect="clickhouse")


def test_a_threshold_mutant_reads_as_its_error() -> None:
    by_type = {m.description: m.sql for m in mutate(EVERYTHING) if m.error_type == "unit"}
    assert any("10000000000" in sql for sql in by_type.values())


ITEMS = [item for item in load_dev_set() if item.id in {"fund-003", "fund-023", "stat-031"}]


def _ports(store: MarketStore) -> Ports:
    return Ports(store, BuiltinGenerator(LanguageContext.from_store(store)), default_vocabulary(), "market")


def test_only_mutants_that_change_the_result_are_kept(demo_store: MarketStore) -> None:
    gold = gold_tables(ITEMS, demo_store)
    cases = result_changing_mutants(ITEMS, demo_store, gold, per_type=1, seed=1)
    assert len(cases) >= 10
    for case in cases:
        table = _as_table(demo_store.query(case.mutant.sql))
        assert not _same(gold[case.item.id], table, case.item)


def test_detection_and_false_alarms_are_tallied(demo_store: MarketStore) -> None:
    ports = _ports(demo_store)
    gold = gold_tables(ITEMS, demo_store)
    cases = result_changing_mutants(ITEMS, demo_store, gold, per_type=1, seed=1)
    per_type, missed = detection(ports, cases)
    assert per_type["all"].total == len(cases)
    assert per_type["all"].not_verified >= per_type["all"].failing > 0
    assert len(missed) == per_type["all"].total - per_type["all"].not_verified
    alarms, details = false_alarms(ports, ITEMS, gold)
    assert (alarms.total, alarms.failing, details) == (len(ITEMS), 0, [])


def test_the_noisy_generator_draws_again_in_each_round() -> None:
    item = ITEMS[0]
    mutants = mutate(item.gold_sql)[:3]
    never = NoisyGold(item, mutants, 0.0, random.Random(1))
    always = NoisyGold(item, mutants, 1.0, random.Random(1))
    request = GenerationRequest(item.question)
    assert never.generate(request).sql == item.gold_sql
    assert always.generate(request).sql in {mutant.sql for mutant in mutants}
    refused = tuple(mutant.sql for mutant in mutants)
    again = always.generate(GenerationRequest(item.question, guidance=Guidance(1, "fix", refused)))
    assert again.sql == item.gold_sql  # every mutant refused: only the gold is left
    nothing = never.generate(
        GenerationRequest(item.question, guidance=Guidance(2, "fix", (*refused, item.gold_sql)))
    )
    assert nothing.status == "not_understood"
