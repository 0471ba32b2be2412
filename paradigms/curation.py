"""Curation writes that need the validation pipeline: an administrator's SQL for a paradigm is
guard-checked and validated on the paradigm's own question (the whole pipeline, no correction) before
it replaces the stored template. Kept apart from services.py because it reaches the screening app,
which itself wires the library into the pipeline."""

from __future__ import annotations

from backend.apps.marketdata.store import get_market_store
from backend.apps.screening.services import answer_question
from backend.domain.language.context import LanguageContext
from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import check_read_only
from backend.domain.paradigms.templates import TemplateError
from paradigms import services
from paradigms.models import Kind, Paradigm


class CurationRefused(ValueError):
    """The edit is refused (the message says why: guard, validation, template)."""


def vet_sql(paradigm: Paradigm, sql: str) -> str:
    """The SQL, trimmed, once it passes the guard and is verified on the paradigm's question.
    Raises CurationRefused, and MarketError when the market cannot be read."""
    text = sql.strip().rstrip(";").strip()
    try:
        check_read_only(text)
    except QueryRejected as error:
        raise CurationRefused(f"refused by the guard: {error}") from error
    answer = answer_question(paradigm.question, candidate_sql=text, correct=False)
    if answer.status != "verified":
        failed = [check["text"] for check in answer.checks if check.get("verdict") != "pass"]
        reasons = "; ".join(failed) or answer.message
        raise CurationRefused(f"not verified on the paradigm's question ({answer.status}): {reasons}")
    return text


def save_sql(paradigm_id: int, vetted_sql: str) -> Paradigm:
    """Store SQL that `vet_sql` accepted, templated on the current market day."""
    market_day = LanguageContext.from_store(get_market_store()).latest_trade_date
    try:
        return services.replace_sql(paradigm_id, vetted_sql, resolved_on=market_day)
    except TemplateError as error:
        raise CurationRefused(f"the SQL cannot be templated from the paradigm's QST: {error}") from error


def edit_sql(paradigm_id: int, sql: str) -> Paradigm:
    """Replace a paradigm's SQL after it passes the guard and is verified on the paradigm's question.
    Raises Paradigm.DoesNotExist, CurationRefused, and MarketError when the market cannot be read."""
    paradigm = Paradigm.objects.get(pk=paradigm_id)
    if paradigm.kind == Kind.REVERSE:
        # A rule's check always runs the SQL its rule writes (the paradigm only records it), and an
        # LLM check's SQL is what the writer wrote for a validated answer (validate/reverse/reuse.py).
        raise CurationRefused(
            "a reverse check's SQL is its rule's: delete the paradigm instead of editing it"
        )
    return save_sql(paradigm_id, vet_sql(paradigm, sql))
