"""Reuse and evolution through the pipeline (issue 10 items 3 and 4): a question corrected once is
verified at round 0 the second time — and so is a literal-only variant of it — without asking the
generator; misses learn only verified or corrected runs; uses and misses are counted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.translation import GenerationRequest, LlmCall, Translation
from backend.domain.market.store import MarketStore
from backend.domain.paradigms.adaptation import qst_differences
from backend.domain.pipeline.run import PipelineOutcome, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from paradigms import selectors
from paradigms.library import DatabaseParadigmLibrary
from paradigms.models import Kind, Origin, Paradigm, ValidationStatus

pytestmark = pytest.mark.django_db

QUESTION = "总市值超过1000亿的股票"
VARIANT = "总市值超过2000亿的股票"  # one literal changed


@dataclass
class MistakenGenerator:
    """The built-in engine's SQL with the threshold halved on the first try (a plausible slip the
    filter-violation check catches); on guidance, the engine's own SQL."""

    context: LanguageContext
    name: str = "mistaken"
    requests: list[GenerationRequest] = field(default_factory=list)

    def generate(self, request: GenerationRequest) -> Translation:
        self.requests.append(request)
        right = BuiltinTranslator().translate(request.question, self.context)
        assert right.sql is not None and right.status == "ok"
        if request.guidance is None:
            right.sql = right.sql.replace("10000000", "5000000").replace("20000000", "10000000")
        return right


def _ask(question: str, store: MarketStore, generator: MistakenGenerator, library: object) -> PipelineOutcome:
    ports = Ports(store, generator, default_vocabulary(), store.database, library=library)  # type: ignore[arg-type]
    return run_pipeline(question, ports)


def _paradigm_events(outcome: PipelineOutcome) -> list[tuple[object, ...]]:
    """The library's events on the question (its reverse checks have their own: test_reverse.py)."""
    return [
        (event["outcome"], event["paradigm_id"])
        for event in outcome.trace.to_list()
        if event["type"] == "paradigm" and event["query"] == "question"
    ]


def test_corrected_once_then_verified_at_round_zero_and_so_is_a_literal_variant(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    library = DatabaseParadigmLibrary(paradigm_context)
    generator = MistakenGenerator(paradigm_context)

    first = _ask(QUESTION, demo_store, generator, library)
    assert (first.status, first.correction_round) == ("corrected", 1)
    assert "5000000" in (first.initial_sql or "")
    [learned] = Paradigm.objects.filter(kind=Kind.QUESTION)
    assert (learned.origin, learned.validation_status) == (Origin.LEARNED, ValidationStatus.CORRECTED)
    assert _paradigm_events(first) == [("miss", None), ("learned", str(learned.pk))]
    assert first.answer is not None
    corrected_sql = first.answer.sql

    calls = len(generator.requests)
    again = _ask(QUESTION, demo_store, generator, library)
    assert (again.status, again.correction_round) == ("verified", None)
    assert again.initial_sql == corrected_sql  # the corrected SQL straight away
    assert len(generator.requests) == calls  # the generator was not asked
    assert _paradigm_events(again) == [("hit", str(learned.pk)), ("adapted", str(learned.pk))]

    variant = _ask(VARIANT, demo_store, generator, library)
    assert (variant.status, variant.correction_round) == ("verified", None)
    assert len(generator.requests) == calls
    assert variant.answer is not None and "20000000" in variant.answer.sql
    hit = next(
        e
        for e in variant.trace.to_list()
        if e["type"] == "paradigm" and e["query"] == "question" and e["outcome"] == "hit"
    )
    assert hit["paradigm_id"] == str(learned.pk) and hit["distance"] == 0.25
    # the variant's own answer is learned too (its QST is new); the library counted two uses
    assert Paradigm.objects.filter(kind=Kind.QUESTION).count() == 2
    stats = selectors.library_stats()
    assert (stats["hits"], stats["misses"]) == (2, 1)  # the question's lookups; its reverse checks apart
    assert stats["insertions"] == Paradigm.objects.count()


def test_without_the_library_the_same_question_is_corrected_every_time(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    from backend.domain.pipeline.ports import NoParadigmLibrary

    generator = MistakenGenerator(paradigm_context)
    for _ in range(2):
        outcome = _ask(QUESTION, demo_store, generator, NoParadigmLibrary())
        assert (outcome.status, outcome.correction_round) == ("corrected", 1)
    assert len(generator.requests) == 4


@dataclass
class ScriptedAdapter:
    """The adapter role's place: answers with a given SQL and records what it was told."""

    sql: str
    told: list[Sequence[str]] = field(default_factory=list)

    def __call__(
        self,
        question: str,
        paradigm_question: str,
        paradigm_sql: str,
        differences: Sequence[str],
        calls: list[LlmCall],
    ) -> str:
        self.told.append(differences)
        return self.sql


def test_a_structural_change_goes_to_the_adapter_only_when_one_is_configured(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    translator = BuiltinTranslator()
    source = translator.translate("市盈率最低的10只股票", paradigm_context)
    other = translator.translate("市净率最低的10只股票", paradigm_context)  # another attribute
    assert source.qst is not None and source.sql is not None and other.qst is not None and other.sql
    plain = DatabaseParadigmLibrary(paradigm_context)
    assert plain.learn("市盈率最低的10只股票", source.qst, source.sql, status="verified")
    assert plain.learn("q", other.qst, other.sql, status="unverified") is None  # never learned
    hit = plain.lookup("市净率最低的10只股票", other.qst)
    assert hit is not None and not hit.adapted and hit.sql == source.sql and hit.distance == 1.0

    adapter = ScriptedAdapter(other.sql)
    with_llm = DatabaseParadigmLibrary(paradigm_context, adapter=adapter)
    hit = with_llm.lookup("市净率最低的10只股票", other.qst)
    assert hit is not None and (hit.adapted, hit.how, hit.sql) == (True, "llm", other.sql)
    assert adapter.told == [qst_differences(source.qst, other.qst)]
    assert any("pb" in line for line in adapter.told[0]) and any("pe" in line for line in adapter.told[0])

    refused = DatabaseParadigmLibrary(paradigm_context, adapter=ScriptedAdapter("DROP TABLE market.daily"))
    hit = refused.lookup("市净率最低的10只股票", other.qst)
    assert hit is not None and not hit.adapted  # the guard refused the adapter's SQL


def test_a_question_far_from_every_paradigm_is_a_miss(paradigm_context: LanguageContext) -> None:
    library = DatabaseParadigmLibrary(paradigm_context)
    qst = library.structure("市盈率最低的10只股票")
    assert qst is not None and library.lookup("市盈率最低的10只股票", qst) is None
    assert selectors.library_stats()["misses"] == 1
