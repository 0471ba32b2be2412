"""Reads of the paradigm library: nearest paradigms, stored templates, statistics, eviction candidates.

Matching runs on an in-process `ParadigmIndex` that follows the database: every call reads the
library revision (one row) and, when another process changed the library, loads only the paradigms
added since and drops the deleted ones.
"""

from __future__ import annotations

import threading
import uuid
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Max, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from backend.domain.language.qst import Node
from backend.domain.paradigms.adaptation import source_sql
from backend.domain.paradigms.eviction import WINDOW_DAYS, EvictionCandidate, window_start
from backend.domain.paradigms.exchange import ExchangedParadigm
from backend.domain.paradigms.matching import Match, ParadigmIndex
from backend.domain.paradigms.templates import Slot, SqlTemplate
from backend.domain.paradigms.trees import canonical_qst, qst_signature
from paradigms.models import Kind, LibraryDay, LibraryState, Paradigm, ParadigmUse


def library_revision() -> uuid.UUID | None:
    return LibraryState.objects.filter(pk=1).values_list("revision", flat=True).first()


def paradigm_template(paradigm: Paradigm) -> SqlTemplate:
    """The stored SQL template, ready for `fill_template` with a new question's QST."""
    return SqlTemplate(
        text=paradigm.sql_template,
        slots=tuple(Slot.from_json(slot) for slot in paradigm.slots),
        source_qst=canonical_qst(paradigm.qst),
        fixed_dates=tuple(paradigm.fixed_dates),
        resolved_on=paradigm.resolved_on,
    )


def uses_in_window(paradigm_id: int, today: date, window_days: int = WINDOW_DAYS) -> int:
    total = ParadigmUse.objects.filter(
        paradigm_id=paradigm_id, day__gte=window_start(today, window_days), day__lte=today
    ).aggregate(total=Sum("uses"))["total"]
    return int(total or 0)


def eviction_candidates(today: date, window_days: int = WINDOW_DAYS) -> list[EvictionCandidate]:
    """Every paradigm with its uses in the window ending `today` (one aggregate query)."""
    in_window = Q(daily_uses__day__gte=window_start(today, window_days), daily_uses__day__lte=today)
    rows = Paradigm.objects.annotate(
        window_uses=Coalesce(Sum("daily_uses__uses", filter=in_window), 0)
    ).values_list("pk", "created_at", "window_uses", "pinned")
    return [
        EvictionCandidate(paradigm_id=pk, created_at=created_at, uses_in_window=uses, pinned=pinned)
        for pk, created_at, uses, pinned in rows
    ]


def library_stats() -> dict[str, Any]:
    totals = LibraryDay.objects.aggregate(
        hits=Coalesce(Sum("hits"), 0),
        misses=Coalesce(Sum("misses"), 0),
        insertions=Coalesce(Sum("insertions"), 0),
        evictions=Coalesce(Sum("evictions"), 0),
        reverse_hits=Coalesce(Sum("reverse_hits"), 0),
        reverse_misses=Coalesce(Sum("reverse_misses"), 0),
    )
    lookups = totals["hits"] + totals["misses"]
    reverse_lookups = totals["reverse_hits"] + totals["reverse_misses"]
    return {
        "size": Paradigm.objects.count(),
        "reverse_size": Paradigm.objects.filter(kind=Kind.REVERSE).count(),
        "pinned": Paradigm.objects.filter(pinned=True).count(),
        "capacity": settings.PARADIGM_CAPACITY,
        "tau": settings.PARADIGM_TAU,
        "top_k": settings.PARADIGM_TOP_K,
        **totals,
        "hit_rate": round(totals["hits"] / lookups, 4) if lookups else None,
        "reverse_hit_rate": round(totals["reverse_hits"] / reverse_lookups, 4) if reverse_lookups else None,
    }


class _SynchronisedIndex:
    """The process's copy of the library's QSTs and reverse-check trees, one index per kind (a kind
    is only matched against itself). Searches and resynchronisation share one lock, so a search
    never sees a half-updated index."""

    def __init__(self) -> None:
        self.indexes = {kind: ParadigmIndex() for kind in Kind}
        self.signatures: dict[int, tuple[str, str]] = {}  # id → (kind, qst_signature)
        self.revision: uuid.UUID | None = None
        self.lock = threading.Lock()

    def _synchronise(self) -> None:
        revision = library_revision()
        if revision is not None and revision == self.revision:
            return
        stored = {
            pk: (kind, signature)
            for pk, kind, signature in Paradigm.objects.values_list("pk", "kind", "qst_signature")
        }
        for paradigm_id, (kind, signature) in list(self.signatures.items()):
            if stored.get(paradigm_id) != (kind, signature):
                self.indexes[Kind(kind)].remove(paradigm_id)
                del self.signatures[paradigm_id]
        missing = [paradigm_id for paradigm_id in stored if paradigm_id not in self.signatures]
        for paradigm_id, kind, qst in Paradigm.objects.filter(pk__in=missing).values_list(
            "pk", "kind", "qst"
        ):
            self.indexes[Kind(kind)].add(paradigm_id, qst)
            self.signatures[paradigm_id] = stored[paradigm_id]
        self.revision = revision

    def nearest(self, qst: Node, *, kind: Kind, tau: float, top_k: int | None) -> list[Match]:
        with self.lock:
            self._synchronise()
            return self.indexes[kind].nearest(qst, tau=tau, top_k=top_k)


