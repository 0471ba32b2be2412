"""A tree rule (outcome.tree_rule_check): no check when the rule holds or the tree cannot tell, a
failure blaming its culprit when it is broken."""

from __future__ import annotations

from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.outcome import CheckResult, tree_rule_check


def _check(reason: str | None) -> CheckResult | None:
    return tree_rule_check(
        "join_keys",
        text="a join matches codes of the same kind",
        criterion="stock codes are matched with stock codes",
        blames=Attribution.CONDITION,
        finding=lambda: reason,
    )


def test_a_rule_that_holds_makes_no_check() -> None:
    assert _check(None) is None


def test_a_broken_rule_is_a_failure_of_the_checklist_stage_blaming_its_culprit() -> None:
    check = _check("`s.ts_code = w.index_code` matches a stock code with an index code")
    assert check is not None
    assert (check.check_id, check.kind, check.stage, check.level) == (
        "join_keys",
        "join_keys",
        "checklist",
        "constraint",
    )
    assert (check.verdict, check.attribution, check.sql) == ("fail", "condition", None)
    assert check.reason.startswith("`s.ts_code = w.index_code`")
    assert check.ms >= 0
