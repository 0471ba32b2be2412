"""The pipeline's ParadigmLibrary port on the paradigm tables (issue 10 items 3 and 4).

- `structure`: the question's QST as the built-in engine reads it — the key paradigms are stored and
  matched under, computed before any generation so that a hit can stand in for the generator;
- `lookup`: `nearest_paradigms` → the nearest paradigm whose template fills from the question's QST
  (deterministic); when none fills and the LLM is configured, the paradigm-adapter role rewrites the
  nearest one; when that role fails, the hit says so and what LLM_PARADIGM_ADAPTER_ON_FAILURE makes
  of it (the pipeline decides). A hit counts a use; nothing within τ counts a miss;
- `learn`: stores a verified or corrected run's (question, QST, SQL) — the SQL that passed, the
  corrected one after a correction — with LFU eviction at capacity (services.insert_paradigm);
- `lookup_reverse`: for the trees of LLM reverse checks to be written, the nearest reverse paradigm
  whose template fills (slot filling only) and passes the guard; nothing counted;
- `record_reverse`: after an answer's final status, the paradigm holding each rule-written check
  (its filled template is exactly the rule's SQL), the uses and misses of all the checks in one
  transaction (services.record_lookups), and the passed checks of a verified or corrected answer
  that no paradigm holds learned (reverse paradigms only, with an LLM check's spec).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

from django.conf import settings
from django.db import DatabaseError

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.llm.linking import link_schema
from backend.domain.language.llm.roles import ParadigmAdapterRole
from backend.domain.language.qst import QstError
from backend.domain.language.translation import LlmCall, OnFailure
from backend.domain.market.errors import QueryRejected
from backend.domain.paradigms.adaptation import (
    Adaptation,
    AdapterFailed,
    NotAdapted,
    SqlAdapter,
    adapt,
    source_sql,
)
from backend.domain.paradigms.eviction import NothingToEvict
from backend.domain.paradigms.matching import Match
from backend.domain.paradigms.templates import TemplateError, TemplateMismatch, fill_template
from backend.domain.pipeline.ports import ParadigmHit, QstTree, RecordedCheck, ReverseRun
from paradigms import selectors, services
from paradigms.models import Kind, Origin, Paradigm, ValidationStatus

logger = logging.getLogger(__name__)

LEARNED_STATUSES = {"verified": ValidationStatus.VERIFIED, "corrected": ValidationStatus.CORRECTED}


def configured_adapter(context: LanguageContext) -> SqlAdapter | None:
    """The LLM's paradigm-adapter role when LLM_PROVIDER is not builtin; None: slot filling only."""
    if settings.LLM_PROVIDER == "builtin":
        return None
    return llm_adapter(
        ParadigmAdapterRole.from_settings(settings.LLM_SETTINGS.role("paradigm_adapter")), context
    )


def llm_adapter(role: ParadigmAdapterRole, context: LanguageContext) -> SqlAdapter:
    """The adapter role as the library calls it. Its prompt carries the schema the question and the
    paradigm's SQL need (linking.py), not the whole schema, which alone is over the default budget."""

    def rewrite(
        question: str,
        paradigm_question: str,
        paradigm_sql: str,
        differences: Sequence[str],
        calls: list[LlmCall],
    ) -> str:
        schema_text = link_schema(question, context, examples=[(paradigm_question, paradigm_sql)]).text()
        return role.adapt(
            question,
            paradigm_question,
            paradigm_sql,
            differences,
            schema_text,
            database=context.database,  # the guard alone lets another database's tables through
            calls=calls,
        )

    return rewrite