_index = _SynchronisedIndex()


def nearest_paradigms(
    qst: Node, *, kind: Kind = Kind.QUESTION, tau: float | None = None, top_k: int | None = None
) -> list[Match]:
    """Paradigms of `kind` within τ of the QST (or reverse-check tree), nearest first (ties by id), at
    most top_k; τ and top_k default to PARADIGM_TAU and PARADIGM_TOP_K."""
    return _index.nearest(
        qst,
        kind=kind,
        tau=settings.PARADIGM_TAU if tau is None else tau,
        top_k=settings.PARADIGM_TOP_K if top_k is None else top_k,
    )


def paradigms_by_id(ids: list[int]) -> dict[int, Paradigm]:
    """The stored paradigms among `ids` (one query; an id evicted meanwhile is simply absent)."""
    return Paradigm.objects.in_bulk(ids)


def with_use_figures(queryset: QuerySet[Paradigm], today: date) -> QuerySet[Paradigm]:
    """Each paradigm with `hits` (all uses), `uses_30d` (the eviction window) and `last_used` (a day),
    aggregated in the same query."""
    in_window = Q(daily_uses__day__gte=window_start(today), daily_uses__day__lte=today)
    return queryset.annotate(
        hits=Coalesce(Sum("daily_uses__uses"), 0),
        uses_30d=Coalesce(Sum("daily_uses__uses", filter=in_window), 0),
        last_used=Max("daily_uses__day"),
    )


def paradigm_list(
    *, today: date, search: str = "", pinned: bool | None = None, origin: str | None = None
) -> QuerySet[Paradigm]:
    """Paradigms for curation, newest first: `search` in the question, optional pinned/origin filters."""
    queryset = Paradigm.objects.all()
    if search:
        queryset = queryset.filter(question__icontains=search)
    if pinned is not None:
        queryset = queryset.filter(pinned=pinned)
    if origin:
        queryset = queryset.filter(origin=origin)
    return with_use_figures(queryset, today).order_by("-created_at", "-pk")


def paradigm_detail(paradigm_id: int, today: date) -> Paradigm:
    """One paradigm with its use figures (Paradigm.DoesNotExist when absent)."""
    return with_use_figures(Paradigm.objects.filter(pk=paradigm_id), today).get()


def library_history(today: date, days: int = WINDOW_DAYS) -> list[dict[str, Any]]:
    """Hits, misses, hit rate, insertions and evictions per day for the `days` days ending today
    (days without a lookup included, hit rate None)."""
    first = today - timedelta(days=days - 1)
    stored = {row.day: row for row in LibraryDay.objects.filter(day__gte=first, day__lte=today)}
    history = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        row = stored.get(day)
        hits, misses = (row.hits, row.misses) if row else (0, 0)
        history.append(
            {
                "day": day,
                "hits": hits,
                "misses": misses,
                "hit_rate": round(hits / (hits + misses), 4) if hits + misses else None,
                "insertions": row.insertions if row else 0,
                "evictions": row.evictions if row else 0,
            }
        )
    return history


def exported_paradigms(ids: list[int] | None = None) -> list[ExchangedParadigm]:
    """Paradigms as export entries (the SQL as written for their own question), oldest first."""
    queryset = Paradigm.objects.order_by("pk")
    if ids is not None:
        queryset = queryset.filter(pk__in=ids)
    return [
        ExchangedParadigm(
            question=paradigm.question,
            qst=paradigm.qst,
            sql=source_sql(paradigm_template(paradigm)),
            validation_status=paradigm.validation_status,
            pinned=paradigm.pinned,
            resolved_on=paradigm.resolved_on,
            kind=paradigm.kind,
            check=paradigm.check_spec or None,
        )
        for paradigm in queryset
    ]


def is_stored(qst: Node) -> bool:
    """A paradigm with exactly this QST (literals included) is in the library."""
    return Paradigm.objects.filter(qst_signature=qst_signature(qst)).exists()
