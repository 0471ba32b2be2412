"""The pipeline loop on the demo store: statuses, the correction limit, the fallback, the trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.translation import GenerationRequest, Translation
from backend.domain.market.errors import QueryFailed, StoreBusy
from backend.domain.market.store import MarketStore, QueryResult
from backend.domain.pipeline.correct import judge
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.ports import ParadigmHit, QstTree, RecordedCheck, ReverseRun
from backend.domain.pipeline.run import PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.empty_result import NOTHING_QUALIFIES, empty_result_check

QUESTION = "总市值超过1000亿的股票"
GOLD = (
    "SELECT ts_code FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 10000000"
)
# Result-changing mutants of GOLD: a wrong threshold, a dropped filter, a unit slip.
WRONG = (
    "SELECT ts_code FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 5000000",
    "SELECT ts_code FROM market.daily_basic WHERE trade_date = (SELECT max(trade_date) FROM market.daily)",
    "SELECT ts_code FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 100000000000",
    "SELECT ts_code FROM market.daily_basic "
    "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv < 10000000",
)


@dataclass
class ScriptedGenerator:
    """Answers round n with the n-th SQL of its script (None: nothing more to offer)."""

    script: list[str | None]
    name: str = "scripted"
    requests: list[GenerationRequest] = field(default_factory=list)

    def generate(self, request: GenerationRequest) -> Translation:
        self.requests.append(request)
        sql = self.script[len(self.requests) - 1] if len(self.requests) <= len(self.script) else None
        if sql is None:
            return Translation(request.question, "not_understood", message="nothing else", engine=self.name)
        return Translation(request.question, "ok", sql=sql, qst={"label": "select"}, engine=self.name)


def _ports(store: MarketStore, generator: ScriptedGenerator | BuiltinGenerator) -> Ports:
    return Ports(store, generator, default_vocabulary(), store.database)


def test_a_right_answer_is_verified_with_its_checks_and_trace(demo_store: MarketStore) -> None:
    outcome = run_pipeline(QUESTION, _ports(demo_store, ScriptedGenerator([GOLD])))
    assert outcome.status == "verified"
    assert outcome.answer is not None and outcome.answer.sql == GOLD
    kinds = {check.kind for check in outcome.answer.checks}
    assert {"syntax", "execution", "number", "filter_violation", "missing"} <= kinds
    assert all(check.verdict == "pass" for check in outcome.answer.checks)
    events = outcome.trace.to_list()
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "run_finished"
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    verdicts = [event for event in events if event["type"] == "check_verdict"]
    assert len(verdicts) == len(outcome.answer.checks)
    assert any(event["type"] == "probe_finding" for event in events)


def test_a_wrong_answer_corrected_in_round_one(demo_store: MarketStore) -> None:
    generator = ScriptedGenerator([WRONG[0], GOLD])
    outcome = run_pipeline(QUESTION, _ports(demo_store, generator))
    assert (outcome.status, outcome.correction_round) == ("corrected", 1)
    assert outcome.initial_sql == WRONG[0] and outcome.answer is not None and outcome.answer.sql == GOLD
    guidance = generator.requests[1].guidance
    assert guidance is not None and guidance.rejected_sql == (WRONG[0],)
    assert "total_mv" in guidance.message
    rounds = [event for event in outcome.trace.to_list() if event["type"] == "correction_round"]
    assert [event["round"] for event in rounds] == [1]


@pytest.mark.parametrize("max_rounds", [0, 1, 3])
def test_the_loop_stops_at_the_limit_and_falls_back_to_sql0_unverified(
    demo_store: MarketStore, max_rounds: int
) -> None:
    generator = ScriptedGenerator(list(WRONG))
    outcome = run_pipeline(QUESTION, _ports(demo_store, generator), PipelineSettings(max_rounds=max_rounds))
    assert outcome.status == "unverified"
    assert len(outcome.attempts) == 1 + max_rounds
    assert len(generator.requests) == 1 + max_rounds
    assert outcome.answer is outcome.attempts[0]
    assert outcome.answer.result is not None
    assert outcome.answer.result.rows == demo_store.query(WRONG[0]).rows
    assert outcome.warnings and "NOT VERIFIED" not in outcome.warnings[0]  # a Chinese question
    assert "未通过验证" in outcome.warnings[0]


def test_a_generator_without_another_candidate_ends_the_loop(demo_store: MarketStore) -> None:
    generator = ScriptedGenerator([WRONG[1], WRONG[1]])  # the same SQL again is nothing new
    outcome = run_pipeline(QUESTION, _ports(demo_store, generator))
    assert outcome.status == "unverified" and len(outcome.attempts) == 1
    [event] = [event for event in outcome.trace.to_list() if event["type"] == "correction_round"]
    assert event["sql"] is None


class FailingReverseQueries:
    """The store, except that every query other than the candidate fails (no check can decide)."""

    def __init__(self, store: MarketStore, candidate: str) -> None:
        self.store, self.candidate = store, candidate

    def query(self, sql: str) -> QueryResult:
        if sql != self.candidate:
            raise QueryFailed("unavailable for this test")
        return self.store.query(sql)


def test_an_undecided_check_is_never_verified(demo_store: MarketStore) -> None:
    reader = FailingReverseQueries(demo_store, GOLD)
    ports = Ports(reader, ScriptedGenerator([GOLD]), default_vocabulary(), "market")
    outcome = run_pipeline(QUESTION, ports)
    assert outcome.answer is not None
    assert any(check.verdict == "undecidable" for check in outcome.answer.checks)
    assert not any(check.verdict == "fail" for check in outcome.answer.checks)
    assert outcome.status == "unverified"
    assert any("无法判定" in warning for warning in outcome.warnings)


def test_not_understood_and_error_statuses(demo_store: MarketStore) -> None:
    assert run_pipeline(QUESTION, _ports(demo_store, ScriptedGenerator([None]))).status == "not_understood"
    broken = "SELECT no_such_column FROM market.daily"
    outcome = run_pipeline(QUESTION, _ports(demo_store, ScriptedGenerator([broken])))
    assert (outcome.status, outcome.error_code) == ("error", "query_failed")
    assert outcome.answer is not None and outcome.answer.result is None


def test_an_external_candidate_replaces_sql0(demo_store: MarketStore) -> None:
    generator = ScriptedGenerator([GOLD])
    outcome = run_pipeline(QUESTION, _ports(demo_store, generator), candidate_sql=WRONG[2])
    assert outcome.initial_sql == WRONG[2]
    assert (outcome.status, outcome.correction_round) == ("corrected", 1)
    assert generator.requests[0].guidance is not None  # sql0 was not generated


def test_store_busy_propagates(demo_store: MarketStore) -> None:
    class Busy:
        def query(self, sql: str) -> QueryResult:
            raise StoreBusy("queue full", retry_after=1)

    with pytest.raises(StoreBusy):
        run_pipeline(QUESTION, Ports(Busy(), ScriptedGenerator([GOLD]), default_vocabulary(), "market"))


class RankedTranslator:
    """A built-in translator with ranked readings: the first is wrong, the second right."""

    name = "builtin"

    def translate(self, question: str, context: LanguageContext) -> Translation:
        return Translation(question, "ok", sql=WRONG[0], engine=self.name)

    def translate_readings(self, question: str, context: LanguageContext) -> list[Translation]:
        return [self.translate(question, context), Translation(question, "ok", sql=GOLD, engine=self.name)]


def test_the_builtin_engine_answers_guidance_with_its_next_reading(demo_store: MarketStore) -> None:
    context = LanguageContext.from_store(demo_store)
    generator = BuiltinGenerator(context, RankedTranslator())  # type: ignore[arg-type]
    outcome = run_pipeline(QUESTION, _ports(demo_store, generator))
    assert (outcome.status, outcome.correction_round) == ("corrected", 1)


def test_without_ranked_readings_the_builtin_engine_has_nothing_else(demo_store: MarketStore) -> None:
    context = LanguageContext.from_store(demo_store)
    outcome = run_pipeline(QUESTION, _ports(demo_store, BuiltinGenerator(context)))
    assert outcome.status == "verified"  # the engine reads this question right
    request = GenerationRequest(QUESTION, guidance=None)
    first = BuiltinGenerator(context).generate(request)
    assert first.sql is not None
    from backend.domain.language.translation import Guidance

    again = BuiltinGenerator(context).generate(
        GenerationRequest(QUESTION, guidance=Guidance(1, "fix it", (first.sql,)))
    )
    assert again.status == "not_understood"


@dataclass
class RecordingLibrary:
    learned: list[tuple[str, str]] = field(default_factory=list)

    def structure(self, question: str) -> QstTree | None:
        return {"label": "select"}

    def lookup(self, question: str, qst: QstTree) -> ParadigmHit | None:
        return ParadigmHit("p1", "总市值超过500亿的股票", GOLD, 0.25)

    def learn(self, question: str, qst: QstTree, sql: str, *, status: str = "verified") -> str | None:
        self.learned.append((question, sql))
        return "p2"

    def lookup_reverse(self, trees: Sequence[QstTree]) -> list[ParadigmHit | None]:
        return [None for _ in trees]

    def record_reverse(
        self, runs: Sequence[ReverseRun], *, used: Sequence[str], misses: int, status: str
    ) -> list[RecordedCheck]:
        return [RecordedCheck() for _ in runs]


def test_paradigm_hit_feeds_corrections_and_verified_answers_are_learned(demo_store: MarketStore) -> None:
    library = RecordingLibrary()
    generator = ScriptedGenerator([WRONG[0], GOLD])
    ports = Ports(demo_store, generator, default_vocabulary(), "market", library=library)
    outcome = run_pipeline(QUESTION, ports)
    assert outcome.status == "corrected"
    assert generator.requests[1].examples[0].sql == GOLD
    assert library.learned == [(QUESTION, GOLD)]
    events = [event for event in outcome.trace.to_list() if event["type"] == "paradigm"]
    assert [event["outcome"] for event in events if event["query"] == "question"] == ["hit", "learned"]
    # this library has no reverse paradigms: every reverse query is a miss, and none is stored
    assert {event["outcome"] for event in events if event["query"] != "question"} == {"miss"}


def test_an_empty_answer_is_verified_only_when_another_reading_finds_nothing_either(
    demo_store: MarketStore,
) -> None:
    # nothing has a market cap above 100 trillion yuan: the reverse reading of every condition finds
    # no stock either, which decides the empty answer's point
    question = "总市值超过1000000亿的股票"
    empty = (
        "SELECT ts_code FROM market.daily_basic "
        "WHERE trade_date = (SELECT max(trade_date) FROM market.daily) AND total_mv > 10000000000"
    )
    outcome = run_pipeline(question, _ports(demo_store, ScriptedGenerator([empty])))
    assert outcome.answer is not None and outcome.answer.result is not None
    assert not outcome.answer.result.rows
    points = {check.kind: check.point for check in outcome.answer.checks}
    assert points["empty_result"] == points["missing"] == NOTHING_QUALIFIES
    assert outcome.status == "verified"


def test_an_empty_answer_no_other_reading_decides_is_not_verified() -> None:
    alone = empty_result_check(QueryResult(["ts_code"], ["String"], [], 0.0), "en")
    assert alone is not None and alone.verdict == "undecidable"
    assert not judge([alone]).passed
    assert empty_result_check(QueryResult(["ts_code"], ["String"], [("600000.SH",)], 0.0), "en") is None
