"""The guard against fixture files: every hostile statement refused for its reason, every
legitimate screen accepted and run on ClickHouse (chdb) over the small synthetic demo market. Both
entry points judge every fixture: `check_read_only` parses the whole text, `require_read_only` (the
store's) parses long literal lists as one literal and must reach the same verdict."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlglot import exp

from backend.domain.market.errors import QueryRejected
from backend.domain.market.guard import check_read_only, forget_passed, require_read_only
from backend.domain.market.store import MarketStore
from tests.market.guard_support import GuardCase, load_cases

HOSTILE = load_cases("hostile")
ACCEPTED = load_cases("accepted")


def test_fixture_folders_hold_enough_distinct_cases() -> None:
    assert len(HOSTILE) >= 25
    assert len(ACCEPTED) >= 20
    assert all("reason" in case.headers for case in HOSTILE)
    assert all("screen" in case.headers for case in ACCEPTED)
    assert len({case.sql for case in HOSTILE}) == len(HOSTILE)


JUDGES = {"check_read_only": check_read_only, "require_read_only": require_read_only}


@pytest.mark.parametrize("judge", JUDGES.values(), ids=JUDGES.keys())
@pytest.mark.parametrize("case", HOSTILE, ids=lambda case: case.name)
def test_hostile_statement_is_refused_for_its_reason(case: GuardCase, judge: Callable[[str], object]) -> None:
    with pytest.raises(QueryRejected) as refused:
        judge(case.sql)
    assert case.headers["reason"] in str(refused.value)


@pytest.mark.parametrize("case", ACCEPTED, ids=lambda case: case.name)
def test_legitimate_screen_passes_the_stores_judge_too(case: GuardCase) -> None:
    forget_passed()
    require_read_only(case.sql)


@pytest.mark.parametrize("case", ACCEPTED, ids=lambda case: case.name)
def test_legitimate_screen_is_accepted_and_runs(case: GuardCase, demo_store: MarketStore) -> None:
    tree = check_read_only(case.sql)
    assert isinstance(tree, exp.Query)
    result = demo_store.query(case.sql, case.parameters)
    assert result.rows, "the screen found nothing in the demo market, so it proved little"
