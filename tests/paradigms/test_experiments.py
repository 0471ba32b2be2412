"""The paradigm experiments (issue 10 "Show"): leave-one-out τ-sensitivity with EX against gold, question
streams, the call-counting stub LLM, and the measured hit-rate experiment on a small scale."""

from __future__ import annotations

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.llm.roles import ReverseQuestionWriterRole, SqlGeneratorRole
from backend.domain.language_bench.compare import ResultTable
from backend.domain.market.store import MarketStore
from backend.domain.paradigms.experiments import (
    GoldChatModel,
    GoldCheckWriter,
    GoldQuestion,
    stream,
    tau_sensitivity,
)
from paradigms.experiments import hit_rate_experiment
from paradigms.models import Paradigm

VARIANTS = ("总市值超过1000亿的股票", "总市值超过2000亿的股票")
OTHERS = ("市盈率最低的10只股票", "换手率最高的5只股票")


def _gold(questions: tuple[str, ...], context: LanguageContext) -> list[GoldQuestion]:
    translator = BuiltinTranslator()
    found = []
    for question in questions:
        translation = translator.translate(question, context)
        assert translation.qst is not None and translation.sql is not None
        found.append(GoldQuestion(question, translation.qst, translation.sql, order_matters=False))
    return found


def _runner(store: MarketStore):  # type: ignore[no-untyped-def]
    def run(sql: str) -> ResultTable | None:
        result = store.query(sql)
        return ResultTable(result.columns, result.rows)

    return run


def test_leave_one_out_matches_literal_variants_only_from_the_literal_cost(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    gold = _gold(VARIANTS + OTHERS, paradigm_context)
    table = tau_sensitivity(gold, _runner(demo_store), market_day=paradigm_context.latest_trade_date)
    rows = {row["tau"]: row for row in table["rows"]}
    assert rows[0]["matched"] == 0  # a question never matches itself (left out)
    assert (rows[1]["matched"], rows[1]["adapted"], rows[1]["right"]) == (2, 2, 2)  # the two variants
    for low, high in zip(table["rows"], table["rows"][1:], strict=False):
        assert low["matched"] <= high["matched"]
    for row in table["rows"]:
        assert row["right"] <= row["adapted"] <= row["matched"] <= row["questions"] == 4


def test_a_wrong_reuse_is_not_counted_right(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    right, other = _gold(VARIANTS, paradigm_context)
    broken = GoldQuestion(other.question, other.qst, right.gold_sql, order_matters=False)  # wrong gold
    table = tau_sensitivity([right, broken], _runner(demo_store), market_day=None)
    row = next(row for row in table["rows"] if row["tau"] == 1)
    # the broken paradigm's SQL holds no slot for its own literal, so only the other way fills — and
    # that fill (2000亿) disagrees with the broken gold (1000亿): adapted, not right
    assert (row["adapted"], row["right"]) == (1, 0)


def test_streams_have_the_asked_share_of_repeats() -> None:
    known, unseen = ["k1", "k2"], [f"u{n}" for n in range(10)]
    for percent in (0, 20, 40, 60, 80, 100):
        questions = stream(known, unseen, repeat_percent=percent, length=10, seed=1)
        assert sum(repeat for _q, repeat in questions) == percent // 10
        news = [q for q, repeat in questions if not repeat]
        assert len(set(news)) == len(news) and set(news) <= set(unseen)
    with pytest.raises(ValueError, match="unseen"):
        stream(known, unseen[:2], repeat_percent=0, length=5, seed=1)


def test_the_stub_llm_answers_gold_and_counts_calls() -> None:
    model = GoldChatModel(answers={"q1": "SELECT 1 AS one"})
    role = SqlGeneratorRole(model)
    assert role.generate("q1", "schema").sql == "SELECT 1 AS one"
    assert role.generate("q1", "schema", guidance="try again").sql == "SELECT 1 AS one"
    assert model.calls == 2
    writer = GoldCheckWriter(answers={"q1": "SELECT 1 AS one"})
    [check] = ReverseQuestionWriterRole(writer).write("q1", "SELECT 2", "one\n1", [])
    assert (check.sql, check.criterion) == ("SELECT count() FROM (SELECT 1 AS one)", "row_count")
    assert writer.calls == 1


@pytest.mark.django_db
def test_hit_rate_experiment_saves_every_llm_call_on_repeats(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    gold = _gold(VARIANTS + OTHERS, paradigm_context)
    report = hit_rate_experiment(gold, demo_store, paradigm_context, known=2, length=2, seed=3)
    assert report["warm_up"] == {"asked": 2, "learned": 2}
    streams = {item["repeat_percent"]: item for item in report["streams"]}
    full, none = streams[100], streams[0]
    # Repeats: the question and its reverse-question writer's checks both come from the library.
    assert full["with_library"]["llm_calls_per_question"] == 0 and full["with_library"]["hits"] == 2
    assert full["with_library"]["check_sets_reused"] == 2
    assert full["without_library"]["llm_calls_per_question"] == 2  # the generator and the writer
    assert full["without_library"]["writer_calls_per_question"] == 1
    # unseen questions may still be literal variants of known ones: every hit saves its calls
    library = none["with_library"]
    saved = library["hits"] + library["check_sets_reused"]
    assert library["llm_calls_per_question"] == 2 - saved / 2
    assert none["without_library"]["llm_calls_per_question"] == 2
    assert all(item["with_library"]["validated"] == 2 for item in report["streams"])
    assert Paradigm.objects.count() == 0  # rolled back
