"""Cold-start files: at least 60 paradigms, each translated by the engine, guard-checked, run on the
demo market and templated; loading is idempotent and refreshes dates that moved; the reverse seeds
store reverse paradigms of every rule, which a similar question's reverse checks reuse."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.market.guard import check_read_only
from backend.domain.market.store import MarketStore
from backend.domain.paradigms.seeds import SeedEntry, SeedFileError, read_seed_directory, read_seed_file
from backend.domain.paradigms.templates import extract_template, fill_template
from backend.domain.paradigms.trees import qst_signature
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.run import Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.reverse.description import RULE_INPUTS
from paradigms import services
from paradigms.library import DatabaseParadigmLibrary
from paradigms.models import Kind, Origin, Paradigm, ValidationStatus

SEED_DIR = Path(__file__).resolve().parents[2] / "paradigms" / "seed"


@pytest.fixture(scope="module")
def seed_entries() -> list[SeedEntry]:
    return read_seed_directory(SEED_DIR)


def test_the_seed_covers_frequent_screens_and_reverse_checks(seed_entries: list[SeedEntry]) -> None:
    assert len(seed_entries) >= 60
    assert sum(entry.kind == "reverse_check" for entry in seed_entries) >= 15
    topics = " ".join(entry.topic for entry in seed_entries)
    for topic in (
        "close price",
        "gain ranking",
        "PE",
        "volume ranking",
        "MA",
        "market value",
        "industry",
        "report",
    ):
        assert topic in topics, topic
    for check in ("does a row satisfy", "count per group", "recompute an aggregate", "top-k boundary"):
        assert check in topics, check


def test_every_seed_paradigm_translates_passes_the_guard_and_runs(
    seed_entries: list[SeedEntry], paradigm_context: LanguageContext, demo_store: MarketStore
) -> None:
    translator = BuiltinTranslator()
    signatures = set()
    for entry in seed_entries:
        translation = translator.translate(entry.question, paradigm_context)
        assert translation.status == "ok", f"{entry.source}: {translation.message}"
        assert translation.sql is not None and translation.qst is not None
        check_read_only(translation.sql)
        demo_store.query(translation.sql)
        market_day = paradigm_context.latest_trade_date
        template = extract_template(translation.qst, translation.sql, resolved_on=market_day)
        assert fill_template(template, translation.qst, market_day=market_day) == translation.sql
        signatures.add(qst_signature(translation.qst))
    assert len(signatures) >= 60, "the seed must hold at least 60 distinct paradigms"


@pytest.mark.django_db
def test_loading_is_idempotent_and_refreshes_moved_dates(
    seed_entries: list[SeedEntry], paradigm_context: LanguageContext, demo_store: MarketStore
) -> None:
    entries = seed_entries[:12]
    first = services.load_seed_paradigms(entries, paradigm_context)
    assert first.failed == [] and first.created == len(entries) and first.evicted == 0
    stored = Paradigm.objects.count()
    assert stored == len(entries)
    assert set(Paradigm.objects.values_list("origin", "validation_status")) == {
        (Origin.SEED, ValidationStatus.UNVALIDATED)
    }

    again = services.load_seed_paradigms(entries, paradigm_context)
    assert (again.created, again.refreshed, again.unchanged) == (0, 0, len(entries))

    # A month earlier, "today" and every window resolve to other dates: the SQL is re-resolved.
    earlier = LanguageContext.from_store(demo_store, today=date(2025, 10, 31))
    moved = services.load_seed_paradigms(entries, earlier)
    assert (moved.created, moved.refreshed, moved.unchanged) == (0, len(entries), 0)
    assert Paradigm.objects.count() == stored
    assert set(Paradigm.objects.values_list("resolved_on", flat=True)) == {earlier.latest_trade_date}


def test_malformed_seed_files_are_refused(tmp_path: Path) -> None:
    cases = {
        "not_a_list.yaml": "paradigms: 3\n",
        "unknown_field.yaml": "paradigms:\n  - {question: q, kind: screen, sql: SELECT 1}\n",
        "bad_kind.yaml": "paradigms:\n  - {question: q, kind: query}\n",
        "empty_question.yaml": "paradigms:\n  - {question: '  ', kind: screen}\n",
        "bad_yaml.yaml": "paradigms: [\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(SeedFileError, match=name):
            read_seed_file(path)
    with pytest.raises(SeedFileError, match="not a directory"):
        read_seed_directory(tmp_path / "missing")


@pytest.mark.django_db
def test_reverse_seeds_store_every_rule_s_checks_and_similar_questions_reuse_them(
    seed_entries: list[SeedEntry], paradigm_context: LanguageContext, demo_store: MarketStore
) -> None:
    entries = [entry for entry in seed_entries if entry.kind == "reverse"]
    assert len(entries) >= 15
    assert "market store" in services.load_seed_paradigms(entries[:1], paradigm_context).failed[0]
    report = services.load_seed_paradigms(entries, paradigm_context, demo_store)
    assert report.failed == [] and report.evicted == 0
    stored = Paradigm.objects.filter(kind=Kind.REVERSE)
    assert stored.count() == report.created and not Paradigm.objects.filter(kind=Kind.QUESTION).exists()
    assert {paradigm.qst["label"].removeprefix("reverse:") for paradigm in stored} == set(RULE_INPUTS)
    assert set(stored.values_list("origin", "validation_status")) == {
        (Origin.SEED, ValidationStatus.UNVALIDATED)
    }
    again = services.load_seed_paradigms(entries, paradigm_context, demo_store)
    assert (again.created, again.unchanged) == (0, report.created + report.unchanged)

    # Cold start: the reverse checks of a question like a seed's are held by the seeds (a use each).
    ports = Ports(
        demo_store,
        BuiltinGenerator(paradigm_context),
        default_vocabulary(),
        demo_store.database,
        library=DatabaseParadigmLibrary(paradigm_context),
    )
    outcome = run_pipeline("市盈率低于12的银行股", ports)
    assert outcome.status == "verified" and outcome.answer is not None
    reverse = [check.check_id for check in outcome.answer.checks if check.stage == "reverse"]
    held = {
        event["query"]
        for event in outcome.trace.to_list()
        if event["type"] == "paradigm" and event["outcome"] == "hit"
    }
    assert reverse and set(reverse) <= held
