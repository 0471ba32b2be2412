"""Hostile-input fuzzing (issue 12 item 6): hypothesis properties at FUZZ_EXAMPLES examples each.

CI runs them at 10,000 examples (the default: `make test` leaves the variable unset);
`VERISCREEN_FUZZ_EXAMPLES=300` makes a quick local run (the README's command). Each test is marked
`fuzz` (`pytest -m fuzz` runs only these; `-m "not fuzz"` skips them).
"""

from __future__ import annotations

import os
from datetime import date

import pytest
from hypothesis import HealthCheck, settings

from backend.domain.language.context import LanguageContext
from backend.domain.market.store import MarketStore

FUZZ_EXAMPLES = int(os.environ.get("VERISCREEN_FUZZ_EXAMPLES", "10000"))

FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: hypothesis fuzzing at 10,000 examples (tests/fuzz)")


@pytest.fixture(scope="session")
def language_context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store, today=date(2026, 11, 30))