class DatabaseParadigmLibrary:
    def __init__(
        self,
        context: LanguageContext,
        *,
        adapter: SqlAdapter | None = None,
        adapter_on_failure: OnFailure = "builtin",
        translator: BuiltinTranslator | None = None,
        origin: Origin = Origin.LEARNED,
    ) -> None:
        self._context = context
        self._adapter = adapter
        self._adapter_on_failure = adapter_on_failure
        self._translator = translator or BuiltinTranslator()
        self._origin = origin  # what the paradigms it learns are marked with (seed: the cold-start load)

    def structure(self, question: str) -> QstTree | None:
        translation = self._translator.translate(question, self._context)
        return translation.qst if translation.status == "ok" else None

    def _adapt(
        self, paradigm: Paradigm, qst: QstTree, question: str, adapter: SqlAdapter | None
    ) -> Adaptation:
        return adapt(
            selectors.paradigm_template(paradigm),
            dict(qst),
            question=question,
            paradigm_question=paradigm.question,
            market_day=self._context.latest_trade_date,
            adapter=adapter,
        )

    def lookup(self, question: str, qst: QstTree) -> ParadigmHit | None:
        try:
            matches = selectors.nearest_paradigms(dict(qst))
            stored = selectors.paradigms_by_id([match.paradigm_id for match in matches])
            found = [(match, stored[match.paradigm_id]) for match in matches if match.paradigm_id in stored]
            if not found:
                services.record_miss()
                return None
            for match, paradigm in found:
                try:
                    adaptation = self._adapt(paradigm, qst, question, None)
                except NotAdapted:
                    continue
                if services.record_use(paradigm.pk):
                    return _hit(paradigm, match.distance, adaptation)
            match, paradigm = found[0]
            failure: AdapterFailed | None = None
            if self._adapter is not None:
                try:
                    adaptation = self._adapt(paradigm, qst, question, self._adapter)
                except AdapterFailed as failed:
                    logger.warning("the paradigm adapter failed on paradigm %s: %s", paradigm.pk, failed)
                    failure = failed
                except NotAdapted as refusal:
                    logger.info("paradigm %s not adapted: %s", paradigm.pk, refusal)
                else:
                    if services.record_use(paradigm.pk):
                        return _hit(paradigm, match.distance, adaptation)
            services.record_use(paradigm.pk)
            example = source_sql(selectors.paradigm_template(paradigm))
            return ParadigmHit(
                str(paradigm.pk),
                paradigm.question,
                example,
                match.distance,
                llm_calls=failure.calls if failure is not None else (),
                adapter_failure=str(failure or ""),
                adapter_on_failure=self._adapter_on_failure,
            )
        except DatabaseError as error:  # e.g. a terminal on an unmigrated database: answer without it
            logger.info("paradigm library unavailable: %s", error)
            return None

    def learn(self, question: str, qst: QstTree, sql: str, *, status: str = "verified") -> str | None:
        return self._learn(question, qst, sql, status=status, kind=Kind.QUESTION)

    def lookup_reverse(self, trees: Sequence[QstTree]) -> list[ParadigmHit | None]:
        try:
            matches = [selectors.nearest_paradigms(dict(tree), kind=Kind.REVERSE) for tree in trees]
            stored = selectors.paradigms_by_id([match.paradigm_id for found in matches for match in found])
        except DatabaseError as error:
            logger.info("paradigm library unavailable: %s", error)
            return [None for _ in trees]
        return [self._first_filled(tree, found, stored) for tree, found in zip(trees, matches, strict=True)]

    def _first_filled(
        self, tree: QstTree, matches: list[Match], stored: dict[int, Paradigm]
    ) -> ParadigmHit | None:
        """The nearest paradigm whose template fills from the tree (slot filling only) and passes
        the guard, as an adapted hit carrying the stored check's spec."""
        for match in matches:
            paradigm = stored.get(match.paradigm_id)
            if paradigm is None:
                continue
            try:
                adaptation = self._adapt(paradigm, tree, paradigm.question, None)
            except NotAdapted:
                continue
            return replace(_hit(paradigm, match.distance, adaptation), spec=dict(paradigm.check_spec))
        return None

    def record_reverse(
        self, runs: Sequence[ReverseRun], *, used: Sequence[str], misses: int, status: str
    ) -> list[RecordedCheck]:
        try:
            holders = iter(self._holders([run for run in runs if run.matched]))
            found = [next(holders) if run.matched else None for run in runs]
            unheld = sum(run.matched and holder is None for run, holder in zip(runs, found, strict=True))
            counted = services.record_lookups(
                [int(holder[0]) for holder in found if holder is not None] + [int(pk) for pk in used],
                misses=misses + unheld,
                kind=Kind.REVERSE,
            )
        except DatabaseError as error:
            logger.info("paradigm library unavailable: %s", error)
            return [RecordedCheck() for _ in runs]
        recorded = []
        for run, holder in zip(runs, found, strict=True):
            held = holder if holder is not None and int(holder[0]) in counted else None
            learned = (
                self._learn(run.text, run.tree, run.sql, status=status, kind=Kind.REVERSE, spec=run.spec)
                if run.learn and held is None
                else None
            )
            recorded.append(RecordedCheck(held, learned))
        return recorded

    def _holders(self, runs: Sequence[ReverseRun]) -> list[tuple[str, float] | None]:
        """For each rule-written check, the nearest stored reverse paradigm whose template, filled from
        the check's tree, is exactly the SQL the rule wrote (id, distance); None when none is."""
        matches = [selectors.nearest_paradigms(dict(run.tree), kind=Kind.REVERSE) for run in runs]
        stored = selectors.paradigms_by_id([match.paradigm_id for found in matches for match in found])
        market_day = self._context.latest_trade_date
        holders: list[tuple[str, float] | None] = []
        for run, found in zip(runs, matches, strict=True):
            holder = None
            for match in found:
                paradigm = stored.get(match.paradigm_id)
                if paradigm is None:
                    continue
                try:
                    filled = fill_template(
                        selectors.paradigm_template(paradigm), dict(run.tree), market_day=market_day
                    )
                except TemplateMismatch:
                    continue
                if filled == run.sql:
                    holder = (str(paradigm.pk), match.distance)
                    break
            holders.append(holder)
        return holders

    def _learn(
        self,
        text: str,
        tree: QstTree,
        sql: str,
        *,
        status: str,
        kind: Kind,
        spec: Mapping[str, object] | None = None,
    ) -> str | None:
        """The new paradigm's id, or None: not a learnable status, already stored (a re-asked question or
        the same check again: nothing to template or lock), or refused (logged)."""
        validation_status = LEARNED_STATUSES.get(status)
        if validation_status is None:
            return None
        try:
            if selectors.is_stored(dict(tree)):
                return None
            outcome = services.insert_paradigm(
                question=text,
                qst=dict(tree),
                sql=sql,
                origin=self._origin,
                validation_status=validation_status,
                resolved_on=self._context.latest_trade_date,
                kind=kind,
                check_spec=spec,
            )
        except (QstError, QueryRejected, TemplateError, NothingToEvict, DatabaseError) as refusal:
            logger.info("%s paradigm not learned: %s", kind.value, refusal)
            return None
        return str(outcome.paradigm.pk) if outcome.created else None


def _hit(paradigm: Paradigm, distance: float, adaptation: Adaptation) -> ParadigmHit:
    return ParadigmHit(
        str(paradigm.pk),
        paradigm.question,
        adaptation.sql,
        distance,
        adapted=True,
        how=adaptation.how,
        llm_calls=adaptation.llm_calls,
    )


def paradigm_library(context: LanguageContext) -> DatabaseParadigmLibrary:
    """The library the ask services wire into the pipeline (LLM adapter when configured)."""
    on_failure = settings.LLM_SETTINGS.role("paradigm_adapter").on_failure
    adapter = configured_adapter(context)
    return DatabaseParadigmLibrary(context, adapter=adapter, adapter_on_failure=on_failure)
