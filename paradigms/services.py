"""Writes to the paradigm library: insert (with LFU eviction at capacity), uses, misses, pinning,
and the cold-start load.

Concurrency: every insert runs in one transaction that first locks the single LibraryState row
(SELECT … FOR UPDATE). Two workers inserting at capacity therefore count, evict and insert one after
the other: the library never exceeds its capacity and no paradigm is evicted twice. A use and an
eviction both lock the paradigm's row first, so a use either lands before the eviction (and is
deleted with it) or finds the paradigm gone.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.qst import Node, QstError, validate_qst
from backend.domain.market.errors import MarketError, QueryRejected
from backend.domain.market.guard import check_read_only
from backend.domain.market.store import MarketStore
from backend.domain.paradigms.eviction import NothingToEvict, choose_victims
from backend.domain.paradigms.exchange import ExchangedParadigm
from backend.domain.paradigms.seeds import SeedEntry
from backend.domain.paradigms.templates import SqlTemplate, TemplateError, extract_template
from backend.domain.paradigms.trees import qst_signature, shape_signature, to_tree
from backend.domain.pipeline.validate.checklist import default_vocabulary, extract_constraints
from backend.domain.pipeline.validate.reverse import reuse
from backend.domain.pipeline.validate.reverse.description import validate_reverse_tree
from backend.domain.pipeline.validate.reverse.reading import read
from backend.domain.pipeline.validate.reverse.runner import run_checks, write_checks
from backend.domain.pipeline.validate.reverse.subject import Subject
from paradigms import selectors
from paradigms.models import Kind, LibraryDay, LibraryState, Origin, Paradigm, ParadigmUse, ValidationStatus


def library_today() -> date:
    """The day uses are counted on: the calendar day in the project's time zone (the market's)."""
    return timezone.localdate()


@dataclass(frozen=True)
class InsertOutcome:
    paradigm: Paradigm
    created: bool  # False: a paradigm with the same QST was already there and is returned
    evicted_ids: list[int] = field(default_factory=list)


def _lock_library() -> LibraryState:
    LibraryState.objects.get_or_create(pk=1)
    return LibraryState.objects.select_for_update().get(pk=1)


def _count_day(day: date, **increments: int) -> None:
    LibraryDay.objects.get_or_create(day=day)
    LibraryDay.objects.filter(day=day).update(**{name: F(name) + count for name, count in increments.items()})


def _template_fields(template: SqlTemplate) -> dict[str, object]:
    return {
        "sql_template": template.text,
        "slots": [slot.to_json() for slot in template.slots],
        "fixed_dates": list(template.fixed_dates),
        "resolved_on": template.resolved_on,
    }


def insert_paradigm(
    *,
    question: str,
    qst: Node,
    sql: str,
    origin: Origin,
    validation_status: ValidationStatus,
    resolved_on: date | None,
    pinned: bool = False,
    capacity: int | None = None,
    kind: Kind = Kind.QUESTION,
    check_spec: Mapping[str, object] | None = None,
) -> InsertOutcome:
    """Store a (question, QST, SQL) triple — or, with `kind` reverse, a (reverse question, check tree,
    SQL) triple — evicting by LFU when the library is full. Both kinds share the capacity and the
    eviction order. `check_spec`: an LLM reverse check's criterion, point and set size.

    Raises QstError (QST or tree not in the format), QueryRejected (SQL refused by the guard),
    TemplateError (SQL not templatable) and NothingToEvict (full, and every paradigm that could go is
    pinned).
    """
    limit = settings.PARADIGM_CAPACITY if capacity is None else capacity
    if limit < 1:
        raise ValueError("the library capacity must be at least 1")
    if kind == Kind.REVERSE:
        validate_reverse_tree(qst)
    else:
        validate_qst(qst)
    check_read_only(sql)
    template = extract_template(qst, sql, resolved_on=resolved_on)
    signature = qst_signature(qst)
    today = library_today()
    with transaction.atomic():
        state = _lock_library()
        existing = Paradigm.objects.filter(qst_signature=signature).first()
        if existing is not None:
            return InsertOutcome(existing, created=False)
        overflow = Paradigm.objects.count() + 1 - limit
        victims = choose_victims(selectors.eviction_candidates(today), overflow) if overflow > 0 else []
        # Lock the victims before the cascade collects their uses: a use being counted right now
        # commits first and is deleted with them, instead of pointing at a deleted paradigm.
        list(Paradigm.objects.select_for_update().filter(pk__in=victims).values_list("pk", flat=True))
        Paradigm.objects.filter(pk__in=victims).delete()
        paradigm = Paradigm.objects.create(
            question=question,
            kind=kind,
            qst=qst,
            origin=origin,
            validation_status=validation_status,
            pinned=pinned,
            node_count=to_tree(qst).size,
            shape_signature=shape_signature(qst),
            qst_signature=signature,
            check_spec=dict(check_spec or {}),
            **_template_fields(template),
        )
        _count_day(today, insertions=1, evictions=len(victims))
        state.revision = uuid.uuid4()
        state.save(update_fields=["revision"])
    return InsertOutcome(paradigm, created=True, evicted_ids=victims)


def record_use(paradigm_id: int, *, day: date | None = None) -> bool:
    """Count one use (a hit) of the paradigm today, a reverse hit for a reverse paradigm; False when
    it no longer exists."""
    counted_day = day or library_today()
    with transaction.atomic():
        kind = (
            Paradigm.objects.select_for_update().filter(pk=paradigm_id).values_list("kind", flat=True).first()
        )
        if kind is None:
            return False
        use, _created = ParadigmUse.objects.get_or_create(paradigm_id=paradigm_id, day=counted_day)
        ParadigmUse.objects.filter(pk=use.pk).update(uses=F("uses") + 1)
        _count_day(counted_day, **{"reverse_hits" if kind == Kind.REVERSE else "hits": 1})
    return True


def record_lookups(paradigm_ids: list[int], *, misses: int, kind: Kind, day: date | None = None) -> set[int]:
    """Count the lookups of several checks at once (one transaction, a few queries): a use of each
    paradigm among `paradigm_ids` still stored (a hit; the ids returned) and `misses` misses, plus one
    miss per paradigm gone meanwhile. The paradigm rows are locked first, as in record_use, so two
    workers counting uses of one paradigm on one day take turns."""
    counted_day = day or library_today()
    hits, misses_name = ("reverse_hits", "reverse_misses") if kind == Kind.REVERSE else ("hits", "misses")
    with transaction.atomic():
        present = set(
            Paradigm.objects.select_for_update().filter(pk__in=paradigm_ids).values_list("pk", flat=True)
        )
        uses = Counter(paradigm_id for paradigm_id in paradigm_ids if paradigm_id in present)
        counted = ParadigmUse.objects.filter(paradigm_id__in=uses, day=counted_day)
        existing = set(counted.values_list("paradigm_id", flat=True))
        for times in set(uses.values()):
            ids = [paradigm_id for paradigm_id in existing if uses[paradigm_id] == times]
            counted.filter(paradigm_id__in=ids).update(uses=F("uses") + times)
        ParadigmUse.objects.bulk_create(
            ParadigmUse(paradigm_id=paradigm_id, day=counted_day, uses=times)
            for paradigm_id, times in uses.items()
            if paradigm_id not in existing
        )
        used = sum(uses.values())
        _count_day(counted_day, **{hits: used, misses_name: misses + len(paradigm_ids) - used})
    return present


def record_miss(*, kind: Kind = Kind.QUESTION, day: date | None = None) -> None:
    """Count one lookup (of a question, or of a reverse check) that found no paradigm it could use."""
    with transaction.atomic():
        _count_day(day or library_today(), **{"reverse_misses" if kind == Kind.REVERSE else "misses": 1})


def set_pinned(paradigm_id: int, pinned: bool) -> Paradigm:
    paradigm = Paradigm.objects.get(pk=paradigm_id)
    paradigm.pinned = pinned
    paradigm.save(update_fields=["pinned"])
    return paradigm


def _touch_revision() -> None:
    state = _lock_library()
    state.revision = uuid.uuid4()
    state.save(update_fields=["revision"])


def delete_paradigm(paradigm_id: int) -> bool:
    """Remove a paradigm (curation); False when it was already gone. Its uses go with it; the
    library's daily counters stay."""
    with transaction.atomic():
        _touch_revision()
        deleted, _by_model = Paradigm.objects.filter(pk=paradigm_id).delete()
    return deleted > 0


