"""Reverse checks through the paradigm library (issue 10 items 5 and 1 of its reopening): rule-written
checks are never looked up on the answer's path; after the final status one record counts, for each,
a use of the paradigm holding it (its template fills to the rule's SQL) or a miss, and learns the
answer's passed checks no paradigm holds. The answer is the one written without a library. Reverse
paradigms never match questions and are evicted by the same LFU rules."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from django.core.management import call_command

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.qst import Node
from backend.domain.market.store import MarketStore
from backend.domain.paradigms.templates import extract_template
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.ports import (
    NoParadigmLibrary,
    ParadigmHit,
    ParadigmLibrary,
    QstTree,
    RecordedCheck,
    ReverseRun,
)
from backend.domain.pipeline.run import PipelineOutcome, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.reverse import reuse
from backend.domain.pipeline.validate.reverse.reading import read
from backend.domain.pipeline.validate.reverse.runner import run_checks, write_checks
from backend.domain.pipeline.validate.reverse.subject import Subject
from paradigms import selectors, services
from paradigms.library import DatabaseParadigmLibrary
from paradigms.models import Kind, Origin, Paradigm, ValidationStatus
from tests.paradigms.test_library import ranking

pytestmark = pytest.mark.django_db

QUESTION = "市盈率低于15的银行股"
VARIANT = "市盈率低于20的银行股"  # one literal changed: the same checks, another threshold


def _ask(
    question: str, store: MarketStore, context: LanguageContext, library: ParadigmLibrary
) -> PipelineOutcome:
    ports = Ports(store, BuiltinGenerator(context), default_vocabulary(), store.database, library=library)
    return run_pipeline(question, ports)


def _reverse_checks(outcome: PipelineOutcome) -> list[CheckResult]:
    assert outcome.answer is not None
    return [check for check in outcome.answer.checks if check.stage == "reverse"]


def _events(outcome: PipelineOutcome, query: str) -> list[tuple[object, object]]:
    return [
        (event["outcome"], event["distance"])
        for event in outcome.trace.to_list()
        if event["type"] == "paradigm" and event["query"] == query
    ]


def _seq(outcome: PipelineOutcome, predicate: Callable[[dict[str, Any]], bool]) -> list[Any]:
    return [event["seq"] for event in outcome.trace.to_list() if predicate(event)]


def test_rule_checks_are_recorded_after_the_final_status_and_the_answer_is_unchanged(
    demo_store: MarketStore, paradigm_context: LanguageContext, capsys: pytest.CaptureFixture[str]
) -> None:
    library = DatabaseParadigmLibrary(paradigm_context)
    first = _ask(QUESTION, demo_store, paradigm_context, library)
    assert first.status == "verified"
    checks = _reverse_checks(first)
    assert {check.kind for check in checks} >= {"filter_violation", "missing", "scope", "duplicates"}
    for check in checks:
        assert _events(first, check.check_id) == [("miss", None), ("learned", None)]
    learned = Paradigm.objects.filter(kind=Kind.REVERSE)
    assert learned.count() == len(checks)
    assert {(p.origin, p.validation_status) for p in learned} == {(Origin.LEARNED, ValidationStatus.VERIFIED)}
    assert {p.question for p in learned} == {check.text for check in checks}

    variant = _ask(VARIANT, demo_store, paradigm_context, library)
    alone = _ask(VARIANT, demo_store, paradigm_context, NoParadigmLibrary())
    # The answer is the one written without the library: status, rows, every check.
    assert variant.status == alone.status == "verified"
    assert variant.answer is not None and alone.answer is not None
    assert variant.answer.result is not None and alone.answer.result is not None
    assert variant.answer.result.rows == alone.answer.result.rows
    reused, written = _reverse_checks(variant), _reverse_checks(alone)
    assert [(c.check_id, c.sql, c.verdict, c.reason) for c in reused] == [
        (c.check_id, c.sql, c.verdict, c.reason) for c in written
    ]
    # Each check is recorded as a use of the paradigm holding it (a literal moved: distance 0.25)…
    distances = []
    for check in reused:
        [(outcome, distance)] = _events(variant, check.check_id)
        assert outcome == "hit", check.check_id
        distances.append(distance)
    assert 0.25 in distances
    assert Paradigm.objects.filter(kind=Kind.REVERSE).count() == len(checks)  # nothing new to learn
    today = services.library_today()
    assert sum(selectors.uses_in_window(p.pk, today) for p in learned) == len(checks)
    # …after the checks were decided and before the run's final event, in one library step.
    is_reverse_event = lambda e: e["type"] == "paradigm" and e["query"] != "question"  # noqa: E731
    verdicts = _seq(variant, lambda e: e["type"] == "check_verdict")
    recorded = _seq(variant, is_reverse_event)
    [finished] = _seq(variant, lambda e: e["type"] == "run_finished")
    assert max(verdicts) < min(recorded) and max(recorded) < finished
    steps = [(e["step"], e["summary"]) for e in variant.trace.to_list() if e["type"] == "step_finished"]
    assert steps[-1] == ("paradigm", f"reverse checks: {len(checks)} hits, 0 misses, 0 learned")

    call_command("paradigms", "stats", "--json")
    stats = json.loads(capsys.readouterr().out)
    assert (stats["reverse_hits"], stats["reverse_misses"]) == (len(reused), len(checks))
    assert stats["reverse_size"] == len(checks) and stats["reverse_hit_rate"] == 0.5
    assert (stats["hits"], stats["misses"]) == (1, 1)  # the question's own lookups, apart


def test_reverse_paradigms_and_questions_never_match_each_other(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    assert (
        _ask(QUESTION, demo_store, paradigm_context, DatabaseParadigmLibrary(paradigm_context)).status
        == "verified"
    )
    questions = set(Paradigm.objects.filter(kind=Kind.QUESTION).values_list("pk", flat=True))
    for paradigm in Paradigm.objects.all():
        as_question = {m.paradigm_id for m in selectors.nearest_paradigms(paradigm.qst, tau=1000, top_k=None)}
        as_reverse = {
            m.paradigm_id
            for m in selectors.nearest_paradigms(paradigm.qst, kind=Kind.REVERSE, tau=1000, top_k=None)
        }
        assert as_question == questions and not as_reverse & questions


def _duplicates_tree(codes: list[str]) -> tuple[Node, str]:
    """The duplicates check's tree for an answer returning `codes`, and the SQL its rule writes."""
    tree: Node = {
        "label": "reverse:duplicates",
        "children": [
            {"label": "check:0", "children": []},
            {"label": "database:market", "children": []},
            {"label": "answer:codes", "children": [{"label": "value:codes", "value": codes, "children": []}]},
        ],
    }
    listed = ", ".join(f"'{code}'" for code in codes)
    return tree, f"SELECT ts_code FROM market.stock_basic WHERE ts_code IN ({listed}) ORDER BY ts_code"


