"""Judge and correct: B = AND of every check; the failures' attributions are merged into ONE guidance
message for the generator (design §1 step 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backend.domain.language.translation import Guidance
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.outcome import CheckResult

# The order a generator should address problems in: what is asked before how it is computed.
_LABELS: dict[str, str] = {
    Attribution.INVALID_SQL.value: "the SQL itself (it does not parse or does not run)",
    Attribution.INTENT.value: "what the question asks for",
    Attribution.ENTITY_MAPPING.value: "which stocks, industries, exchanges, boards or indexes are meant",
    Attribution.CONDITION.value: "a condition that is missing or wrong",
    Attribution.TIME_SCOPE.value: "the day, period or window",
    Attribution.UNIT.value: "the unit of a number",
    Attribution.AGGREGATION.value: "an aggregate or count",
    Attribution.GROUPING.value: "the grouping",
    Attribution.TOP_K.value: "the ranking or how many rows are kept",
}


@dataclass(frozen=True)
class Judgement:
    passed: bool
    failed: list[CheckResult]
    undecided: list[CheckResult]


def judge(checks: Sequence[CheckResult]) -> Judgement:
    """B = AND b_i over the question's points. A point fails when one of its checks fails; it is
    decided when one of its checks passed and none failed; otherwise it is undecided, and an answer
    with an undecided point is never verified."""
    failed = [check for check in checks if check.verdict == "fail"]
    points: dict[str, list[CheckResult]] = {}
    for check in checks:
        points.setdefault(check.point or check.check_id, []).append(check)
    undecided = [
        check
        for group in points.values()
        if not any(item.verdict == "pass" for item in group)
        for check in group
        if check.verdict == "undecidable"
    ]
    return Judgement(bool(checks) and not failed and not undecided, failed, undecided)


def merge_guidance(failed: Sequence[CheckResult], round_number: int, rejected: tuple[str, ...]) -> Guidance:
    """One message naming, per attribution, the checks that failed and why."""
    by_attribution: dict[str, list[CheckResult]] = {}
    for check in failed:
        by_attribution.setdefault(check.attribution or Attribution.INTENT.value, []).append(check)
    lines = ["The previous SQL does not answer the question. Fix these points:"]
    for attribution in [*_LABELS, *sorted(set(by_attribution) - set(_LABELS))]:
        for check in by_attribution.get(attribution, []):
            lines.append(f"- {_LABELS.get(attribution, attribution)}: {check.text} ({check.reason})")
    return Guidance(round=round_number, message="\n".join(lines), rejected_sql=rejected)


def risk_warning(failed: Sequence[CheckResult], undecided: Sequence[CheckResult], zh: bool) -> list[str]:
    """What the answer of an unverified run must say about itself."""
    warnings = []
    if failed:
        listed = "；".join(f"{c.text}（{c.reason}）" for c in failed)
        warnings.append(
            f"未通过验证，结果可能有误。未通过的检查：{listed}"
            if zh
            else "NOT VERIFIED — the answer may be wrong. Failed checks: "
            + "; ".join(f"{c.text} ({c.reason})" for c in failed)
        )
    if undecided:
        listed = "；".join(f"{c.text}（{c.reason}）" for c in undecided)
        warnings.append(
            f"以下检查无法判定，答案未经验证：{listed}"
            if zh
            else "Not verified — these checks could not decide: "
            + "; ".join(f"{c.text} ({c.reason})" for c in undecided)
        )
    return warnings