def replace_sql(paradigm_id: int, sql: str, *, resolved_on: date | None) -> Paradigm:
    """Store new SQL for a paradigm's unchanged QST (an administrator's edit, checked by the caller
    on the source question): guard, template, origin `admin`, status `verified`.
    Raises QueryRejected, TemplateError, Paradigm.DoesNotExist."""
    check_read_only(sql)
    with transaction.atomic():
        paradigm = Paradigm.objects.select_for_update().get(pk=paradigm_id)
        template = extract_template(paradigm.qst, sql, resolved_on=resolved_on)
        for name, value in _template_fields(template).items():
            setattr(paradigm, name, value)
        paradigm.origin = Origin.ADMIN
        paradigm.validation_status = ValidationStatus.VERIFIED
        paradigm.save()
    return paradigm


@dataclass
class SeedLoadReport:
    created: int = 0
    refreshed: int = 0  # SQL re-resolved on newer market data
    unchanged: int = 0
    evicted: int = 0
    failed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "created": self.created,
            "refreshed": self.refreshed,
            "unchanged": self.unchanged,
            "evicted": self.evicted,
            "failed": self.failed,
        }


def _load_reverse_seed(
    entry: SeedEntry, sql: str, context: LanguageContext, store: MarketStore, report: SeedLoadReport
) -> None:
    """The reverse checks the validation writes for the answer of the entry's question (the engine's
    SQL on the day's data): each described check that passes is stored as a reverse paradigm. A
    check already stored is left alone; an answer whose codes moved is another tree, stored beside."""
    try:
        answer = store.query(sql)
    except MarketError as error:
        report.failed.append(f"{entry.source}: the answer could not be read ({error})")
        return
    vocabulary = default_vocabulary()
    reading = read(entry.question, extract_constraints(entry.question, vocabulary), vocabulary)
    subject = Subject(reading, answer, store.database)
    checks = write_checks(subject)
    results = run_checks(checks, store, answer, workers=1)
    passed = [
        (described.check, described.tree)
        for described, result in zip(reuse.describe_all(checks, subject), results, strict=True)
        if described.tree is not None and result.verdict == "pass"
    ]
    if not passed:
        report.failed.append(f"{entry.source}: no reverse check written for it passes")
    for check, tree in passed:
        if Paradigm.objects.filter(qst_signature=qst_signature(tree)).exists():
            report.unchanged += 1
            continue
        outcome = insert_paradigm(
            question=check.text,
            qst=tree,
            sql=check.sql,
            origin=Origin.SEED,
            validation_status=ValidationStatus.UNVALIDATED,
            resolved_on=context.latest_trade_date,
            pinned=entry.pinned,
            kind=Kind.REVERSE,
        )
        report.created += outcome.created
        report.evicted += len(outcome.evicted_ids)