def _insert(codes: list[str], *, kind: Kind = Kind.REVERSE, pinned: bool = False) -> services.InsertOutcome:
    if kind == Kind.REVERSE:
        tree, sql = _duplicates_tree(codes)
    else:
        tree, sql = ranking("close", 10)
    return services.insert_paradigm(
        question=" ".join(codes),
        qst=tree,
        sql=sql,
        origin=Origin.LEARNED,
        validation_status=ValidationStatus.VERIFIED,
        resolved_on=None,
        pinned=pinned,
        capacity=3,
        kind=kind,
    )


def test_reverse_paradigms_are_evicted_by_the_same_lfu_rules() -> None:
    question = _insert(["q"], kind=Kind.QUESTION).paradigm
    used = _insert(["000001.SZ"]).paradigm
    idle = _insert(["000002.SZ"]).paradigm
    for paradigm in (question, used):
        assert services.record_use(paradigm.pk)
    # Full: the least used goes, whatever its kind; a reverse use counts a reverse hit.
    assert _insert(["000003.SZ"]).evicted_ids == [idle.pk]
    assert selectors.library_stats()["reverse_hits"] == 1 and selectors.library_stats()["hits"] == 1
    # Pinned ones never go: the least used of the others does.
    Paradigm.objects.filter(pk=used.pk).update(pinned=True)
    newest = Paradigm.objects.get(question="000003.SZ")
    assert _insert(["000004.SZ"]).evicted_ids == [newest.pk]
    assert Paradigm.objects.filter(pk=used.pk).exists()


