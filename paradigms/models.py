"""Paradigm library models: paradigms, their per-day uses, daily library counters, and the
one-row library state that serialises inserts (DESIGN.md §1 step 4; logic in backend/domain/paradigms).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


class Origin(models.TextChoices):
    SEED = "seed", "cold-start file"
    LEARNED = "learned", "learned from a validated answer"
    ADMIN = "admin", "written by an administrator"


class Kind(models.TextChoices):
    """What a paradigm answers: a question (its QST), or one reverse check of the validation (its
    tree, backend/domain/pipeline/validate/reverse/description.py). Each kind is matched only
    against its own kind."""

    QUESTION = "question", "a question"
    REVERSE = "reverse", "a reverse check"


class ValidationStatus(models.TextChoices):
    VERIFIED = "verified", "verified by the validation"
    CORRECTED = "corrected", "corrected by the validation"
    UNVALIDATED = "unvalidated", "not validated (cold-start files are checked by tests instead)"


class Paradigm(models.Model):
    """A (question, QST, SQL template) triple. The QST never changes once stored: matching caches
    rely on it; a different QST is a different paradigm."""

    question = models.TextField(help_text="the question, or a reverse check's reverse question")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.QUESTION)
    qst = models.JSONField(help_text="the question's QST, or the reverse check's tree")
    sql_template = models.TextField(help_text="SQL with {slot_N:Type} parameters in place of literals")
    slots = models.JSONField(default=list, help_text="typed slots tied to the QST's value nodes")
    fixed_dates = models.JSONField(default=list, help_text="dates of the SQL that no slot explains")
    check_spec = models.JSONField(
        default=dict, blank=True, help_text="an LLM reverse check's criterion, point and the size of its set"
    )
    resolved_on = models.DateField(
        null=True, blank=True, help_text="market day the SQL's dates were resolved on"
    )
    origin = models.CharField(max_length=16, choices=Origin.choices)
    validation_status = models.CharField(max_length=16, choices=ValidationStatus.choices)
    created_at = models.DateTimeField(default=timezone.now)
    pinned = models.BooleanField(default=False)
    # precomputed for matching
    node_count = models.PositiveSmallIntegerField()
    shape_signature = models.CharField(max_length=64, help_text="equal for QSTs differing only in literals")
    qst_signature = models.CharField(max_length=64, unique=True, help_text="equal for identical QSTs")

    class Meta:
        indexes = (
            models.Index(fields=["node_count"], name="paradigm_node_count"),
            models.Index(fields=["shape_signature"], name="paradigm_shape"),
            models.Index(fields=["pinned", "created_at"], name="paradigm_eviction"),
        )

    def __str__(self) -> str:
        return f"paradigm {self.pk}: {self.question[:60]}"


class ParadigmUse(models.Model):
    """Uses of one paradigm on one day (market time zone): "uses in the last 30 days" is a sum."""

    paradigm = models.ForeignKey(Paradigm, on_delete=models.CASCADE, related_name="daily_uses")
    day = models.DateField()
    uses = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = (models.UniqueConstraint(fields=["paradigm", "day"], name="paradigm_use_per_day"),)
        indexes = (models.Index(fields=["day", "paradigm"], name="paradigm_use_window"),)


class LibraryDay(models.Model):
    """Library counters per day; they outlive evicted paradigms, so hit rates stay exact."""

    day = models.DateField(unique=True)
    hits = models.PositiveIntegerField(default=0)
    misses = models.PositiveIntegerField(default=0)
    reverse_hits = models.PositiveIntegerField(default=0)  # lookups of reverse checks, apart
    reverse_misses = models.PositiveIntegerField(default=0)
    insertions = models.PositiveIntegerField(default=0)
    evictions = models.PositiveIntegerField(default=0)


class LibraryState(models.Model):
    """The one row every insert locks (SELECT … FOR UPDATE), so that two workers at capacity insert
    and evict one after the other. `revision` is replaced on every change to the set of paradigms,
    which tells in-process matching indexes when to resynchronise (a fresh random value, so that a
    rolled-back change can never be mistaken for the current state)."""

    revision = models.UUIDField(default=uuid.uuid4)
