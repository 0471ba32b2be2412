"""Paradigm-library fixtures: a language context over the shared demo store, and the dev set's real
QSTs as produced by the built-in engine (the shapes random libraries are grown from)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.qst import Node
from backend.domain.language.speed import dev_set_questions
from backend.domain.language.translation import Translation
from backend.domain.market.store import MarketStore

DEV_SET = Path(__file__).resolve().parents[2] / "benchmarks" / "language" / "dev_set.yaml"


@pytest.fixture(scope="session")
def paradigm_context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store, today=date(2026, 11, 30))


@pytest.fixture(scope="session")
def dev_translations(paradigm_context: LanguageContext) -> list[Translation]:
    """The dev-set questions the built-in engine translates."""
    translator = BuiltinTranslator()
    translations = [
        translator.translate(question, paradigm_context) for question in dev_set_questions(DEV_SET)
    ]
    ok = [item for item in translations if item.status == "ok" and item.qst is not None and item.sql]
    assert len(ok) >= 100, "the built-in engine should translate most of the dev set"
    return ok


@pytest.fixture(scope="session")
def real_qsts(dev_translations: list[Translation]) -> list[Node]:
    return [item.qst for item in dev_translations if item.qst is not None]