def test_a_stored_reverse_template_fills_a_new_answer_s_codes(paradigm_context: LanguageContext) -> None:
    _insert(["000001.SZ", "600036.SH"])
    tree, sql = _duplicates_tree(["000002.SZ", "601398.SH", "688981.SH"])
    # within τ but not fillable: another database, another rule
    other = {**tree, "children": [tree["children"][0], {"label": "database:other"}, tree["children"][2]]}
    far = {**tree, "label": "reverse:scope"}
    hit, miss, none = DatabaseParadigmLibrary(paradigm_context).lookup_reverse([tree, other, far])
    assert hit is not None and hit.adapted and hit.distance == 0.25 and hit.sql == sql
    assert miss is None and none is None
    stats = selectors.library_stats()  # a lookup counts nothing: the record after the answer does
    assert (stats["reverse_hits"], stats["reverse_misses"]) == (0, 0)


def test_the_lookups_of_an_answer_are_counted_together() -> None:
    first, second, gone = (_insert([code]).paradigm for code in ("000001.SZ", "000002.SZ", "000003.SZ"))
    assert services.record_use(first.pk)  # today's row exists for one of them
    assert services.delete_paradigm(gone.pk)
    found = services.record_lookups([first.pk, second.pk, second.pk, gone.pk], misses=2, kind=Kind.REVERSE)
    assert found == {first.pk, second.pk}
    today = services.library_today()
    assert (selectors.uses_in_window(first.pk, today), selectors.uses_in_window(second.pk, today)) == (2, 2)
    stats = selectors.library_stats()
    assert (stats["reverse_hits"], stats["reverse_misses"], stats["hits"]) == (4, 3, 0)


def test_a_code_list_a_single_value_also_reads_binds_nothing() -> None:
    tree, sql = _duplicates_tree(["600519.SH"])
    scope = {"label": "scope:ts_code", "children": [{"label": "value:entity:ts_code", "value": "600519.SH"}]}
    both = {**tree, "children": [*tree["children"], scope]}
    assert extract_template(both, sql, resolved_on=None).slots == ()
    [slot] = extract_template(tree, sql, resolved_on=None).slots
    assert (slot.kind, slot.original) == ("string_list", "('600519.SH')")


@dataclass
class SpyLibrary(NoParadigmLibrary):
    """Records what the pipeline asks of the library; every rule-written check is held by paradigm 7,
    except those whose SQL is in `unheld`, which are learned as 8."""

    unheld: set[str] = field(default_factory=set)
    looked_up: list[int] = field(default_factory=list)
    records: list[tuple[list[ReverseRun], str]] = field(default_factory=list)

    def lookup_reverse(self, trees: Sequence[QstTree]) -> list[ParadigmHit | None]:
        self.looked_up.append(len(trees))
        return [None for _ in trees]

    def record_reverse(
        self, runs: Sequence[ReverseRun], *, used: Sequence[str], misses: int, status: str
    ) -> list[RecordedCheck]:
        self.records.append((list(runs), status))
        return [
            RecordedCheck(None, "8" if run.learn else None)
            if run.sql in self.unheld
            else RecordedCheck(("7", 0.0))
            for run in runs
        ]


