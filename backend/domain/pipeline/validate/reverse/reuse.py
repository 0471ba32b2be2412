"""Reverse checks through the paradigm library (issue 10 item 5): hit → adapt, miss → write and learn.

Each check the rules wrote is described as a tree (description.py) and looked up among the reverse
paradigms. On a hit, the paradigm's SQL template filled from the check's tree replaces the check's
SQL — provided it is the SQL the rule writes for this check: the rules are deterministic, so a filled
template that differs can only come from a literal bound in the wrong place, and the rule's SQL runs
instead (the hit is reported, not `adapted`). On a miss the rule's SQL runs, and when the answer ends
verified or corrected every described check that passed is learned with it.

Only the SQL can come from the library. The check's criterion (`decide`) is always the rule's and
reads only r0 and the check's own result, so the independence of the checks is untouched.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from backend.domain.labelled_tree import Node
from backend.domain.pipeline.ports import ParadigmHit, ParadigmLibrary
from backend.domain.pipeline.trace import ParadigmEvent
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.reverse.description import describe
from backend.domain.pipeline.validate.reverse.model import ReverseCheck
from backend.domain.pipeline.validate.reverse.subject import Subject


@dataclass(frozen=True)
class LibraryCheck:
    check: ReverseCheck  # as it runs: with the paradigm's SQL on an adapted hit
    tree: Node | None  # None: the rule is not described, the library was not asked
    hit: ParadigmHit | None = None
    adapted: bool = False

    def events(self, result: CheckResult, round_number: int) -> list[ParadigmEvent]:
        """What the library did for this check, under the check's id."""
        if self.tree is None:
            return []
        if self.hit is None:
            return [ParadigmEvent("miss", None, None, "", query=result.check_id, round=round_number)]
        hit = self.hit
        events = [
            ParadigmEvent(
                "hit",
                hit.paradigm_id,
                hit.distance,
                hit.question if self.adapted else "its filled SQL is not the rule's: the rule's SQL runs",
                query=result.check_id,
                round=round_number,
            )
        ]
        if self.adapted:
            events.append(
                ParadigmEvent(
                    "adapted",
                    hit.paradigm_id,
                    hit.distance,
                    hit.how,
                    query=result.check_id,
                    round=round_number,
                )
            )
        return events


def trees(checks: Sequence[ReverseCheck], subject: Subject) -> list[Node | None]:
    """The tree of every check, in order (None: its rule is not described)."""
    written: Counter[str] = Counter()
    described = []
    for check in checks:
        described.append(describe(check, written[check.rule], subject))
        written[check.rule] += 1
    return described


def look_up(checks: Sequence[ReverseCheck], subject: Subject, library: ParadigmLibrary) -> list[LibraryCheck]:
    """Every check, in order, with what the library gave for it."""
    described = trees(checks, subject)
    looked_up = [tree for tree in described if tree is not None]
    hits = iter(library.lookup_reverse(looked_up) if looked_up else [])
    found: list[LibraryCheck] = []
    for check, tree in zip(checks, described, strict=True):
        if tree is None:
            found.append(LibraryCheck(check, None))
            continue
        hit = next(hits)
        if hit is not None and hit.adapted and hit.sql == check.sql:
            found.append(LibraryCheck(replace(check, sql=hit.sql), tree, hit, adapted=True))
        else:
            found.append(LibraryCheck(check, tree, hit))
    return found


def learn(
    checked: Sequence[tuple[LibraryCheck, CheckResult]],
    library: ParadigmLibrary,
    *,
    status: str,
    round_number: int,
) -> list[ParadigmEvent]:
    """Store the described checks the library had no adapted SQL for and that passed; the events."""
    events = []
    for item, result in checked:
        if item.tree is None or item.adapted or result.verdict != "pass":
            continue
        learned = library.learn_reverse(item.check.text, item.tree, item.check.sql, status=status)
        if learned is not None:
            events.append(
                ParadigmEvent("learned", learned, None, "", query=result.check_id, round=round_number)
            )
    return events
