"""Reverse checks written by the LLM: the reverse-question writer adds checks, the judge may decide one.

They live under the rules of the built-in reverse checks (reverse/model.py): each is a reverse question
with its own SQL — held to the guard and the market tables by the writer role, and run through the
guarded store like every query — and a criterion that reads only the answer's rows (r0) and its own
rows. The judge, for a check whose criterion is `judge`, sees the question, that check and those two
results: never another check, its SQL or its verdict. They run on the same runner as the built-in
checks, in parallel, in any order.

Through the paradigm library (issue 10 item 5): before the writer is asked, the trees its checks
would be stored under (description.describe_llm: the question's QST, the answer's columns and row
count class, the database, the check's place) are looked up. When the library holds the whole set a
writer wrote for such an answer — every one of its checks found and filled from the new tree, passing
the guard and reading only the market tables — those checks run with their stored criterion and point,
and the writer is not called. Otherwise the writer writes, and its checks that pass in the answer of a
verified or corrected run are learned (reuse.record), unless a check's SQL holds a value read off the
answer's rows that the tree does not carry: such a check holds for this answer only.

An LLM check can only take from an answer: a pass of its own decides no point another check left
undecided (its point is its own), and a role that fails never passes anything. Per role,
`on_failure` says what a failure (endpoint error, garbage, timeout, prompt over budget) leaves:
`fail` — an undecided check naming the failure, so the answer cannot be verified; `builtin` — no
check (the built-in checks decide alone) and a warning naming the failure.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal

import sqlglot
from pydantic import ValidationError
from sqlglot import exp

from backend.domain.labelled_tree import Node
from backend.domain.language.context import LanguageContext
from backend.domain.language.llm.calling import UnusableOutput
from backend.domain.language.llm.errors import LlmError, LlmPromptTooLarge
from backend.domain.language.llm.linking import link_schema
from backend.domain.language.llm.roles import (
    MAX_REVERSE_QUESTIONS,
    MECHANICAL_CRITERIA,
    CheckCriterion,
    JudgeRole,
    ReverseQuestion,
    ReverseQuestionWriterRole,
    accept_sql,
    format_result_preview,
)
from backend.domain.language.translation import LlmCall, OnFailure
from backend.domain.market.guard import DIALECT
from backend.domain.paradigms.trees import value_nodes
from backend.domain.pipeline.ports import MarketReader, ParadigmHit, ParadigmLibrary, ResultRows, ReverseRun
from backend.domain.pipeline.text import language_of, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.reverse.description import LLM_RULE, describe_llm
from backend.domain.pipeline.validate.reverse.model import (
    Decide,
    Judgement,
    ReverseCheck,
    broken,
    holds,
    unknown,
)
from backend.domain.pipeline.validate.reverse.reuse import LlmLibraryUse
from backend.domain.pipeline.validate.reverse.runner import run_checks

PREVIEW_ROWS = 10  # rows of each result shown to a role: enough to judge, small enough for a 4k context
SHORT_PREVIEW_ROWS = 3  # the writer's preview when the prompt with 10 rows is over the budget
_RELATIVE_TOLERANCE = 1e-6
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class LlmCheckRoles:
    """The two check roles as configured; `judge` None: the writer may not ask for a judgement."""

    writer: ReverseQuestionWriterRole
    context: LanguageContext  # for the schema the question links to
    writer_on_failure: OnFailure
    judge: JudgeRole | None = None
    judge_on_failure: OnFailure = "fail"


@dataclass
class LlmChecks:
    """What the check roles added to one attempt."""

    results: list[CheckResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    calls: list[LlmCall] = field(default_factory=list)
    library: LlmLibraryUse = field(default_factory=LlmLibraryUse)


def _ts_codes(rows: ResultRows) -> set[object] | None:
    if "ts_code" not in rows.columns:
        return None
    index = rows.columns.index("ts_code")
    return {row[index] for row in rows.rows}


def _one_value(rows: ResultRows) -> object | None:
    return rows.rows[0][0] if len(rows.rows) == 1 and len(rows.rows[0]) == 1 else None


def _equal(left: object, right: object) -> bool:
    if isinstance(left, int | float) and isinstance(right, int | float):
        return math.isclose(float(left), float(right), rel_tol=_RELATIVE_TOLERANCE, abs_tol=1e-9)
    return left == right


def no_rows(r0: ResultRows, own: ResultRows) -> Judgement:
    if not own.rows:
        return holds("the reverse query returns no row")
    return broken(f"the reverse query returns {len(own.rows)} row(s)")


def row_count(r0: ResultRows, own: ResultRows) -> Judgement:
    value = _one_value(own)
    if not isinstance(value, int | float):
        return unknown("the reverse query does not return one number")
    if _equal(value, len(r0.rows)):
        return holds(f"the reverse query counts {value}, as many as the answer's rows")
    return broken(f"the reverse query counts {value}; the answer has {len(r0.rows)} rows")


def same_value(r0: ResultRows, own: ResultRows) -> Judgement:
    mine, theirs = _one_value(own), _one_value(r0)
    if mine is None or theirs is None:
        return unknown("the answer or the reverse query is not one value")
    if _equal(mine, theirs):
        return holds(f"the reverse query gives {mine}, as the answer")
    return broken(f"the reverse query gives {mine}; the answer gives {theirs}")


def same_stocks(r0: ResultRows, own: ResultRows) -> Judgement:
    mine, theirs = _ts_codes(own), _ts_codes(r0)
    if mine is None or theirs is None:
        return unknown("the answer or the reverse query has no ts_code column")
    if mine == theirs:
        return holds(f"the reverse query returns the answer's {len(theirs)} stocks")
    return broken(
        f"{len(mine - theirs)} stock(s) only in the reverse query, {len(theirs - mine)} only in the answer"
    )


def stocks_in_answer(r0: ResultRows, own: ResultRows) -> Judgement:
    mine, theirs = _ts_codes(own), _ts_codes(r0)
    if mine is None or theirs is None:
        return unknown("the answer or the reverse query has no ts_code column")
    missing = sorted(str(code) for code in mine - theirs)
    if not missing:
        return holds("every stock the reverse query returns is in the answer")
    return broken(f"{len(missing)} stock(s) missing from the answer: {', '.join(missing[:5])}")


CRITERIA: dict[CheckCriterion, Decide] = {
    "no_rows": no_rows,
    "row_count": row_count,
    "same_value": same_value,
    "same_stocks": same_stocks,
    "stocks_in_answer": stocks_in_answer,
}


CRITERION_TEXT: dict[CheckCriterion, str] = {
    "no_rows": "the reverse query returns no row",
    "row_count": "the reverse query counts the answer's rows",
    "same_value": "the reverse query gives the answer's value",
    "same_stocks": "the reverse query returns the answer's stocks",
    "stocks_in_answer": "every stock the reverse query returns is in the answer",
    "judge": "the judge finds the reverse rows consistent with the answer",
}


def _preview(rows: ResultRows) -> str:
    return format_result_preview(rows.columns, rows.rows, limit=PREVIEW_ROWS)


class _Judged:
    """The judge's decision of one check, as a criterion of (r0, own) like any other; a failing judge
    leaves the check undecided, and is remembered so that `builtin` can drop the check."""

    def __init__(self, judge: JudgeRole, question: str, check: ReverseQuestion) -> None:
        self._judge, self._question, self._check = judge, question, check
        self.calls: list[LlmCall] = []
        self.failure: str | None = None
        self._lock = threading.Lock()

    def __call__(self, r0: ResultRows, own: ResultRows) -> Judgement:
        calls: list[LlmCall] = []
        try:
            verdict = self._judge.judge(
                self._question,
                self._check.question,
                self._check.sql,
                _preview(r0),
                _preview(own),
                calls=calls,
            )
        except LlmError as error:
            with self._lock:
                self.calls += calls
                self.failure = str(error)
            return unknown(f"the judge failed: {error}")
        with self._lock:
            self.calls += calls
        return holds(f"the judge: {verdict.reason}") if verdict.ok else broken(f"the judge: {verdict.reason}")


def _writer_failure(question: str, round_number: int, reason: str) -> CheckResult:
    lang = language_of(question)
    return CheckResult(
        check_id=f"llm-writer-r{round_number}",
        stage="reverse",
        level="result",
        kind="llm_writer",
        text=says(lang, "大模型编写的反向问题", "the LLM's reverse questions"),
        sql=None,
        criterion=says(lang, "大模型给出可用的反向问题", "the LLM writes usable reverse questions"),
        verdict="undecidable",
        attribution=None,
        reason=reason,
        ms=0.0,
    )


def _stored_checks(
    library: ParadigmLibrary, trees: Sequence[Node], database: str, criteria: Sequence[CheckCriterion]
) -> list[tuple[ReverseQuestion, ParadigmHit]] | None:
    """The whole set of checks stored for these trees, each filled from its tree and accepted as the
    writer's own output would be (guard, market tables, a criterion allowed now); None — a miss — when
    the first names no set, or any check of its set is missing or unusable."""
    hits = library.lookup_reverse(trees)
    size = hits[0].spec.get("of") if hits[0] is not None else None
    if not isinstance(size, int) or not 1 <= size <= len(hits):
        return None
    found = []
    for hit in hits[:size]:
        if hit is None or hit.spec.get("criterion") not in criteria:
            return None
        try:
            stored = ReverseQuestion.model_validate(
                {
                    "question": hit.question,
                    "point": hit.spec.get("point"),
                    "sql": accept_sql(hit.sql, database),
                    "criterion": hit.spec["criterion"],
                }
            )
        except (ValidationError, UnusableOutput):
            return None
        found.append((stored, hit))
    return found


def _comparable(value: object) -> tuple[str, object]:
    if isinstance(value, bool):
        return ("other", value)
    if isinstance(value, int | float | Decimal):
        return ("number", float(value))
    if isinstance(value, date):
        return ("text", value.isoformat())
    return ("text", value) if isinstance(value, str) else ("other", repr(value))


def holds_answer_values(sql: str, tree: Node, r0: ResultRows) -> bool:
    """Whether the SQL holds a literal equal to a value of the answer's rows that the tree does not
    carry (a value the writer read off the preview): such a check is true of this answer only, and a
    later answer would run it with stale values. ISO dates apart: the dates of a stored template that
    no slot carries are only reused on the market day they were written on (templates.py)."""
    carried: set[tuple[str, object]] = set()
    for _path, node in value_nodes(tree):
        literal = node["value"]
        carried.update(_comparable(item) for item in (literal if isinstance(literal, list) else [literal]))
    cells = {_comparable(cell) for row in r0.rows for cell in row}
    try:
        parsed = sqlglot.parse_one(sql, read=DIALECT)
    except sqlglot.errors.SqlglotError:
        return True
    for literal in parsed.find_all(exp.Literal):
        text = str(literal.this)
        if literal.is_string and _ISO_DATE.match(text):
            continue
        try:
            value = _comparable(text if literal.is_string else float(text))
        except ValueError:
            continue
        if value in cells and value not in carried:
            return True
    return False


def run_llm_checks(
    roles: LlmCheckRoles,
    question: str,
    sql: str,
    r0: ResultRows,
    constraints: Sequence[str],
    reader: MarketReader,
    database: str,
    *,
    round_number: int,
    workers: int,
    library: ParadigmLibrary,
    qst: Mapping[str, object] | None,
) -> LlmChecks:
    """The LLM's checks of one attempt: a stored set when the library holds one for the trees of
    `qst` and this answer (no writer call), else the writer's; `qst` None: the writer's, unrecorded."""
    found = LlmChecks()
    criteria = (*MECHANICAL_CRITERIA, "judge") if roles.judge is not None else MECHANICAL_CRITERIA
    trees = [describe_llm(qst, r0, database, nth) for nth in range(MAX_REVERSE_QUESTIONS)] if qst else []
    stored = _stored_checks(library, trees, database, criteria) if trees else None
    if stored is not None:
        kept = _run(roles, question, [item for item, _hit in stored], r0, reader, workers, found)
        found.library.used = [
            (stored[number][1], result.check_id) for number, result in zip(kept, found.results, strict=True)
        ]
        return found
    found.library.missed = bool(trees)
    schema_text = link_schema(question, roles.context).text(terse=True)

    def write(rows: int) -> list[ReverseQuestion]:
        preview = format_result_preview(r0.columns, r0.rows, limit=rows)
        return roles.writer.write(
            question,
            sql,
            preview,
            constraints,
            schema_text,
            database=database,
            criteria=criteria,
            calls=found.calls,
        )

    try:
        try:
            written = write(PREVIEW_ROWS)
        except LlmPromptTooLarge:  # nothing was sent: a shorter preview of the answer
            written = write(SHORT_PREVIEW_ROWS)
    except LlmError as error:
        failure = f"the LLM reverse-question writer failed: {error}"
        if roles.writer_on_failure == "fail":
            found.results.append(_writer_failure(question, round_number, failure))
            return found
        found.warnings.append(f"{failure}; the built-in checks decided alone")
        return found
    kept = _run(roles, question, written, r0, reader, workers, found)
    if not trees:  # no reading of the question: nothing to store the checks under
        return found
    trees = trees[: len(written)]
    storable = len(kept) == len(written) and not any(
        holds_answer_values(item.sql, tree, r0) for item, tree in zip(written, trees, strict=True)
    )
    if storable:  # only a whole set is ever used again
        found.library.written = [
            (
                ReverseRun(
                    item.question,
                    tree,
                    item.sql,
                    matched=False,
                    spec={"criterion": item.criterion, "point": item.point, "of": len(written)},
                ),
                result,
            )
            for item, tree, result in zip(written, trees, found.results, strict=True)
        ]
    return found


def _run(
    roles: LlmCheckRoles,
    question: str,
    written: Sequence[ReverseQuestion],
    r0: ResultRows,
    reader: MarketReader,
    workers: int,
    found: LlmChecks,
) -> list[int]:
    """Run the checks (the judge deciding those whose criterion is `judge`) into `found`; the
    numbers of the checks whose results were kept, in the order of `found.results`."""
    kept: list[int] = []
    judged: dict[int, _Judged] = {}
    checks: list[ReverseCheck] = []
    for number, item in enumerate(written):
        decide: Decide
        if item.criterion == "judge" and roles.judge is not None:
            judged[number] = _Judged(roles.judge, question, item)
            decide = judged[number]
        else:
            decide = CRITERIA[item.criterion]
        checks.append(
            ReverseCheck(
                LLM_RULE,
                item.question,
                item.sql,
                CRITERION_TEXT[item.criterion],
                Attribution(item.point),
                decide,
            )
        )
    results = run_checks(checks, reader, r0, workers=workers)
    for number, result in enumerate(results):
        judge = judged.get(number)
        if judge is not None:
            found.calls += judge.calls
        if judge is not None and judge.failure is not None and roles.judge_on_failure == "builtin":
            found.warnings.append(f"the LLM judge failed on '{result.text}': {judge.failure}; check left out")
            continue
        # Its own id: an LLM check never shares a point with another check, so it decides none of theirs.
        found.results.append(replace(result, check_id=f"llm-{result.check_id}"))
        kept.append(number)
    return kept