def test_rule_written_checks_are_never_looked_up_only_recorded_once(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    library = SpyLibrary()
    outcome = _ask(QUESTION, demo_store, paradigm_context, library)
    alone = _ask(QUESTION, demo_store, paradigm_context, NoParadigmLibrary())
    checks = _reverse_checks(outcome)
    assert [(c.check_id, c.sql, c.verdict) for c in checks] == [
        (c.check_id, c.sql, c.verdict) for c in _reverse_checks(alone)
    ]
    assert library.looked_up == []  # no LLM checks here: the library is never asked on the way
    [(runs, status)] = library.records
    assert status == "verified"
    assert [(run.sql, run.matched, run.learn) for run in runs] == [(c.sql, True, True) for c in checks]
    for check in checks:
        assert _events(outcome, check.check_id) == [("hit", 0.0)]


def _subject(store: MarketStore, context: LanguageContext) -> Subject:
    vocabulary = default_vocabulary()
    translation = BuiltinTranslator().translate(QUESTION, context)
    assert translation.sql is not None
    reading = read(QUESTION, extract_constraints(QUESTION, vocabulary), vocabulary)
    return Subject(reading, store.query(translation.sql), store.database)


def test_only_passed_checks_of_the_answer_are_offered_for_learning(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    subject = _subject(demo_store, paradigm_context)
    described = reuse.describe_all(write_checks(subject)[:3], subject)
    results = run_checks([item.check for item in described], demo_store, subject.result, workers=1)
    assert len(results) == 3 and all(result.verdict == "pass" for result in results)
    undecided = replace(results[2], verdict="undecidable")
    checked = list(zip(described, [results[0], results[1], undecided], strict=True))
    library = SpyLibrary(unheld={described[0].check.sql, described[2].check.sql})
    events, summary = reuse.record(
        [
            reuse.AttemptChecks(0, False, checked, None),  # a rejected candidate: counted, never learned
            reuse.AttemptChecks(1, True, checked, None),  # the answer of a corrected run
        ],
        library,
        status="corrected",
    )
    [(runs, status)] = library.records
    assert status == "corrected"
    assert [run.learn for run in runs] == [False, False, False, True, True, False]
    ids = [result.check_id for result in results]
    assert [(e.outcome, e.paradigm_id, e.query, e.round) for e in events] == [
        ("miss", None, ids[0], 0),
        ("hit", "7", ids[1], 0),
        ("miss", None, ids[2], 0),
        ("miss", None, ids[0], 1),
        ("learned", "8", ids[0], 1),
        ("hit", "7", ids[1], 1),
        ("miss", None, ids[2], 1),
    ]
    assert summary == "reverse checks: 2 hits, 4 misses, 1 learned"


def test_curation_shows_the_kind_refuses_edits_and_moves_reverse_paradigms_whole() -> None:
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(User.objects.create_user("curator", is_staff=True))
    stored = _insert(["000001.SZ", "600036.SH"]).paradigm
    [listed] = client.get("/api/paradigms/").json()["results"]
    assert (listed["id"], listed["kind"]) == (stored.pk, "reverse")
    _tree, sql = _duplicates_tree(["000001.SZ", "600036.SH"])
    edit = client.patch(f"/api/paradigms/{stored.pk}/", {"sql": sql}, format="json")
    assert edit.status_code == 422 and "reverse check" in edit.json()["error"]["message"]

    exported = client.get("/api/paradigms/export/").content.decode()
    assert "kind: reverse" in exported
    assert client.delete(f"/api/paradigms/{stored.pk}/").status_code == 204
    report = client.post("/api/paradigms/import/", {"yaml": exported}, format="json").json()
    assert report["created"] == 1 and report["failed"] == []
    [imported] = Paradigm.objects.all()
    assert (imported.kind, imported.qst, imported.sql_template) == (
        Kind.REVERSE,
        stored.qst,
        stored.sql_template,
    )