def load_seed_paradigms(
    entries: list[SeedEntry], context: LanguageContext, store: MarketStore | None = None
) -> SeedLoadReport:
    """Load cold-start entries through the built-in engine. Idempotent: an entry whose QST is
    already stored is left alone, except that a seed paradigm's SQL is refreshed when the engine now
    writes another one for it (newer market data moved the dates it resolves to). Entries of kind
    `reverse` store their answer's reverse checks instead, and need the market `store`."""
    report = SeedLoadReport()
    translator = BuiltinTranslator()
    for entry in entries:
        translation = translator.translate(entry.question, context)
        if translation.status != "ok" or translation.sql is None or translation.qst is None:
            report.failed.append(f"{entry.source}: {translation.message or translation.status}")
            continue
        if entry.kind == "reverse":
            if store is None:
                report.failed.append(f"{entry.source}: reverse checks need the market store")
            else:
                try:
                    _load_reverse_seed(entry, translation.sql, context, store, report)
                except NothingToEvict as error:
                    report.failed.append(f"{entry.source}: {error}")
            continue
        existing = Paradigm.objects.filter(qst_signature=qst_signature(translation.qst)).first()
        if existing is None:
            try:
                outcome = insert_paradigm(
                    question=entry.question,
                    qst=translation.qst,
                    sql=translation.sql,
                    origin=Origin.SEED,
                    validation_status=ValidationStatus.UNVALIDATED,
                    resolved_on=context.latest_trade_date,
                    pinned=entry.pinned,
                )
            except NothingToEvict as error:
                report.failed.append(f"{entry.source}: {error}")
                continue
            report.created += outcome.created
            report.evicted += len(outcome.evicted_ids)
            continue
        fresh = _template_fields(
            extract_template(translation.qst, translation.sql, resolved_on=context.latest_trade_date)
        )
        stored = {name: getattr(existing, name) for name in fresh}
        if existing.origin != Origin.SEED or stored == fresh:
            report.unchanged += 1
            continue
        Paradigm.objects.filter(pk=existing.pk).update(**fresh)
        report.refreshed += 1
    return report


@dataclass
class ImportReport:
    created: int = 0
    existing: int = 0  # the same QST was already stored: left as it is
    evicted: int = 0
    failed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "created": self.created,
            "existing": self.existing,
            "evicted": self.evicted,
            "failed": self.failed,
        }


def import_paradigms(entries: list[ExchangedParadigm]) -> ImportReport:
    """Store exported paradigms (origin `admin`), each through insert_paradigm's checks: QST format,
    the guard, a template of the SQL; LFU eviction at capacity. A failing entry is reported, the
    others are stored."""
    report = ImportReport()
    statuses = {status.value: status for status in ValidationStatus}
    for number, entry in enumerate(entries, start=1):
        try:
            outcome = insert_paradigm(
                question=entry.question,
                qst=entry.qst,
                sql=entry.sql,
                origin=Origin.ADMIN,
                validation_status=statuses.get(entry.validation_status, ValidationStatus.UNVALIDATED),
                resolved_on=entry.resolved_on,
                pinned=entry.pinned,
                kind=Kind(entry.kind),
                check_spec=entry.check,
            )
        except (QstError, QueryRejected, TemplateError, NothingToEvict) as error:
            report.failed.append(f"entry {number} ({entry.question[:40]}): {error}")
            continue
        report.created += outcome.created
        report.existing += not outcome.created
        report.evicted += len(outcome.evicted_ids)
    return report


def clear_library() -> int:
    """Remove every paradigm (the experiments start from an empty library inside a transaction they
    roll back); the number removed."""
    with transaction.atomic():
        _touch_revision()
        deleted, _by_model = Paradigm.objects.all().delete()
    return deleted
