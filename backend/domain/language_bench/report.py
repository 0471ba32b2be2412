"""Plain-text rendering of an EX report for the terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from backend.domain.language_bench.runner import ExReport, ItemOutcome


def _percent(value: float | None) -> str:
    return "  n/a" if value is None else f"{value * 100:5.1f}%"


def _group_line(name: str, group: dict[str, Any], spotit: bool) -> str:
    line = f"{name:<12} {group['correct']:>4}/{group['items']:<4} EX {_percent(group['ex'])}"
    if spotit:
        line += f"   EX-SpotIt {_percent(group['ex_spotit'])}"
    statuses = ", ".join(f"{status} {count}" for status, count in group["statuses"].items())
    line += f"   silently wrong {_percent(group['silently_wrong_share'])}"
    if group["claimed_checked"] or group["flagged_unverified"]:
        line += f"   verified/corrected {group['claimed_checked']}, flagged {group['flagged_unverified']}"
    return f"{line}   [{statuses}]"


def _failure_lines(outcome: ItemOutcome) -> list[str]:
    shown = f"{outcome.status}, {outcome.verification}" if outcome.verification else outcome.status
    lines = [f"- {outcome.id} [{shown}] {outcome.question}", f"    reason: {outcome.reason}"]
    if outcome.only_in_gold or outcome.only_in_pred:
        lines.append(f"    only in gold: {json.dumps(outcome.only_in_gold, ensure_ascii=False, default=str)}")
        lines.append(f"    only in pred: {json.dumps(outcome.only_in_pred, ensure_ascii=False, default=str)}")
    if outcome.pred_sql:
        lines.append("    sql: " + " ".join(outcome.pred_sql.split()))
    if outcome.spotit is not None:
        lines.append(f"    spotit: {outcome.spotit.verdict} {outcome.spotit.reason}".rstrip())
    return lines


def format_report(report: ExReport, *, show_failures: bool = True) -> str:
    summary = report.summary()
    lines = [f"Language EX benchmark — engine {report.engine}, {len(report.outcomes)} items"]
    if report.spotit_note:
        lines.append(report.spotit_note)
    for name, group in summary["by_category"].items():
        lines.append(_group_line(name, group, report.spotit_enabled))
    for name, group in summary["by_lang"].items():
        lines.append(_group_line(f"lang {name}", group, report.spotit_enabled))
    lines.append(_group_line("overall", summary["overall"], report.spotit_enabled))
    conflicts = summary["overall"].get("spotit_equivalent_but_results_differ")
    if conflicts:
        lines.append("SpotIt says equivalent but the results differ on the data: " + ", ".join(conflicts))
    failures = report.failures()
    if show_failures and failures:
        lines.append(f"\nFailures ({len(failures)}):")
        for outcome in failures:
            lines.extend(_failure_lines(outcome))
    return "\n".join(lines)


def write_json(report: ExReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.to_dict(), ensure_ascii=False, indent=2, default=str), encoding="utf-8")
